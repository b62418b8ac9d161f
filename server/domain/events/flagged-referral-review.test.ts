// Review of the events of a referral a fraud signal flagged ("No click before sign-up" set to
// Flag): each purchase holds what it would have earned unflagged, commissions included, and
// approving one pays exactly that (the preview says so first); rejecting the sign-up rejects the
// referral and settles its other held events in the same step.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness, participant, uniqueEmail } from "../../../tests/support/domain";
import { acceptEvent } from "../tracking/service";
import { createRule } from "../commissions/service";
import { createRuleInput } from "../commissions/schemas";
import { changeEventStatus, previewEventDecision } from "./service";

/** A program paying 0.01 ETH a referral at the first purchase and 10 % of every purchase; NO_CLICK flags when `flag`. */
async function program(flag: boolean) {
  const b = await domainBusiness({ referralRewardEth: "0.01", fundEth: "1", general: { qualifyingEvents: ["purchase"] }, settings: { signals: { NO_CLICK: flag ? "FLAG" : "OFF" } } });
  await createRule(b.businessId, createRuleInput.parse({ environment: "TEST", name: "Ten percent", eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "10" }));
  const referrer = await participant(b.scope);
  const email = uniqueEmail("customer");
  const track = async (eventName: string, extra: Record<string, unknown> = {}) => {
    const r = await acceptEvent(b.scope, { eventName, metadata: { referredUserEmail: email }, ...extra }, { mode: "SYNC" });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return (r.body as { eventId: string; status: string }).eventId;
  };
  const signUp = () => track("signup", { referrer: referrer.referralCode });
  const purchase = (amount: string) => track("purchase", { amount, currency: "ETH" });
  return { ...b, referrer, signUp, purchase };
}

const rewardsOf = async (eventId: string) =>
  (await db.reward.findMany({ where: { eventId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] })).map((r) => [r.kind, r.status, r.amountWei.toString()]);
const statusOf = async (eventId: string) => (await db.trackedEvent.findUniqueOrThrow({ where: { id: eventId } })).status;

describe("events of a referral flagged by a fraud signal", () => {
  it("approving a held purchase pays exactly what it would have paid unflagged, the PERCENT commission included; the preview says so", async () => {
    const plain = await program(false);
    await plain.signUp();
    const paidFirst = await rewardsOf(await plain.purchase("0.2"));
    const paidSecond = await rewardsOf(await plain.purchase("0.05"));
    expect(paidFirst).toEqual([
      ["REFERRAL", "PAID", "10000000000000000"],
      ["COMMISSION", "PAID", "20000000000000000"],
    ]);
    expect(paidSecond).toEqual([["COMMISSION", "PAID", "5000000000000000"]]);

    const flagged = await program(true);
    const signUp = await flagged.signUp();
    expect(await statusOf(signUp)).toBe("FLAGGED");
    const first = await flagged.purchase("0.2");
    const second = await flagged.purchase("0.05");
    expect([await statusOf(first), await statusOf(second)]).toEqual(["FLAGGED", "FLAGGED"]);

    for (const [eventId, expected] of [
      [second, paidSecond],
      [first, paidFirst],
    ] as const) {
      const preview = await previewEventDecision(flagged.businessId, { eventId, status: "PROCESSED" });
      const done = await changeEventStatus(flagged.businessId, { eventId, status: "PROCESSED" });
      expect(done.outcome.map((r) => [r.rewardId, r.kind, r.status, r.amountEth])).toEqual(preview.rewards.map((r) => [r.rewardId, r.kind, r.status, r.amountEth]));
      expect(await rewardsOf(eventId)).toEqual(expected);
    }
    expect((await db.referral.findFirstOrThrow({ where: { businessId: flagged.businessId } })).status).toBe("REWARDED");
  });

  it("rejecting the sign-up rejects the referral and settles its held purchases in the same step", async () => {
    const p = await program(true);
    const signUp = await p.signUp();
    const first = await p.purchase("0.2");
    const second = await p.purchase("0.05");
    await changeEventStatus(p.businessId, { eventId: signUp, status: "REJECTED", reason: "Not a real customer" });
    const referral = await db.referral.findFirstOrThrow({ where: { businessId: p.businessId } });
    expect(referral).toMatchObject({ status: "REJECTED", reason: "Not a real customer", qualifiedAt: null });
    expect([await statusOf(first), await statusOf(second)]).toEqual(["REJECTED", "REJECTED"]);
    expect(await rewardsOf(first)).toEqual([
      ["REFERRAL", "REFUSED", "0"],
      ["COMMISSION", "REFUSED", "0"],
    ]);
    expect(await rewardsOf(second)).toEqual([["COMMISSION", "REFUSED", "0"]]);
    expect(await db.reward.count({ where: { businessId: p.businessId, status: "HELD" } })).toBe(0);
    // Nothing is left to review for this customer.
    await expect(changeEventStatus(p.businessId, { eventId: first, status: "PROCESSED" })).rejects.toMatchObject({ code: "INVALID_TRANSITION" });
    expect(await db.trackedEvent.count({ where: { businessId: p.businessId, status: "FLAGGED" } })).toBe(0);
  });

  it("approving a purchase while the sign-up is rejected: one of them goes first, and no rejected event keeps a paid reward", async () => {
    const p = await program(true);
    const signUp = await p.signUp();
    const first = await p.purchase("0.2");
    const answers = await Promise.all([
      changeEventStatus(p.businessId, { eventId: first, status: "PROCESSED" }).then(
        () => "OK",
        (e: { code?: string }) => e.code ?? "UNEXPECTED",
      ),
      changeEventStatus(p.businessId, { eventId: signUp, status: "REJECTED" }).then(() => "OK"),
    ]);
    expect(["OK", "INVALID_TRANSITION"]).toContain(answers[0]);
    expect(answers[1]).toBe("OK");
    const rewards = await db.reward.findMany({ where: { eventId: first } });
    if ((await statusOf(first)) === "PROCESSED") expect(rewards.map((r) => r.status)).toEqual(["PAID", "PAID"]);
    else expect(rewards.map((r) => r.status)).toEqual(["REFUSED", "REFUSED"]);
    expect(await db.trackedEvent.count({ where: { businessId: p.businessId, status: "FLAGGED" } })).toBe(0);
  });
});
