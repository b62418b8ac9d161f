// Ledger primitives against the real database (in-memory PGlite or the suite's PostgreSQL).
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { creditLedger, getBalanceWei, lockPool } from "./service";
import { debitLedger } from "../rules/debit";

async function newBusiness(config: { lowPoolAlertWei?: string; autoRefillEnabled?: boolean; autoRefillAmountWei?: string } = {}) {
  const b = await db.business.create({ data: { name: "Ledger Co", ownerId: `owner-${randomBytes(6).toString("hex")}` } });
  await db.businessConfig.create({ data: { businessId: b.id, ...config } });
  return b.id;
}

describe("ledger", () => {
  it("credits and debits sum to the balance, per environment", async () => {
    const businessId = await newBusiness();
    await db.$transaction((tx) => creditLedger(tx, { businessId, environment: "TEST", amountWei: 1000n, kind: "FUNDING", memo: "seed" }));
    const after = await db.$transaction(async (tx) => {
      const pool = await lockPool(tx, businessId, "TEST");
      return debitLedger(tx, pool, { businessId, environment: "TEST", amountWei: 300n, kind: "REWARD" });
    });
    expect(after.balanceWei).toBe(700n);
    expect(await getBalanceWei(db, businessId, "TEST")).toBe(700n);
    expect(await getBalanceWei(db, businessId, "LIVE")).toBe(0n);
  });

  it("raises one LOW_POOL alert per crossing (plus a refill request with auto-refill) and re-arms on funding", async () => {
    const businessId = await newBusiness({ lowPoolAlertWei: "500", autoRefillEnabled: true, autoRefillAmountWei: "2000" });
    await db.$transaction((tx) => creditLedger(tx, { businessId, environment: "LIVE", amountWei: 1000n, kind: "FUNDING" }));
    const debit = (n: bigint) =>
      db.$transaction(async (tx) => debitLedger(tx, await lockPool(tx, businessId, "LIVE"), { businessId, environment: "LIVE", amountWei: n, kind: "REWARD" }));
    await debit(400n); // 600: above
    await debit(200n); // 400: crossing
    await debit(100n); // 300: still below, no new alert
    let alerts = await db.alert.findMany({ where: { businessId }, orderBy: { createdAt: "asc" } });
    expect(alerts.map((a) => a.kind).sort()).toEqual(["LOW_POOL", "REFILL_REQUEST"]);
    expect(alerts.find((a) => a.kind === "REFILL_REQUEST")!.amountWei!.toFixed()).toBe("2000");
    await db.$transaction((tx) => creditLedger(tx, { businessId, environment: "LIVE", amountWei: 1000n, kind: "FUNDING" })); // 1300
    await debit(900n); // 400: second crossing
    alerts = await db.alert.findMany({ where: { businessId, kind: "LOW_POOL" } });
    expect(alerts).toHaveLength(2);
  });

  it("refuses a duplicate txHash in one environment", async () => {
    const businessId = await newBusiness();
    const txHash = `0x${randomBytes(32).toString("hex")}`;
    await db.$transaction((tx) => creditLedger(tx, { businessId, environment: "TEST", amountWei: 5n, kind: "FUNDING", txHash }));
    await expect(db.$transaction((tx) => creditLedger(tx, { businessId, environment: "TEST", amountWei: 5n, kind: "FUNDING", txHash }))).rejects.toThrow();
    expect(await getBalanceWei(db, businessId, "TEST")).toBe(5n);
  });
});
