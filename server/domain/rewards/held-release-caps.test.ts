// Releasing an event's held rewards after review keeps the per-event caps across each
// participant's rewards of the event (maxReferralEthPerEvent for the referrer's,
// maxBonusEthPerEvent for the referred user's), as the event would have paid without the hold:
// one-time rewards and commissions together, and rewards of the event paid before the release.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness, participant, uniqueEmail } from "../../../tests/support/domain";
import { acceptEvent } from "../tracking/service";
import { createRule } from "../commissions/service";
import { createRuleInput } from "../commissions/schemas";
import { changeEventStatus } from "../events/service";
import { getBalanceWei } from "../ledger/service";
import { updateReferralSettings } from "../referral-settings/service";
import { updateReferralSettingsInput } from "../referral-settings/schemas";
import { ethToWei, toBigInt } from "../../shared/money";
import { reverseRewards } from "../reversals/reversals";
import { reverseRewardsInput } from "../reversals/reversal-schemas";

/**
 * Referral reward 0.01 and bonus 0.005 on a purchase, a FIXED purchase commission of 0.05 ETH to
 * the referrer and of 0.005 ETH to the referred user, per-event caps of 0.04 (referrer) and
 * 0.006 (referred). The referral is made by a signup; with `holdForReview`, turned on after it,
 * the purchase that qualifies it holds its one-time rewards and its commissions together.
 */
async function program(holdForReview: boolean) {
  const b = await domainBusiness({
    referralRewardEth: "0.01",
    bonusEth: "0.005",
    fundEth: "1",
    general: { qualifyingEvents: ["purchase"] },
    spend: { environment: "TEST", maxReferralEthPerEvent: "0.04", maxBonusEthPerEvent: "0.006" },
  });
  for (const [recipient, amount] of [["REFERRER", "0.05"], ["REFERRED", "0.005"]] as const) {
    await createRule(b.businessId, createRuleInput.parse({ environment: "TEST", name: `${recipient} commission`, eventName: "purchase", recipient, type: "FIXED", amount, currency: "ETH" }));
  }
  const referrer = await participant(b.scope);
  const email = uniqueEmail("bob");
  expect((await acceptEvent(b.scope, { eventName: "signup", referrer: referrer.referralCode, metadata: { referredUserEmail: email } }, { mode: "SYNC" })).status).toBe(200);
  if (holdForReview) await updateReferralSettings(b.businessId, updateReferralSettingsInput.parse({ holdForReview }));
  expect((await acceptEvent(b.scope, { eventName: "purchase", metadata: { referredUserEmail: email } }, { mode: "SYNC" })).status).toBe(200);
  const event = await db.trackedEvent.findFirstOrThrow({ where: { businessId: b.businessId, eventName: "purchase" } });
  expect(event.status).toBe(holdForReview ? "FLAGGED" : "PROCESSED");
  return { ...b, referrerId: referrer.participantId, eventId: event.id };
}

/** The event's rewards as [kind, recipient, status, amount ETH wei, reason], and what the pool was debited for them. */
async function paidFor(businessId: string, referrerId: string, eventId: string) {
  const rewards = await db.reward.findMany({ where: { eventId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  const debits = await db.ledgerEntry.findMany({ where: { rewardId: { in: rewards.map((w) => w.id) }, kind: "REWARD" } });
  const total = (who: "referrer" | "referred") =>
    rewards.filter((w) => w.status === "PAID" && (w.participantId === referrerId) === (who === "referrer")).reduce((s, w) => s + toBigInt(w.amountWei), 0n);
  return {
    rewards: rewards.map((w) => [w.kind, w.participantId === referrerId ? "referrer" : "referred", w.status, w.amountWei.toFixed(), w.reason]),
    referrer: total("referrer"),
    referred: total("referred"),
    debited: -debits.reduce((s, d) => s + toBigInt(d.amountWei), 0n),
    spent: ethToWei("1") - (await getBalanceWei(db, businessId, "TEST")),
  };
}

describe("releasing held rewards keeps the per-event caps", () => {
  it("approving a held event pays each participant no more than the cap, as the event would have without the hold", async () => {
    const held = await program(true);
    expect(await db.reward.count({ where: { eventId: held.eventId, status: "HELD" } })).toBe(4);
    await changeEventStatus(held.businessId, { eventId: held.eventId, status: "PROCESSED" });
    const released = await paidFor(held.businessId, held.referrerId, held.eventId);
    expect(released.referrer).toBe(ethToWei("0.04"));
    expect(released.referred).toBe(ethToWei("0.006"));
    expect(released.debited).toBe(ethToWei("0.046"));
    expect(released.spent).toBe(ethToWei("0.046"));

    // The same program without the hold: the core's decision, reward for reward.
    const direct = await program(false);
    const paid = await paidFor(direct.businessId, direct.referrerId, direct.eventId);
    expect(released.rewards).toEqual(paid.rewards);
    expect(paid.rewards).toEqual([
      ["REFERRAL", "referrer", "PAID", ethToWei("0.01").toString(), null],
      ["BONUS", "referred", "PAID", ethToWei("0.005").toString(), null],
      ["COMMISSION", "referrer", "PAID", ethToWei("0.03").toString(), "PER_EVENT_CAP"],
      ["COMMISSION", "referred", "PAID", ethToWei("0.001").toString(), "PER_EVENT_CAP"],
    ]);
  });

  it("a referral reversed while its rewards are held: approving the event pays nothing (REFERRAL_REVERSED)", async () => {
    const held = await program(true);
    const referred = await db.trackedEvent.findUniqueOrThrow({ where: { id: held.eventId } });
    const email = (referred.metadata as { referredUserEmail: string }).referredUserEmail;
    await reverseRewards(held.scope, reverseRewardsInput.parse({ referredUserEmail: email, reason: "chargeback" }));
    await changeEventStatus(held.businessId, { eventId: held.eventId, status: "PROCESSED" });
    const after = await paidFor(held.businessId, held.referrerId, held.eventId);
    expect(after.rewards.map(([kind, , status, , reason]) => [kind, status, reason])).toEqual([
      ["REFERRAL", "REFUSED", "REFERRAL_REVERSED"],
      ["BONUS", "REFUSED", "REFERRAL_REVERSED"],
      ["COMMISSION", "REFUSED", "REFERRAL_REVERSED"],
      ["COMMISSION", "REFUSED", "REFERRAL_REVERSED"],
    ]);
    expect(after.spent).toBe(0n);
  });

  it("a reward of the event paid before the release counts against the cap", async () => {
    const held = await program(true);
    // As if the referrer's one-time reward had been paid already (written here directly).
    const one = await db.reward.findFirstOrThrow({ where: { eventId: held.eventId, kind: "REFERRAL" } });
    await db.reward.update({ where: { id: one.id }, data: { status: "PAID", amountWei: one.requestedWei, paidAt: new Date() } });
    await changeEventStatus(held.businessId, { eventId: held.eventId, status: "PROCESSED" });
    const commission = await db.reward.findFirstOrThrow({ where: { eventId: held.eventId, kind: "COMMISSION", participantId: held.referrerId } });
    expect([commission.status, commission.amountWei.toFixed(), commission.reason]).toEqual(["PAID", ethToWei("0.03").toString(), "PER_EVENT_CAP"]);
  });
});
