// Reversals as the business sees them: every path (API, reversal event, staff) sends
// reward.reversed; the staff action reverses once; the list names reason, outcome and source;
// reversed rewards read REVERSED in the rewards list, the participant page, the referral timeline
// and the export; the stats' "earned" agrees with the participants' earned totals.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { ethToWei } from "../../shared/money";
import { referralStats } from "../analytics/referral-stats";
import { loadConfig } from "../effective-config/load";
import { referralsCsv, rewardsCsv } from "../exports/csv";
import { creditLedger, getBalanceWei, lockPool } from "../ledger/service";
import { getBusinessParticipant, getBusinessReferral } from "../referrals/browse";
import { payReward } from "../rewards/payout";
import { listRewards } from "../rewards/service";
import { listReversals } from "./reversal-list";
import { reverseOneReward, reverseRewards } from "./reversals";
import { participantTotals } from "../payouts/totals";

const hex = () => randomBytes(5).toString("hex");
const ENV = "TEST" as const;

async function business(config: Record<string, unknown> = {}) {
  const b = await db.business.create({ data: { name: "Reversal Co", ownerId: `owner-${hex()}` } });
  await db.businessConfig.create({ data: { businessId: b.id, ...config } });
  await db.$transaction((tx) => creditLedger(tx, { businessId: b.id, environment: ENV, amountWei: ethToWei("1"), kind: "FUNDING", memo: "fixture" }));
  // An endpoint subscribed to reward.reversed only: every reversal must queue one message.
  await db.webhookEndpoint.create({ data: { businessId: b.id, environment: ENV, url: "https://hooks.example.com/r", events: ["reward.reversed"], secretCiphertext: "x", secretPrefix: "whsec_x" } });
  return b;
}

async function referral(businessId: string, status: "QUALIFIED" | "REJECTED" = "QUALIFIED", referred?: { id: string }) {
  const referrer = await db.participant.create({ data: { businessId, environment: ENV, referralCode: `R${hex()}`, externalId: `ref-${hex()}`, name: `Rita ${hex()}` } });
  const to = referred ?? (await db.participant.create({ data: { businessId, environment: ENV, referralCode: `D${hex()}`, externalId: `usr-${hex()}`, email: `${hex()}@example.com` } }));
  const r = await db.referral.create({ data: { businessId, environment: ENV, referrerId: referrer.id, referredId: to.id, status } });
  return { referrer, referred: to as { id: string; externalId: string | null }, referralId: r.id };
}

function grant(businessId: string, participantId: string, eth: string, referralId: string | null) {
  return db.$transaction(async (tx) => {
    const cfg = await loadConfig(tx, businessId, ENV);
    const pool = await lockPool(tx, businessId, ENV);
    return payReward(tx, pool, cfg, { businessId, environment: ENV, participantId, kind: "REFERRAL", requestedWei: ethToWei(eth), referralId, now: new Date() });
  });
}

const reversedMessages = (businessId: string) => db.webhookMessage.findMany({ where: { businessId, eventType: "reward.reversed" } });

describe("reward.reversed for every reversal", () => {
  it("POST /sdk/rewards/reverse sends one reward.reversed per reversed reward, with its reversal", async () => {
    const b = await business();
    const { referrer, referred, referralId } = await referral(b.id);
    const r = await grant(b.id, referrer.id, "0.1", referralId);
    await reverseRewards({ businessId: b.id, environment: ENV, apiKeyId: null }, { referredUserId: referred.externalId!, reason: "refund #9", eventName: "refund" });
    const messages = await reversedMessages(b.id);
    expect(messages).toHaveLength(1);
    const body = JSON.parse(messages[0].body);
    expect(body).toMatchObject({
      type: "reward.reversed",
      data: { rewardId: r.id, status: "PAID", payoutStatus: "REVERSED", reversalReason: "refund #9", reversal: { outcome: "RETURNED_TO_POOL", reason: "refund #9", eventName: "refund", amountEth: "0.1", source: "API" } },
    });
  });

  it("a tracked reversal event sends it too", async () => {
    const { processEvent } = await import("../tracking/service");
    const b = await business({ reversalEvents: ["refund"] });
    const { referrer, referred, referralId } = await referral(b.id);
    await grant(b.id, referrer.id, "0.2", referralId);
    const event = await db.trackedEvent.create({ data: { businessId: b.id, environment: ENV, eventName: "refund", metadata: { referredUserId: referred.externalId, reason: "order 7 refunded" } } });
    await db.$transaction((tx) => processEvent(tx, { businessId: b.id, environment: ENV, apiKeyId: null }, event), { timeout: 30_000 });
    const [m] = await reversedMessages(b.id);
    expect(JSON.parse(m.body).data.reversal).toMatchObject({ reason: "order 7 refunded", eventId: event.id, source: "EVENT" });
  });
});

describe("staff reverse one reward", () => {
  it("returns an unpaid-out reward to the pool once, lists it, and shows it reversed everywhere", async () => {
    const b = await business();
    const { referrer, referralId } = await referral(b.id);
    const r = await grant(b.id, referrer.id, "0.25", referralId);
    expect(await getBalanceWei(db, b.id, ENV)).toBe(ethToWei("0.75"));

    const out = await reverseOneReward(b.id, r.id, "Order cancelled", "user-staff");
    expect(out.balanceEth).toBe("1");
    await expect(reverseOneReward(b.id, r.id, "again", "user-staff")).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await getBalanceWei(db, b.id, ENV)).toBe(ethToWei("1"));
    expect(await reversedMessages(b.id)).toHaveLength(1);

    const list = await listReversals(b.id, { environment: ENV, limit: 50 });
    expect(list.data).toMatchObject([{ reversalId: out.reversalId, rewardId: r.id, rewardKind: "REFERRAL", amountEth: "0.25", outcome: "RETURNED_TO_POOL", reason: "Order cancelled", source: "DASHBOARD", participant: { name: referrer.name } }]);
    expect((await listReversals(b.id, { environment: "LIVE", limit: 50 })).data).toHaveLength(0);

    // Rewards list, participant page, referral timeline, export: REVERSED, not PAID_OUT/PAYABLE.
    expect((await listRewards(b.id, { environment: ENV, limit: 10 })).data).toMatchObject([{ rewardId: r.id, state: "REVERSED", reversalReason: "Order cancelled" }]);
    expect((await getBusinessParticipant(b.id, referrer.id)).rewards).toMatchObject([{ rewardId: r.id, state: "REVERSED" }]);
    const detail = await getBusinessReferral(b.id, referralId);
    expect(detail.timeline.find((t) => t.type === "REWARD")).toMatchObject({ status: "REVERSED" });
    expect(detail.timeline.find((t) => t.type === "REVERSAL")).toMatchObject({ reason: "Order cancelled", amountEth: "0.25" });
    expect(detail.ethPaid).toBe("0");
    // The exports read ethPaid as the list does: the reversed reward paid nothing.
    const paidCell = async (lines: AsyncGenerator<string>) => {
      let text = "";
      for await (const line of lines) text += line;
      const [head, ...rows] = text.trim().split("\r\n");
      const at = head.split(",").indexOf("ethPaid");
      return rows.map((row) => row.split(",")[at]);
    };
    expect(await paidCell(referralsCsv(b.id, { environment: ENV }))).toEqual(["0"]);
    let csv = "";
    for await (const line of rewardsCsv(b.id, { environment: ENV })) csv += line;
    const [header, row] = csv.trim().split("\r\n");
    const columns = header.split(",");
    const cells = row.split(",");
    expect(columns.slice(columns.indexOf("state"), columns.indexOf("state") + 3)).toEqual(["state", "reversedAt", "reversalReason"]);
    expect(cells[columns.indexOf("state")]).toBe("REVERSED");
    expect(cells[columns.indexOf("reversalReason")]).toBe("Order cancelled");
  });

  it("a held or refused reward paid nothing: 422; another business's reward: 404", async () => {
    const b = await business();
    const other = await business();
    const { referrer } = await referral(b.id);
    const refused = await grant(b.id, referrer.id, "5", null); // more than the pool
    expect(refused.status).toBe("REFUSED");
    await expect(reverseOneReward(b.id, refused.id, "x", "u")).rejects.toMatchObject({ code: "INVALID_TRANSITION" });
    const ok = await grant(b.id, referrer.id, "0.01", null);
    await expect(reverseOneReward(other.id, ok.id, "x", "u")).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await db.rewardReversal.count({ where: { businessId: b.id } })).toBe(0);
  });
});

describe("totals that agree", () => {
  it("stats: earned = rewarded − reversed = the sum of participants' earned", async () => {
    const b = await business();
    const a = await referral(b.id);
    const c = await referral(b.id);
    await grant(b.id, a.referrer.id, "0.1", a.referralId);
    const r2 = await grant(b.id, c.referrer.id, "0.03", c.referralId);
    await reverseOneReward(b.id, r2.id, "chargeback", "u");
    const s = await referralStats(b.id, ENV);
    expect(s).toMatchObject({ ethRewarded: "0.13", ethReversed: "0.03", ethEarned: "0.1" });
    const totals = await participantTotals(b.id, [a.referrer.id, c.referrer.id]);
    const sum = [...totals.values()].reduce((x, t) => x + ethToWei(t.earnedEth), 0n);
    expect(sum).toBe(ethToWei(s.ethEarned));
  });
});

describe("Referred by", () => {
  it("names the referrer of the first referral that was not rejected", async () => {
    const b = await business();
    const honest = await referral(b.id);
    // A second code applied later to the same person is rejected (ALREADY_REFERRED): it names nobody.
    const rejected = await referral(b.id, "REJECTED", honest.referred);
    await db.referral.update({ where: { id: honest.referralId }, data: { createdAt: new Date(Date.now() + 1000) } });
    const p = await getBusinessParticipant(b.id, honest.referred.id);
    expect(p.referredBy?.participantId).toBe(honest.referrer.id);
    expect(p.referredBy?.participantId).not.toBe(rejected.referrer.id);
  });
});
