// Configuration, tiers and referral settings over real HTTP: validation, ownership, roles.
import { describe, expect, it } from "vitest";
import { signUp } from "../support/http";
import { addMember } from "./rewards-helpers";

describe("PATCH /business/config/general and /spend", () => {
  it("updates general fields (reward fields: owner or admin) and returns the whole config", async () => {
    const owner = await signUp({ businessName: "Before" });
    const member = await addMember(owner);
    const denied = await member.call("PATCH", "/business/config/general", { referralRewardEth: "0.4" });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("NOT_OWNER");
    const admin = await addMember(owner, "ADMIN");
    const r = await admin.call("PATCH", "/business/config/general", {
      businessName: "After",
      website: "https://after.example.com",
      rewardStrategy: "TIERED",
      referralRewardEth: "0.05",
      bonusEth: "0.000000000000000001",
      eventProcessing: "ASYNC",
      qualifyingEvents: ["purchase", "purchase", "subscribe"],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.general).toMatchObject({
      businessName: "After",
      website: "https://after.example.com",
      rewardStrategy: "TIERED",
      referralRewardEth: "0.05",
      bonusEth: "0.000000000000000001",
      eventProcessing: "ASYNC",
      qualifyingEvents: ["purchase", "subscribe"],
    });
    expect((await owner.call("GET", "/business/config")).body.general.businessName).toBe("After");
  });

  it("spend is owner-only; caps take null for no cap", async () => {
    const owner = await signUp();
    const member = await addMember(owner);
    const body = { maxEthPerDayPerUser: "1", maxReferralEthPerEvent: "0.5", maxBonusEthPerEvent: null, lowPoolAlertEth: "2", autoRefillEnabled: true, autoRefillAmountEth: "10" };
    const denied = await member.call("PATCH", "/business/config/spend", body);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("NOT_OWNER");
    const r = await owner.call("PATCH", "/business/config/spend", body);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.spend).toMatchObject(body);
    const cleared = await owner.call("PATCH", "/business/config/spend", { maxEthPerDayPerUser: null });
    expect(cleared.body.spend.maxEthPerDayPerUser).toBeNull();
    expect(cleared.body.spend.maxReferralEthPerEvent).toBe("0.5");
  });

  it("refuses negative, over-precise or malformed ETH and unknown fields, writing nothing", async () => {
    const owner = await signUp();
    for (const bad of [
      { referralRewardEth: "-1" },
      { referralRewardEth: "0.0000000000000000001" },
      { bonusEth: "1e3" },
      { bonusEth: 1 },
      { rewardStrategy: "RANDOM" },
      { qualifyingEvents: "purchase" },
      { nope: true },
    ]) {
      const r = await owner.call("PATCH", "/business/config/general", bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
    for (const bad of [{ maxEthPerDayPerUser: "-0.1" }, { lowPoolAlertEth: "1.1234567890123456789" }, { autoRefillEnabled: "yes" }]) {
      const r = await owner.call("PATCH", "/business/config/spend", bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
    }
    const c = await owner.call("GET", "/business/config");
    expect(c.body.general).toMatchObject({ referralRewardEth: "0", bonusEth: "0", rewardStrategy: "FIXED" });
    expect(c.body.spend).toMatchObject({ maxEthPerDayPerUser: null, lowPoolAlertEth: "0", autoRefillEnabled: false });
  });
});

describe("tiers", () => {
  it("create, list (sorted, with implied upper bounds), update, delete; overlapping thresholds refused", async () => {
    const owner = await signUp();
    const gold = await owner.call("POST", "/business/config/tiers", { name: "Gold", minReferrals: 10, referralRewardEth: "0.1", bonusEth: "0.01" });
    expect(gold.status, JSON.stringify(gold.body)).toBe(200);
    expect(gold.body).toMatchObject({ name: "Gold", minReferrals: 10, referralRewardEth: "0.1", bonusEth: "0.01", maxReferrals: null });
    const bronze = await owner.call("POST", "/business/config/tiers", { name: "Bronze", minReferrals: 1, referralRewardEth: "0.01" });
    expect(bronze.body.bonusEth).toBe("0");
    const clash = await owner.call("POST", "/business/config/tiers", { name: "Also ten", minReferrals: 10, referralRewardEth: "1" });
    expect(clash.status).toBe(422);
    expect(clash.body.error.code).toBe("TIER_OVERLAP");

    const list = await owner.call("GET", "/business/config/tiers");
    expect(list.body.data.map((t: any) => [t.name, t.minReferrals, t.maxReferrals])).toEqual([
      ["Bronze", 1, 9],
      ["Gold", 10, null],
    ]);
    const moveClash = await owner.call("PATCH", `/business/config/tiers/${bronze.body.tierId}`, { minReferrals: 10 });
    expect(moveClash.status).toBe(422);
    const upd = await owner.call("PATCH", `/business/config/tiers/${bronze.body.tierId}`, { name: "Silver", minReferrals: 5, referralRewardEth: "0.02" });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ tierId: bronze.body.tierId, name: "Silver", minReferrals: 5, maxReferrals: 9, referralRewardEth: "0.02" });

    const bad = await owner.call("POST", "/business/config/tiers", { name: "Neg", minReferrals: -1, referralRewardEth: "0.1" });
    expect(bad.status).toBe(400);
    const badEth = await owner.call("POST", "/business/config/tiers", { name: "X", minReferrals: 3, referralRewardEth: "-0.1" });
    expect(badEth.status).toBe(400);

    const del = await owner.call("DELETE", `/business/config/tiers/${gold.body.tierId}`);
    expect(del.status).toBe(200);
    expect((await owner.call("GET", "/business/config/tiers")).body.data).toHaveLength(1);
    expect((await owner.call("DELETE", `/business/config/tiers/${gold.body.tierId}`)).status).toBe(404);
  });

  it("another business's tier id is 404, never its data", async () => {
    const a = await signUp();
    const b = await signUp();
    const t = await a.call("POST", "/business/config/tiers", { name: "Mine", minReferrals: 1, referralRewardEth: "0.1" });
    for (const [m, body] of [["PATCH", { name: "Stolen" }], ["DELETE", undefined]] as const) {
      const r = await b.call(m, `/business/config/tiers/${t.body.tierId}`, body);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("NOT_FOUND");
    }
    expect((await a.call("GET", "/business/config/tiers")).body.data[0].name).toBe("Mine");
    expect((await a.call("PATCH", "/business/config/tiers/does-not-exist", { name: "x" })).status).toBe(404);
  });

  it("tier categorization counts participants per tier", async () => {
    const owner = await signUp();
    await owner.call("POST", "/business/config/tiers", { name: "Starter", minReferrals: 0, referralRewardEth: "0.001" });
    await owner.call("POST", "/business/config/tiers", { name: "Pro", minReferrals: 3, referralRewardEth: "0.01" });
    const r = await owner.call("GET", "/business/config/tier-categorization?environment=TEST");
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ environment: "TEST", totalParticipants: 0, untiered: { participantCount: 0 }, closestToNext: [] });
    expect(r.body.tiers.map((t: any) => [t.name, t.participantCount])).toEqual([
      ["Starter", 0],
      ["Pro", 0],
    ]);
    expect((await owner.call("GET", "/business/config/tier-categorization?environment=DEV")).status).toBe(400);
  });
});

describe("referral settings", () => {
  it("defaults, partial update, normalised domains, validation", async () => {
    const owner = await signUp();
    const d = await owner.call("GET", "/business/referrals/settings");
    expect(d.body).toEqual({
      blockSelfReferral: true,
      oneReferralPerReferredUser: true,
      maxReferralsPerReferrerPerDay: null,
      blockedEmailDomains: [],
      blockDisposableEmails: false,
      holdForReview: false,
      attributionWindowDays: null,
      signals: { SAME_VISITOR: "OFF", CLICK_VELOCITY: "OFF", WALLET_SHARED: "OFF", NO_CLICK: "OFF" },
      clickVelocityPerHour: 20,
    });
    const u = await owner.call("PATCH", "/business/referrals/settings", {
      blockedEmailDomains: ["@Spam.Example", "spam.example", "junk.test"],
      blockDisposableEmails: true,
      maxReferralsPerReferrerPerDay: 5,
      attributionWindowDays: 30,
    });
    expect(u.status, JSON.stringify(u.body)).toBe(200);
    expect(u.body).toMatchObject({ blockedEmailDomains: ["spam.example", "junk.test"], blockDisposableEmails: true, maxReferralsPerReferrerPerDay: 5, attributionWindowDays: 30, holdForReview: false });
    for (const bad of [{ blockedEmailDomains: ["not a domain"] }, { maxReferralsPerReferrerPerDay: 0 }, { attributionWindowDays: 1.5 }, { holdForReview: "true" }, { other: 1 }]) {
      const r = await owner.call("PATCH", "/business/referrals/settings", bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await owner.call("GET", "/business/referrals/settings")).body.attributionWindowDays).toBe(30);
  });
});
