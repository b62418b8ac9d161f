// TEST and LIVE settings: amounts, caps, the low-pool alert and auto-refill may differ by
// environment; an update naming an environment leaves the other alone; one without changes both;
// the engine and the low-pool alert use the values of the environment whose money moves.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { ethToWei } from "../../shared/money";
import { creditLedger } from "../ledger/service";
import { grantManualReward } from "../rewards/service";
import { updateGeneralInput, updateSpendInput } from "./schemas";
import { getConfig, updateGeneralConfig, updateSpendConfig } from "./service";

const hex = () => randomBytes(5).toString("hex");

async function business() {
  const b = await db.business.create({ data: { name: "Env Co", ownerId: `owner-${hex()}` } });
  return b.id;
}

describe("settings per environment", () => {
  it("an update with an environment changes that environment only; without, both", async () => {
    const b = await business();
    await updateGeneralConfig(b, updateGeneralInput.parse({ referralRewardEth: "0.01", bonusEth: "0.002" }));
    expect((await getConfig(b, "TEST")).general).toMatchObject({ referralRewardEth: "0.01", bonusEth: "0.002" });
    expect((await getConfig(b, "LIVE")).environmentSpecific).toBe(false);

    const test = await updateGeneralConfig(b, updateGeneralInput.parse({ environment: "TEST", referralRewardEth: "5", rewardStrategy: "FIXED" }));
    expect(test).toMatchObject({ environment: "TEST", environmentSpecific: true, general: { referralRewardEth: "5", bonusEth: "0.002" } });
    expect((await getConfig(b, "LIVE")).general).toMatchObject({ referralRewardEth: "0.01", bonusEth: "0.002" });

    await updateSpendConfig(b, updateSpendInput.parse({ environment: "LIVE", lowPoolAlertEth: "10", maxEthPerDayPerUser: "0.5" }));
    expect((await getConfig(b, "LIVE")).spend).toMatchObject({ lowPoolAlertEth: "10", maxEthPerDayPerUser: "0.5" });
    expect((await getConfig(b, "TEST")).spend).toMatchObject({ lowPoolAlertEth: "0", maxEthPerDayPerUser: null });

    // No environment: both change, each keeping its other own values.
    await updateGeneralConfig(b, updateGeneralInput.parse({ bonusEth: "0.003" }));
    expect((await getConfig(b, "TEST")).general).toMatchObject({ referralRewardEth: "5", bonusEth: "0.003" });
    expect((await getConfig(b, "LIVE")).general).toMatchObject({ referralRewardEth: "0.01", bonusEth: "0.003" });
    expect((await getConfig(b, "LIVE")).spend.lowPoolAlertEth).toBe("10");
  });

  it("the daily cap and the low-pool alert of one environment do not apply to the other", async () => {
    const b = await business();
    await updateSpendConfig(b, updateSpendInput.parse({ environment: "LIVE", maxEthPerDayPerUser: "0.001", lowPoolAlertEth: "0.5" }));
    for (const environment of ["TEST", "LIVE"] as const) {
      await db.$transaction((tx) => creditLedger(tx, { businessId: b, environment, amountWei: ethToWei("1"), kind: "FUNDING" }));
      await db.participant.create({ data: { businessId: b, environment, referralCode: `C${hex()}`.toUpperCase(), email: `p-${environment.toLowerCase()}@example.com` } });
    }
    const paidTest = await grantManualReward(b, { recipient: "p-test@example.com", amountEth: "0.6", reason: "thanks", environment: "TEST" });
    expect(paidTest).toMatchObject({ status: "PAID", amountEth: "0.6" });
    expect(await db.alert.count({ where: { businessId: b } })).toBe(0);
    await expect(grantManualReward(b, { recipient: "p-live@example.com", amountEth: "0.6", reason: "thanks", environment: "LIVE" })).resolves.toMatchObject({ amountEth: "0.001", reason: "DAILY_CAP" });
    const live = await grantManualReward(b, { recipient: "p-live@example.com", amountEth: "0.6", reason: "again", environment: "LIVE" }).catch((e) => e);
    expect(live.code).toBe("DAILY_CAP_REACHED");
    expect(await db.alert.count({ where: { businessId: b } })).toBe(0);
  });

  it("the low-pool alert fires against the threshold of the pool's own environment", async () => {
    const b = await business();
    await updateSpendConfig(b, updateSpendInput.parse({ environment: "TEST", lowPoolAlertEth: "0.9" }));
    await db.$transaction((tx) => creditLedger(tx, { businessId: b, environment: "TEST", amountWei: ethToWei("1"), kind: "FUNDING" }));
    await db.$transaction((tx) => creditLedger(tx, { businessId: b, environment: "LIVE", amountWei: ethToWei("1"), kind: "FUNDING" }));
    await db.participant.create({ data: { businessId: b, environment: "TEST", referralCode: `C${hex()}`.toUpperCase(), email: "t@example.com" } });
    await db.participant.create({ data: { businessId: b, environment: "LIVE", referralCode: `C${hex()}`.toUpperCase(), email: "l@example.com" } });
    await grantManualReward(b, { recipient: "l@example.com", amountEth: "0.2", reason: "x", environment: "LIVE" });
    expect(await db.alert.count({ where: { businessId: b } })).toBe(0);
    await grantManualReward(b, { recipient: "t@example.com", amountEth: "0.2", reason: "x", environment: "TEST" });
    expect(await db.alert.findMany({ where: { businessId: b }, select: { environment: true, kind: true } })).toEqual([{ environment: "TEST", kind: "LOW_POOL" }]);
  });
});
