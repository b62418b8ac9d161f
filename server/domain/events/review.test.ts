// Review of FLAGGED events in process: approval releases held rewards exactly once (also under
// concurrent approvals), rejection refuses them and rejects the referral, and the transition
// table holds. (Who may review and the HTTP answers are in tests/http/events-review.test.ts.)
import { describe, expect, it } from "vitest";
import { balanceEth, domainBusiness, participant, trackReferral } from "../../../tests/support/domain";
import { referralStats } from "../analytics/referral-stats";
import { changeEventStatus } from "./service";

async function flaggedBusiness() {
  return domainBusiness({ referralRewardEth: "0.01", bonusEth: "0.005", fundEth: "1", settings: { holdForReview: true } });
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "OK",
    (e: { code?: string }) => e.code ?? "UNEXPECTED_ERROR",
  );

describe("review of FLAGGED events", () => {
  it("concurrent approvals of one event pay once", async () => {
    const { businessId, scope } = await flaggedBusiness();
    const t = await trackReferral(scope, (await participant(scope)).referralCode);
    expect(t.body).toMatchObject({ status: "FLAGGED", reason: "HELD_FOR_REVIEW" });
    expect(t.body.rewards.map((r: { status: string }) => r.status)).toEqual(["HELD", "HELD"]);
    const results = await Promise.all(Array.from({ length: 8 }, () => codeOf(changeEventStatus(businessId, { eventId: t.body.eventId, status: "PROCESSED" }))));
    expect(results.filter((r) => r === "OK")).toHaveLength(1);
    expect(results.filter((r) => r === "INVALID_TRANSITION")).toHaveLength(7);
    expect(await balanceEth(businessId)).toBe("0.985");
  });

  it("reject refuses held rewards and rejects the referral; other transitions are refused", async () => {
    const { businessId, scope } = await flaggedBusiness();
    const t = await trackReferral(scope, (await participant(scope)).referralCode);
    expect(await codeOf(changeEventStatus(businessId, { eventId: t.body.eventId, status: "QUEUED" }))).toBe("INVALID_TRANSITION");
    const rej = await changeEventStatus(businessId, { eventId: t.body.eventId, status: "REJECTED", reason: "Duplicate account" });
    expect(rej).toMatchObject({ status: "REJECTED", reason: "Duplicate account" });
    expect(rej.rewards.map((r) => [r.status, r.reason])).toEqual([
      ["REFUSED", "REJECTED_BY_REVIEW"],
      ["REFUSED", "REJECTED_BY_REVIEW"],
    ]);
    expect(await codeOf(changeEventStatus(businessId, { eventId: t.body.eventId, status: "PROCESSED" }))).toBe("INVALID_TRANSITION");
    const stats = await referralStats(businessId, "TEST");
    expect(stats).toMatchObject({ byStatus: { REJECTED: 1 }, rejectedReferralsByReason: { "Duplicate account": 1 } });
    expect(await balanceEth(businessId)).toBe("1");
  });

  it("a PROCESSED event cannot be re-reviewed; another business's event is not found", async () => {
    const { businessId, scope } = await domainBusiness({ fundEth: "1" });
    const t = await trackReferral(scope, (await participant(scope)).referralCode);
    expect(t.body.status).toBe("PROCESSED");
    expect(await codeOf(changeEventStatus(businessId, { eventId: t.body.eventId, status: "REJECTED" }))).toBe("INVALID_TRANSITION");
    const other = await domainBusiness();
    expect(await codeOf(changeEventStatus(other.businessId, { eventId: t.body.eventId, status: "PROCESSED" }))).toBe("NOT_FOUND");
  });
});
