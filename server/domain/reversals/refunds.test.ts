// Refunds of one event through POST /sdk/rewards/reverse (eventId, optional amount), against the
// real database (PGlite or PostgreSQL): the share of each commission reward, rounded down to the
// wei; partial refunds that add up to the whole reverse exactly the whole; a refund beyond what
// remains is refused and changes nothing; after a payout the share is clawed back and offset by
// the next payout; the database refuses reversals beyond a reward and refunds beyond an event.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness, uniqueEmail } from "../../../tests/support/domain";
import { acceptEvent } from "../tracking/service";
import { getEvent } from "../events/service";
import { createRuleInput, updatePricingInput } from "../commissions/schemas";
import { createRule } from "../commissions/service";
import { updatePricing } from "../commissions/pricing";
import { getBalanceWei } from "../ledger/service";
import { listRewards } from "../rewards/service";
import { createNextPayout, participantDebtWei } from "../payouts/create";
import { payoutQueue } from "../payouts/queue";
import { senderFor } from "../payouts/sender";
import { participantTotals } from "../payouts/totals";
import { ethToWei, weiToDb, weiToEth } from "../../shared/money";
import type { Scope } from "../../shared/scope";
import { reverseRewardsInput } from "./reversal-schemas";
import { reverseRewards } from "./reversals";

const WALLET = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
// A 100.00 USD purchase at 1 ETH = 3000 USD: 10 % to the referrer, 5 USD to the referred user.
const TEN_PERCENT = 3333333333333333n;
const FIVE_USD = 1666666666666666n;

/** A business with two commission rules, a referred user and their 100.00 USD purchase. */
async function purchased() {
  // A referral reward (on the signup) below the share a refund claws back from the referrer.
  const { businessId, scope } = await domainBusiness({ referralRewardEth: "0.001", fundEth: "10" });
  await updatePricing(businessId, updatePricingInput.parse({ environment: "TEST", source: "FIXED", rates: { USD: "3000" } }));
  await createRule(businessId, createRuleInput.parse({ environment: "TEST", name: "10 %", eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "10" }));
  await createRule(businessId, createRuleInput.parse({ environment: "TEST", name: "5 USD", eventName: "purchase", recipient: "REFERRED", type: "FIXED", amount: "5", currency: "USD" }));
  const referrer = await db.participant.create({ data: { businessId, environment: "TEST", referralCode: `R${Date.now()}${Math.floor(Math.random() * 1e6)}`, email: uniqueEmail("referrer"), walletAddress: WALLET } });
  const email = uniqueEmail("bob");
  expect((await acceptEvent(scope, { eventName: "signup", referrer: referrer.referralCode, metadata: { referredUserEmail: email } }, { mode: "SYNC" })).status).toBe(200);
  const before = await getBalanceWei(db, businessId, "TEST");
  expect((await acceptEvent(scope, { eventName: "purchase", amount: "100.00", currency: "USD", metadata: { referredUserEmail: email } }, { mode: "SYNC" })).status).toBe(200);
  const event = await db.trackedEvent.findFirstOrThrow({ where: { businessId, eventName: "purchase" } });
  const rewards = await db.reward.findMany({ where: { eventId: event.id }, orderBy: { amountWei: "desc" } });
  expect(rewards.map((w) => w.amountWei.toFixed())).toEqual([TEN_PERCENT.toString(), FIVE_USD.toString()]);
  const referred = await db.participant.findFirstOrThrow({ where: { businessId, email } });
  return { businessId, scope, event, referrer, referred, before, commission: rewards[0], bonus: rewards[1] };
}

const refund = (scope: Scope, body: Record<string, unknown>) => reverseRewards(scope, reverseRewardsInput.parse({ reason: "order refunded", eventName: "refund", ...body }));
const reward = (id: string) => db.reward.findUniqueOrThrow({ where: { id } });

describe("partial refunds", () => {
  it("30 % then 70 %: each share rounded down to the wei, together exactly the whole; the pool is back where it was", async () => {
    const { businessId, scope, event, referred, before, commission, bonus } = await purchased();
    const first = await refund(scope, { eventId: event.id, amount: "30" });
    // floor(reward × 30 / 100): 999999999999999.9 and 499999999999999.8 round down.
    expect(first.body).toMatchObject({
      eventId: event.id,
      refundedAmount: "30",
      referredParticipantId: referred.id,
      clawbackEth: "0",
      returnedToPoolEth: weiToEth(999999999999999n + 499999999999999n),
    });
    expect((first.body as { reversals: unknown[] }).reversals).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ rewardId: commission.id, amountEth: weiToEth(999999999999999n), outcome: "RETURNED_TO_POOL", eventName: "refund" }),
        expect.objectContaining({ rewardId: bonus.id, amountEth: weiToEth(499999999999999n), outcome: "RETURNED_TO_POOL" }),
      ]),
    );
    // A partial refund keeps the reward's state; it pays what was not returned.
    expect(await reward(commission.id)).toMatchObject({ payoutStatus: "PAYABLE", reversedAt: null });
    expect((await reward(commission.id)).reversedWei.toFixed()).toBe("999999999999999");
    const view = (await listRewards(businessId, { environment: "TEST", eventId: event.id, limit: 10 })).data.find((w) => w.rewardId === commission.id);
    expect(view).toMatchObject({ reversedEth: weiToEth(999999999999999n), payoutStatus: "PAYABLE" });

    const rest = await refund(scope, { eventId: event.id, amount: "70.00" });
    expect(rest.body).toMatchObject({ refundedAmount: "100", returnedToPoolEth: weiToEth(TEN_PERCENT - 999999999999999n + FIVE_USD - 499999999999999n) });
    for (const w of [commission, bonus]) {
      const now = await reward(w.id);
      expect(now).toMatchObject({ payoutStatus: "REVERSED", reversalReason: "order refunded" });
      expect([now.reversedWei.toFixed(), now.returnedWei.toFixed()]).toEqual([w.amountWei.toFixed(), w.amountWei.toFixed()]);
    }
    expect(await getBalanceWei(db, businessId, "TEST")).toBe(before);
    expect((await db.trackedEvent.findUniqueOrThrow({ where: { id: event.id } })).refundedAmount.toFixed()).toBe("100");
    // The event as the dashboard and GET /business/events/:id show it.
    expect(await getEvent(businessId, event.id)).toMatchObject({ amount: "100", refundedAmount: "100" });
    // Nothing left to refund: another call without amount reverses nothing.
    expect((await refund(scope, { eventId: event.id })).body).toMatchObject({ reversals: [], refundedAmount: "100", returnedToPoolEth: "0" });
  });

  it("60 then 60: the second is 422 and changes nothing; the rest without amount reverses what remains", async () => {
    const { businessId, scope, event, commission } = await purchased();
    await refund(scope, { eventId: event.id, amount: "60" });
    const balance = await getBalanceWei(db, businessId, "TEST");
    const count = await db.rewardReversal.count({ where: { businessId } });
    await expect(refund(scope, { eventId: event.id, amount: "60" })).rejects.toMatchObject({ code: "UNPROCESSABLE", message: expect.stringMatching(/more than the 40 USD of this 100 USD event not yet refunded/) });
    expect(await getBalanceWei(db, businessId, "TEST")).toBe(balance);
    expect(await db.rewardReversal.count({ where: { businessId } })).toBe(count);
    expect((await db.trackedEvent.findUniqueOrThrow({ where: { id: event.id } })).refundedAmount.toFixed()).toBe("60");
    const rest = await refund(scope, { eventId: event.id });
    expect(rest.body).toMatchObject({ refundedAmount: "100" });
    expect(await reward(commission.id)).toMatchObject({ payoutStatus: "REVERSED" });
  });

  it("two refunds of 60 at once: one is refused, the event never refunded beyond its amount", async () => {
    const { businessId, scope, event, commission } = await purchased();
    const results = await Promise.allSettled([refund(scope, { eventId: event.id, amount: "60" }), refund(scope, { eventId: event.id, amount: "60" })]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(results.find((r) => r.status === "rejected")).toMatchObject({ reason: { code: "UNPROCESSABLE" } });
    expect((await db.trackedEvent.findUniqueOrThrow({ where: { id: event.id } })).refundedAmount.toFixed()).toBe("60");
    expect((await reward(commission.id)).reversedWei.toFixed()).toBe(((TEN_PERCENT * 60n) / 100n).toString());
    expect(await db.rewardReversal.count({ where: { businessId } })).toBe(2);
  });

  it("bad requests: 400 for the shape and the currency's decimals, 404 for another environment's event, 422 for an amount on an event without one", async () => {
    const { scope, event, referred } = await purchased();
    const bad = (body: Record<string, unknown>) => reverseRewardsInput.safeParse({ reason: "x", ...body }).error?.issues.map((i) => i.path.join("."));
    expect(bad({ amount: "5" })).toEqual(expect.arrayContaining(["amount"]));
    expect(bad({ eventId: event.id, referredUserId: "u1" })).toEqual(["eventId"]);
    expect(bad({ eventId: event.id, amount: "-5" })).toEqual(["amount"]);
    expect(bad({})).toEqual(["referredUserId"]);
    await expect(refund(scope, { eventId: event.id, amount: "19.999" })).rejects.toMatchObject({ code: "VALIDATION_ERROR", details: [{ path: "amount" }] });
    await expect(refund(scope, { eventId: event.id, amount: "0" })).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    await expect(refund({ ...scope, environment: "LIVE" }, { eventId: event.id, amount: "1" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const signup = await db.trackedEvent.findFirstOrThrow({ where: { businessId: scope.businessId, eventName: "signup" } });
    await expect(refund(scope, { eventId: signup.id, amount: "1" })).rejects.toMatchObject({ code: "UNPROCESSABLE", message: expect.stringMatching(/no amount/) });
    // Without amount, an event without one reverses its rewards entirely (the signup's referral reward).
    const whole = await refund(scope, { eventId: signup.id });
    expect(whole.body).toMatchObject({ refundedAmount: null, referredParticipantId: referred.id, reversals: [{ amountEth: "0.001", outcome: "RETURNED_TO_POOL" }] });
  });

  it("after payout: the share is clawed back and the next payout offsets it; a reward partly refunded before payout pays the rest", async () => {
    const { businessId, scope, event, referrer, referred, commission, bonus } = await purchased();
    // Fixture: the referrer's commission was paid out by a confirmed payout.
    const paid = await db.payout.create({
      data: { businessId, environment: "TEST", participantId: referrer.id, walletAddress: WALLET, fromAddress: "0x0", amountWei: commission.amountWei, rewardsWei: commission.amountWei, status: "CONFIRMED", rewardIds: [commission.id], nonce: 0, txHash: "0xabc", rawTx: "0x01" },
    });
    await db.reward.update({ where: { id: commission.id }, data: { payoutStatus: "PAID_OUT", payoutId: paid.id } });
    const debtBefore = await participantDebtWei(db, referrer.id);
    const r = await refund(scope, { eventId: event.id, amount: "50" });
    const share = TEN_PERCENT / 2n; // 1666666666666666.5 rounds down
    expect(r.body).toMatchObject({ clawbackEth: weiToEth(share), returnedToPoolEth: weiToEth(FIVE_USD / 2n) });
    expect(await reward(commission.id)).toMatchObject({ payoutStatus: "PAID_OUT" });
    expect(await participantDebtWei(db, referrer.id)).toBe(debtBefore + share);
    const t = (await participantTotals(businessId, [referrer.id])).get(referrer.id)!;
    expect(t.earnedEth).toBe(weiToEth(ethToWei("0.001") + TEN_PERCENT - share));

    // The referred user's bonus pays what the refund left of it.
    const rest = FIVE_USD - FIVE_USD / 2n;
    const q = await payoutQueue(businessId, "TEST");
    expect(q.items.find((i) => i.participant.participantId === referred.id)).toMatchObject({ payableEth: weiToEth(rest) });
    expect((await participantTotals(businessId, [referred.id])).get(referred.id)).toMatchObject({ owedEth: weiToEth(rest), earnedEth: weiToEth(rest) });
    expect(await reward(bonus.id)).toMatchObject({ payoutStatus: "PAYABLE" });

    // The referrer's next payable reward (the signup's 0.001 ETH) is entirely offset by the debt:
    // settled without a transaction, the ETH kept in the pool.
    const pool = await getBalanceWei(db, businessId, "TEST");
    const step = await createNextPayout(await senderFor(businessId, "TEST"), new Set());
    expect(step.kind).toBe("created");
    const p = step.kind === "created" ? step.payout : null;
    expect([p?.status, p?.amountWei.toFixed(), p?.offsetWei.toFixed()]).toEqual(["CONFIRMED", "0", weiToDb(ethToWei("0.001"))]);
    expect(await getBalanceWei(db, businessId, "TEST")).toBe(pool + ethToWei("0.001"));
    expect(await participantDebtWei(db, referrer.id)).toBe(debtBefore + share - ethToWei("0.001"));
  });
});

describe("the database guards", () => {
  it("refuses reversals beyond the reward's amount, and refunds beyond the event's", async () => {
    const { businessId, event, commission } = await purchased();
    const row = (amountWei: bigint) => ({
      businessId,
      environment: "TEST" as const,
      rewardId: commission.id,
      participantId: commission.participantId,
      amountWei: weiToDb(amountWei),
      outcome: "RETURNED_TO_POOL" as const,
      reason: "fixture",
    });
    await db.rewardReversal.create({ data: row(TEN_PERCENT - 1n) });
    expect((await reward(commission.id)).reversedWei.toFixed()).toBe((TEN_PERCENT - 1n).toString());
    // Two rows that each fit, together one wei too many.
    await expect(db.rewardReversal.create({ data: row(2n) })).rejects.toThrow();
    await db.rewardReversal.create({ data: row(1n) });
    expect((await reward(commission.id)).returnedWei.toFixed()).toBe(TEN_PERCENT.toString());
    await expect(db.trackedEvent.update({ where: { id: event.id }, data: { refundedAmount: "100.01" } })).rejects.toThrow();
  });
});
