// GET /business/analytics over real HTTP: day buckets, totals, campaign filter, validation.
import { describe, expect, it } from "vitest";
import { signUp } from "../support/http";
import { participant, rewardsBusiness, trackReferral } from "./rewards-helpers";

const today = () => new Date().toISOString().slice(0, 10);

describe("GET /business/analytics", () => {
  it("counts events, referrals, conversions and ETH per UTC day, by environment and campaign", async () => {
    const { owner, secret } = await rewardsBusiness({ referralRewardEth: "0.01", fundEth: "1", general: { qualifyingEvents: ["purchase"] } });
    const alice = await participant(secret);
    await trackReferral(secret, alice.referralCode, { campaign: "spring" }); // converts
    await trackReferral(secret, alice.referralCode, { eventName: "signup", campaign: "spring" }); // referral only
    await trackReferral(secret, alice.referralCode, { campaign: "autumn" }); // converts

    const r = await owner.call("GET", `/business/analytics?environment=TEST&from=${today()}&to=${today()}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.days).toHaveLength(1);
    expect(r.body.totals).toEqual({ events: 3, referrals: 3, conversions: 2, rewardsPaid: 2, ethRewarded: "0.02", ethEarned: "0.02", conversionRate: 0.6667 });
    expect(r.body.days[0]).toMatchObject({ date: today(), events: 3, referrals: 3, conversions: 2 });
    expect(r.body.topReferrers[0]).toMatchObject({ participantId: alice.participantId, referrals: 3, conversions: 2, ethRewarded: "0.02" });

    const spring = await owner.call("GET", `/business/analytics?environment=TEST&from=${today()}&to=${today()}&campaign=spring`);
    expect(spring.body.totals).toEqual({ events: 2, referrals: 2, conversions: 1, rewardsPaid: 1, ethRewarded: "0.01", ethEarned: "0.01", conversionRate: 0.5 });

    // Default range: the last 30 days ending today; LIVE by default (nothing there).
    const def = await owner.call("GET", "/business/analytics");
    expect(def.body.days).toHaveLength(30);
    expect(def.body.to).toBe(today());
    expect(def.body.totals.events).toBe(0);
  });

  it("validates the range", async () => {
    const owner = await signUp();
    for (const q of ["from=2025-02-01&to=2025-01-01", "from=2020-01-01&to=2025-01-01", "from=01/02/2025", "environment=PROD", "from=2025-02-30x"]) {
      const r = await owner.call("GET", `/business/analytics?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
  });
});
