// The reward engine end to end over real HTTP: /track (sync and queued job) → rewards → ledger
// → balance, with the pool funded by a real deposit on the run's local chain.
import { describe, expect, it } from "vitest";
import { sdk, signUp, uniqueEmail } from "../support/http";
import { waitForJob } from "./sdk-helpers";
import { addMember, balanceEth, fundTestPool, participant, rewardsBusiness, trackReferral } from "./rewards-helpers";

describe("track → reward → balance", () => {
  it("synchronous /track pays the referrer's reward and the referred user's bonus from the TEST pool", async () => {
    const { owner, secret } = await rewardsBusiness({ referralRewardEth: "0.01", bonusEth: "0.002", fundEth: "1" });
    const alice = await participant(secret);
    const r = await trackReferral(secret, alice.referralCode);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.processedSynchronously).toBe(true);
    expect(r.body.status).toBe("PROCESSED");
    expect(r.body.rewards.map((x: any) => [x.kind, x.amountEth, x.status])).toEqual([
      ["REFERRAL", "0.01", "PAID"],
      ["BONUS", "0.002", "PAID"],
    ]);
    expect(r.body.rewards[0].participantId).toBe(alice.participantId);
    expect(await balanceEth(owner)).toBe("0.988");

    const rewards = await owner.call("GET", "/business/rewards?environment=TEST");
    expect(rewards.status).toBe(200);
    expect(rewards.body.data).toHaveLength(2);
    expect(rewards.body.data.every((x: any) => x.eventId === r.body.eventId && x.environment === "TEST")).toBe(true);
    const ledger = await owner.call("GET", "/business/ledger?environment=TEST");
    expect(ledger.body.balanceEth).toBe("0.988");
    expect(ledger.body.data.map((e: any) => [e.kind, e.amountEth])).toEqual(
      expect.arrayContaining([
        ["FUNDING", "1"],
        ["REWARD", "-0.01"],
        ["REWARD", "-0.002"],
      ]),
    );
    // TEST rewards never touch LIVE.
    expect((await owner.call("GET", "/business/rewards")).body.data).toEqual([]);
    expect(await balanceEth(owner, "LIVE")).toBe("0");
  });

  it("a queued EVENT_PROCESS job pays the same way; a later event of the same referral pays nothing more", async () => {
    const { owner, secret } = await rewardsBusiness({ referralRewardEth: "0.02", fundEth: "1", general: { eventProcessing: "AUTO", qualifyingEvents: ["purchase"] } });
    const alice = await participant(secret);
    const email = uniqueEmail("bob");
    const signup = await trackReferral(secret, alice.referralCode, { eventName: "signup", referredUserEmail: email });
    expect(signup.status).toBe(202);
    const job1 = await waitForJob(secret, signup.body.jobId);
    expect(job1.status).toBe("SUCCEEDED");
    expect(await balanceEth(owner)).toBe("1");

    const purchase = await trackReferral(secret, alice.referralCode, { eventName: "purchase", referredUserEmail: email });
    expect(purchase.status).toBe(202);
    expect((await waitForJob(secret, purchase.body.jobId)).status).toBe("SUCCEEDED");
    expect(await balanceEth(owner)).toBe("0.98");
    const again = await trackReferral(secret, alice.referralCode, { eventName: "purchase", referredUserEmail: email });
    await waitForJob(secret, again.body.jobId);
    expect(await balanceEth(owner)).toBe("0.98");

    const ev = await owner.call("GET", `/business/events/${purchase.body.eventId}`);
    expect(ev.body).toMatchObject({ status: "PROCESSED", eventName: "purchase" });
    expect(ev.body.rewards).toEqual([expect.objectContaining({ kind: "REFERRAL", amountEth: "0.02", status: "PAID" })]);
    const later = await owner.call("GET", `/business/events/${again.body.eventId}`);
    expect(later.body).toMatchObject({ status: "PROCESSED", reason: "REFERRAL_ALREADY_SETTLED", rewards: [] });
    const stats = await owner.call("GET", "/business/referrals/stats?environment=TEST");
    expect(stats.body).toMatchObject({ total: 1, byStatus: { REWARDED: 1 }, conversionRate: 1, ethRewarded: "0.02" });
    expect(stats.body.topReferrers[0]).toMatchObject({ participantId: alice.participantId, referrals: 1, conversions: 1, ethRewarded: "0.02" });
  });

  it("caps reduce amounts with a recorded reason; an unfunded reward is REFUSED with INSUFFICIENT_POOL", async () => {
    const { owner, secret } = await rewardsBusiness({
      referralRewardEth: "0.5",
      bonusEth: "0.3",
      fundEth: "0.6",
      spend: { maxReferralEthPerEvent: "0.4", maxBonusEthPerEvent: "0.1", maxEthPerDayPerUser: "0.7" },
    });
    const alice = await participant(secret);
    const first = await trackReferral(secret, alice.referralCode);
    expect(first.body.rewards.map((x: any) => [x.kind, x.requestedEth, x.amountEth, x.status, x.reason])).toEqual([
      ["REFERRAL", "0.5", "0.4", "PAID", "PER_EVENT_CAP"],
      ["BONUS", "0.3", "0.1", "PAID", "PER_EVENT_CAP"],
    ]);
    // 0.1 left in the pool; alice's daily room is 0.3 → capped to 0.3, then unfundable.
    const second = await trackReferral(secret, alice.referralCode);
    expect(second.body.rewards[0]).toMatchObject({ kind: "REFERRAL", amountEth: "0", status: "REFUSED", reason: "PER_EVENT_CAP,DAILY_CAP,INSUFFICIENT_POOL" });
    expect(second.body.rewards[1]).toMatchObject({ kind: "BONUS", amountEth: "0.1", status: "PAID" });
    expect(await balanceEth(owner)).toBe("0");
    const refused = await owner.call("GET", "/business/rewards?environment=TEST&status=REFUSED");
    expect(refused.body.data).toHaveLength(1);
  });

});

describe("TIERED strategy", () => {
  it("the referrer's tier (by qualified referrals) sets the amounts; categorization places participants", async () => {
    const { owner, secret } = await rewardsBusiness({ referralRewardEth: "0.001", fundEth: "1", general: { rewardStrategy: "TIERED" } });
    const bronze = await owner.call("POST", "/business/config/tiers", { name: "Bronze", minReferrals: 1, referralRewardEth: "0.01" });
    const silver = await owner.call("POST", "/business/config/tiers", { name: "Silver", minReferrals: 2, referralRewardEth: "0.02", bonusEth: "0.005" });
    await owner.call("POST", "/business/config/tiers", { name: "Gold", minReferrals: 4, referralRewardEth: "0.05" });
    const alice = await participant(secret);
    const first = await trackReferral(secret, alice.referralCode);
    const second = await trackReferral(secret, alice.referralCode);
    expect(first.body.rewards.map((r: any) => [r.kind, r.amountEth])).toEqual([["REFERRAL", "0.01"]]);
    expect(second.body.rewards.map((r: any) => [r.kind, r.amountEth])).toEqual([
      ["REFERRAL", "0.02"],
      ["BONUS", "0.005"],
    ]);
    const bob = await participant(secret);
    await trackReferral(secret, bob.referralCode);
    const cat = await owner.call("GET", "/business/config/tier-categorization?environment=TEST");
    expect(cat.status).toBe(200);
    // alice (2) in Silver, bob (1) in Bronze, the 3 referred users and no-one else below every tier.
    expect(cat.body.tiers.map((t: any) => [t.name, t.participantCount])).toEqual([
      ["Bronze", 1],
      ["Silver", 1],
      ["Gold", 0],
    ]);
    expect(cat.body.untiered.participantCount).toBe(3);
    expect(cat.body.closestToNext[0]).toMatchObject({ participantId: bob.participantId, currentTierId: bronze.body.tierId, nextTierId: silver.body.tierId, referralsToNext: 1 });
  });
});

describe("low pool", () => {
  it("one LOW_POOL alert per crossing plus a REFILL_REQUEST with auto-refill; funding re-arms it", async () => {
    const { owner, secret } = await rewardsBusiness({
      referralRewardEth: "0.1",
      fundEth: "0.5",
      spend: { lowPoolAlertEth: "0.25", autoRefillEnabled: true, autoRefillAmountEth: "2" },
    });
    for (let i = 0; i < 4; i++) await trackReferral(secret, (await participant(secret)).referralCode); // 0.4, 0.3, 0.2 (cross), 0.1
    const alerts = await owner.call("GET", "/business/alerts?environment=TEST");
    expect(alerts.status).toBe(200);
    expect(alerts.body.data.map((a: any) => a.kind).sort()).toEqual(["LOW_POOL", "REFILL_REQUEST"]);
    const refill = alerts.body.data.find((a: any) => a.kind === "REFILL_REQUEST");
    expect(refill).toMatchObject({ amountEth: "2", thresholdEth: "0.25", balanceEth: "0.2", acknowledgedAt: null });
    const ack = await owner.call("POST", `/business/alerts/${refill.alertId}/acknowledge`, {});
    expect(ack.body.acknowledgedAt).toBeTruthy();
    expect((await owner.call("GET", "/business/alerts?environment=TEST&unacknowledged=true")).body.data).toHaveLength(1);
    expect((await (await signUp()).call("POST", `/business/alerts/${refill.alertId}/acknowledge`, {})).status).toBe(404);

    await fundTestPool(owner, "1"); // 1.1: above again
    for (let i = 0; i < 9; i++) await trackReferral(secret, (await participant(secret)).referralCode); // down to 0.2
    const after = await owner.call("GET", "/business/alerts?environment=TEST&kind=LOW_POOL");
    expect(after.body.data).toHaveLength(2);
  });
});

describe("POST /business/rewards (manual)", () => {
  it("owner grants by code, email or id; member is refused; refusals are recorded and answered 422", async () => {
    const { owner, secret } = await rewardsBusiness({ fundEth: "0.3", spend: { maxEthPerDayPerUser: "0.25" } });
    const email = uniqueEmail("carol");
    const carol = await participant(secret, { email });
    const byCode = await owner.call("POST", "/business/rewards", { recipient: carol.referralCode, amountEth: "0.1", reason: "Thanks!", environment: "TEST" });
    expect(byCode.status, JSON.stringify(byCode.body)).toBe(200);
    expect(byCode.body).toMatchObject({ kind: "MANUAL", status: "PAID", amountEth: "0.1", note: "Thanks!", participantId: carol.participantId, balanceEth: "0.2" });
    const byEmail = await owner.call("POST", "/business/rewards", { recipient: email.toUpperCase(), amountEth: "0.2", reason: "Capped", environment: "TEST" });
    expect(byEmail.body).toMatchObject({ status: "PAID", amountEth: "0.15", requestedEth: "0.2", reason: "DAILY_CAP", balanceEth: "0.05" });
    const capped = await owner.call("POST", "/business/rewards", { recipient: carol.participantId, amountEth: "0.01", reason: "More", environment: "TEST" });
    expect(capped.status).toBe(422);
    expect(capped.body.error.code).toBe("DAILY_CAP_REACHED");
    expect(capped.body.error.details).toMatchObject({ status: "REFUSED", reason: "DAILY_CAP" });

    const dave = await participant(secret);
    const broke = await owner.call("POST", "/business/rewards", { recipient: dave.referralCode, amountEth: "0.06", reason: "Too much", environment: "TEST" });
    expect(broke.status).toBe(422);
    expect(broke.body.error.code).toBe("INSUFFICIENT_POOL");
    const recorded = await owner.call("GET", `/business/rewards/${broke.body.error.details.rewardId}`);
    expect(recorded.body).toMatchObject({ status: "REFUSED", reason: "INSUFFICIENT_POOL", amountEth: "0", requestedEth: "0.06" });

    const member = await addMember(owner);
    const denied = await member.call("POST", "/business/rewards", { recipient: dave.referralCode, amountEth: "0.01", reason: "x", environment: "TEST" });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("NOT_OWNER");
    expect(await balanceEth(owner)).toBe("0.05");
  });

  it("bad input: unknown recipient 404, wrong environment 404, bad amounts 400; nothing written", async () => {
    const { owner, secret } = await rewardsBusiness({ fundEth: "1" });
    const p = await participant(secret);
    const other = await signUp();
    const cases: Array<[unknown, number]> = [
      [{ recipient: "nobody", amountEth: "0.1", reason: "x", environment: "TEST" }, 404],
      [{ recipient: p.referralCode, amountEth: "0.1", reason: "x" }, 404], // LIVE by default: p is TEST
      [{ recipient: p.referralCode, amountEth: "-0.1", reason: "x", environment: "TEST" }, 400],
      [{ recipient: p.referralCode, amountEth: "0", reason: "x", environment: "TEST" }, 400],
      [{ recipient: p.referralCode, amountEth: "0.1234567890123456789", reason: "x", environment: "TEST" }, 400],
      [{ recipient: p.referralCode, amountEth: "0.1", environment: "TEST" }, 400],
    ];
    for (const [body, status] of cases) {
      const r = await owner.call("POST", "/business/rewards", body);
      expect(r.status, JSON.stringify(body)).toBe(status);
    }
    const foreign = await other.call("POST", "/business/rewards", { recipient: p.participantId, amountEth: "0.1", reason: "x", environment: "TEST" });
    expect(foreign.status).toBe(404);
    expect((await owner.call("GET", "/business/rewards?environment=TEST")).body.data).toEqual([]);
    expect(await balanceEth(owner)).toBe("1");
    expect((await sdk(secret, "GET", "/sdk/referrals")).status).toBe(200);
  });
});
