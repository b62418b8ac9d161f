// Anti-abuse rules enforced by the real pipeline (/track synchronous and queued job), each
// recorded with its reason on the referral and the event; nothing is paid.
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../support/http";
import { waitForJob } from "./sdk-helpers";
import { balanceEth, participant, rewardsBusiness, trackReferral } from "./rewards-helpers";

describe("anti-abuse through /track", () => {
  it("self-referral, blocked and disposable domains, second referrer, daily limit: REJECTED with reasons, nothing paid", async () => {
    const { owner, secret } = await rewardsBusiness({ referralRewardEth: "0.01", fundEth: "1" });
    const s = await owner.call("PATCH", "/business/referrals/settings", { blockedEmailDomains: ["blocked.example"], blockDisposableEmails: true, maxReferralsPerReferrerPerDay: 2 });
    expect(s.status).toBe(200);
    const aliceEmail = uniqueEmail("alice");
    const alice = await participant(secret, { email: aliceEmail });
    const outcome = async (referredUserEmail: string, code = alice.referralCode) => {
      const r = await trackReferral(secret, code, { referredUserEmail });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return [r.body.status, r.body.reason, r.body.rewards ?? []];
    };
    expect(await outcome(aliceEmail.toUpperCase())).toEqual(["REJECTED", "SELF_REFERRAL", []]);
    expect(await outcome(`x-${Date.now()}@sub.blocked.example`)).toEqual(["REJECTED", "BLOCKED_EMAIL_DOMAIN", []]);
    expect(await outcome(`x-${Date.now()}@mailinator.com`)).toEqual(["REJECTED", "DISPOSABLE_EMAIL", []]);
    const bob = uniqueEmail("bob");
    expect((await outcome(bob))[0]).toBe("PROCESSED");
    const carol = await participant(secret);
    expect(await outcome(bob, carol.referralCode)).toEqual(["REJECTED", "ALREADY_REFERRED", []]);
    expect((await outcome(uniqueEmail("dan")))[0]).toBe("PROCESSED");
    expect(await outcome(uniqueEmail("eve"))).toEqual(["REJECTED", "REFERRER_DAILY_LIMIT", []]);

    expect(await balanceEth(owner)).toBe("0.98");
    const stats = await owner.call("GET", "/business/referrals/stats?environment=TEST");
    expect(stats.body.rejectedReferralsByReason).toEqual({ SELF_REFERRAL: 1, BLOCKED_EMAIL_DOMAIN: 1, DISPOSABLE_EMAIL: 1, ALREADY_REFERRED: 1, REFERRER_DAILY_LIMIT: 1 });
    const rejected = await owner.call("GET", "/business/events?environment=TEST&status=REJECTED");
    expect(rejected.body.data.map((e: any) => e.reason).sort()).toEqual(["ALREADY_REFERRED", "BLOCKED_EMAIL_DOMAIN", "DISPOSABLE_EMAIL", "REFERRER_DAILY_LIMIT", "SELF_REFERRAL"]);
  });

  it("a queued job records the same reasons", async () => {
    const { owner, secret } = await rewardsBusiness({ fundEth: "1", general: { eventProcessing: "ASYNC" } });
    await owner.call("PATCH", "/business/referrals/settings", { blockDisposableEmails: true });
    const alice = await participant(secret);
    const r = await trackReferral(secret, alice.referralCode, { referredUserEmail: "someone@yopmail.com" });
    expect(r.status).toBe(202);
    expect((await waitForJob(secret, r.body.jobId)).status).toBe("SUCCEEDED");
    const ev = await owner.call("GET", `/business/events/${r.body.eventId}`);
    expect(ev.body).toMatchObject({ status: "REJECTED", reason: "DISPOSABLE_EMAIL", rewards: [] });
    expect(await balanceEth(owner)).toBe("1");
  });
});
