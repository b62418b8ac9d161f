// The rules core's anti-abuse screen (rules/screen.ts) through the real pipeline (the
// synchronous /track path and a queued job), each rule recorded with its reason on the referral
// and the event; nothing is paid.
import { describe, expect, it } from "vitest";
import { balanceEth, domainBusiness, participant, trackReferral, uniqueEmail } from "../../../tests/support/domain";
import { runJob } from "../../jobs/execute";
import { referralStats } from "../analytics/referral-stats";
import { getEvent, listEvents } from "../events/service";

describe("anti-abuse through /track", () => {
  it("self-referral, blocked and disposable domains, second referrer, daily limit: REJECTED with reasons, nothing paid", async () => {
    const { businessId, scope } = await domainBusiness({
      referralRewardEth: "0.01",
      fundEth: "1",
      settings: { blockedEmailDomains: ["blocked.example"], blockDisposableEmails: true, maxReferralsPerReferrerPerDay: 2 },
    });
    const aliceEmail = uniqueEmail("alice");
    const alice = await participant(scope, { email: aliceEmail });
    const outcome = async (referredUserEmail: string, code = alice.referralCode) => {
      const r = await trackReferral(scope, code, { referredUserEmail });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return [r.body.status, r.body.reason, r.body.rewards ?? []];
    };
    expect(await outcome(aliceEmail.toUpperCase())).toEqual(["REJECTED", "SELF_REFERRAL", []]);
    expect(await outcome(`x-${Date.now()}@sub.blocked.example`)).toEqual(["REJECTED", "BLOCKED_EMAIL_DOMAIN", []]);
    expect(await outcome(`x-${Date.now()}@mailinator.com`)).toEqual(["REJECTED", "DISPOSABLE_EMAIL", []]);
    const bob = uniqueEmail("bob");
    expect((await outcome(bob))[0]).toBe("PROCESSED");
    const carol = await participant(scope);
    expect(await outcome(bob, carol.referralCode)).toEqual(["REJECTED", "ALREADY_REFERRED", []]);
    expect((await outcome(uniqueEmail("dan")))[0]).toBe("PROCESSED");
    expect(await outcome(uniqueEmail("eve"))).toEqual(["REJECTED", "REFERRER_DAILY_LIMIT", []]);

    expect(await balanceEth(businessId)).toBe("0.98");
    const stats = await referralStats(businessId, "TEST");
    expect(stats.rejectedReferralsByReason).toEqual({ SELF_REFERRAL: 1, BLOCKED_EMAIL_DOMAIN: 1, DISPOSABLE_EMAIL: 1, ALREADY_REFERRED: 1, REFERRER_DAILY_LIMIT: 1 });
    const rejected = await listEvents(businessId, { environment: "TEST", status: "REJECTED", limit: 50 });
    expect(rejected.data.map((e) => e.reason).sort()).toEqual(["ALREADY_REFERRED", "BLOCKED_EMAIL_DOMAIN", "DISPOSABLE_EMAIL", "REFERRER_DAILY_LIMIT", "SELF_REFERRAL"]);
  });

  it("a queued job records the same reasons", async () => {
    const { businessId, scope } = await domainBusiness({ fundEth: "1", general: { eventProcessing: "ASYNC" }, settings: { blockDisposableEmails: true } });
    const alice = await participant(scope);
    const r = await trackReferral(scope, alice.referralCode, { referredUserEmail: "someone@yopmail.com" });
    expect(r.status).toBe(202);
    expect(await runJob(r.body.jobId)).toMatchObject({ status: "SUCCEEDED" });
    const ev = await getEvent(businessId, r.body.eventId);
    expect(ev).toMatchObject({ status: "REJECTED", reason: "DISPOSABLE_EMAIL", rewards: [] });
    expect(await balanceEth(businessId)).toBe("1");
  });
});
