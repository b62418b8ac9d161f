// Rejecting a held event after review: the event that held the referral's one-time rewards (the
// qualifying one) rejects the referral with it; a later event that held only commissions loses
// those, and the referral goes on earning (its held qualifying event can still be approved).
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness, participant, uniqueEmail } from "../../../tests/support/domain";
import { acceptEvent } from "../tracking/service";
import { createRule } from "../commissions/service";
import { createRuleInput } from "../commissions/schemas";
import { changeEventStatus } from "../events/service";
import { updateReferralSettings } from "../referral-settings/service";
import { updateReferralSettingsInput } from "../referral-settings/schemas";

/** A signup referral, then review holds on; a FIXED purchase commission to the referrer. */
async function heldProgram() {
  const b = await domainBusiness({ referralRewardEth: "0.01", bonusEth: "0.005", fundEth: "1", general: { qualifyingEvents: ["purchase"] } });
  await createRule(b.businessId, createRuleInput.parse({ environment: "TEST", name: "Per purchase", eventName: "purchase", recipient: "REFERRER", type: "FIXED", amount: "0.002", currency: "ETH" }));
  const referrer = await participant(b.scope);
  const email = uniqueEmail("carol");
  expect((await acceptEvent(b.scope, { eventName: "signup", referrer: referrer.referralCode, metadata: { referredUserEmail: email } }, { mode: "SYNC" })).status).toBe(200);
  await updateReferralSettings(b.businessId, updateReferralSettingsInput.parse({ holdForReview: true }));
  const purchase = async () => {
    expect((await acceptEvent(b.scope, { eventName: "purchase", metadata: { referredUserEmail: email } }, { mode: "SYNC" })).status).toBe(200);
    return db.trackedEvent.findFirstOrThrow({ where: { businessId: b.businessId, eventName: "purchase" }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
  };
  return { ...b, purchase };
}

const rewardsOf = async (eventId: string) =>
  (await db.reward.findMany({ where: { eventId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] })).map((r) => [r.kind, r.status, r.reason]);

describe("rejecting a held event", () => {
  it("a later purchase that held only commissions: those are refused, the referral stays qualified and its qualifying purchase is paid on approval", async () => {
    const p = await heldProgram();
    const first = await p.purchase();
    const second = await p.purchase();
    expect([first.status, second.status]).toEqual(["FLAGGED", "FLAGGED"]);
    expect(await rewardsOf(second.id)).toEqual([["COMMISSION", "HELD", "HELD_FOR_REVIEW"]]);

    await changeEventStatus(p.businessId, { eventId: second.id, status: "REJECTED" });
    expect(await rewardsOf(second.id)).toEqual([["COMMISSION", "REFUSED", "REJECTED_BY_REVIEW"]]);
    const referral = await db.referral.findUniqueOrThrow({ where: { id: first.referralId! } });
    expect(referral.status).toBe("QUALIFIED");

    await changeEventStatus(p.businessId, { eventId: first.id, status: "PROCESSED" });
    expect(await rewardsOf(first.id)).toEqual([
      ["REFERRAL", "PAID", null],
      ["BONUS", "PAID", null],
      ["COMMISSION", "PAID", null],
    ]);
    expect((await db.referral.findUniqueOrThrow({ where: { id: referral.id } })).status).toBe("REWARDED");

    // It goes on earning: the next purchase holds its commission for review again.
    const third = await p.purchase();
    expect(third.status).toBe("FLAGGED");
    expect(await rewardsOf(third.id)).toEqual([["COMMISSION", "HELD", "HELD_FOR_REVIEW"]]);
  });

  it("the qualifying purchase, which held the one-time rewards: the referral is rejected with it", async () => {
    const p = await heldProgram();
    const first = await p.purchase();
    await changeEventStatus(p.businessId, { eventId: first.id, status: "REJECTED", reason: "looks fake" });
    expect(await rewardsOf(first.id)).toEqual([
      ["REFERRAL", "REFUSED", "REJECTED_BY_REVIEW"],
      ["BONUS", "REFUSED", "REJECTED_BY_REVIEW"],
      ["COMMISSION", "REFUSED", "REJECTED_BY_REVIEW"],
    ]);
    expect((await db.referral.findUniqueOrThrow({ where: { id: first.referralId! } })).status).toBe("REJECTED");
  });
});
