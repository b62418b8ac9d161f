// Analytics and referral stats against the real database, with fixtures written directly.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { referralStats } from "./referral-stats";
import { getAnalytics } from "./service";
import { participantTotals } from "../payouts/totals";

const hex = () => randomBytes(5).toString("hex");

async function seed() {
  const b = await db.business.create({ data: { name: "Stats Co", ownerId: `owner-${hex()}` } });
  const mk = () => db.participant.create({ data: { businessId: b.id, environment: "TEST", referralCode: `C${hex()}`, email: `${hex()}@example.com` } });
  const alice = await mk();
  const day1 = new Date("2025-03-01T10:00:00Z");
  const day2 = new Date("2025-03-02T23:59:59Z");
  const r1 = await db.referral.create({ data: { businessId: b.id, environment: "TEST", referrerId: alice.id, referredId: (await mk()).id, campaign: "spring", status: "REWARDED", createdAt: day1, qualifiedAt: day2 } });
  await db.referral.create({ data: { businessId: b.id, environment: "TEST", referrerId: alice.id, referredId: (await mk()).id, status: "REJECTED", reason: "SELF_REFERRAL", createdAt: day2 } });
  await db.trackedEvent.createMany({
    data: [
      { businessId: b.id, environment: "TEST", eventName: "signup", campaign: "spring", createdAt: day1 },
      { businessId: b.id, environment: "TEST", eventName: "purchase", campaign: "spring", createdAt: day2 },
      { businessId: b.id, environment: "TEST", eventName: "purchase", createdAt: day2 },
      { businessId: b.id, environment: "LIVE", eventName: "purchase", createdAt: day2 },
    ],
  });
  await db.reward.create({ data: { businessId: b.id, environment: "TEST", participantId: alice.id, referralId: r1.id, kind: "REFERRAL", requestedWei: "1000", amountWei: "1000", status: "PAID", paidAt: day2 } });
  return { businessId: b.id, alice };
}

describe("analytics", () => {
  it("buckets by UTC day and filters by campaign", async () => {
    const { businessId, alice } = await seed();
    const a = await getAnalytics(businessId, { from: "2025-03-01", to: "2025-03-03", environment: "TEST" });
    expect(a.days.map((d) => [d.date, d.events, d.referrals, d.conversions, d.ethRewarded])).toEqual([
      ["2025-03-01", 1, 1, 0, "0"],
      ["2025-03-02", 2, 1, 1, "0.000000000000001"],
      ["2025-03-03", 0, 0, 0, "0"],
    ]);
    expect(a.totals).toMatchObject({ events: 3, referrals: 2, conversions: 1, rewardsPaid: 1, conversionRate: 0.5 });
    expect(a.topReferrers).toEqual([expect.objectContaining({ participantId: alice.id, referrals: 2, conversions: 1, ethRewarded: "0.000000000000001" })]);
    const spring = await getAnalytics(businessId, { from: "2025-03-01", to: "2025-03-03", environment: "TEST", campaign: "spring" });
    expect(spring.totals).toMatchObject({ events: 2, referrals: 1, conversions: 1, rewardsPaid: 1 });
  });

  it("closed days are counted once and cached; today is counted live", async () => {
    const { businessId } = await seed();
    const today = new Date().toISOString().slice(0, 10);
    const first = await getAnalytics(businessId, { from: "2025-03-01", to: "2025-03-02", environment: "TEST" });
    expect(first.totals.events).toBe(3);
    expect(await db.analyticsEventDay.count({ where: { businessId, campaignKey: "" } })).toBe(2);
    // A closed day never changes (events are recorded at arrival): the cache answers.
    await db.trackedEvent.create({ data: { businessId, environment: "TEST", eventName: "late", createdAt: new Date("2025-03-01T12:00:00Z") } });
    expect((await getAnalytics(businessId, { from: "2025-03-01", to: "2025-03-02", environment: "TEST" })).totals.events).toBe(3);
    await db.trackedEvent.create({ data: { businessId, environment: "TEST", eventName: "now" } });
    const live = await getAnalytics(businessId, { from: today, to: today, environment: "TEST" });
    expect(live.totals.events).toBe(1);
    await db.trackedEvent.create({ data: { businessId, environment: "TEST", eventName: "now" } });
    expect((await getAnalytics(businessId, { from: today, to: today, environment: "TEST" })).totals.events).toBe(2);
  });

  it("what the cache keeps is bounded by the data: nothing for days before the first event, nothing for a campaign without events", async () => {
    const { businessId } = await seed();
    const long = await getAnalytics(businessId, { from: "2024-03-03", to: "2025-03-02", environment: "TEST" });
    expect(long.totals.events).toBe(3);
    expect(long.days).toHaveLength(365);
    // The seeded events are of 2025-03-01 and 02: only those two days are kept.
    expect(await db.analyticsEventDay.count({ where: { businessId, campaignKey: "" } })).toBe(2);
    for (const campaign of ["made-up-1", "made-up-2"]) {
      const none = await getAnalytics(businessId, { from: "2025-03-01", to: "2025-03-02", environment: "TEST", campaign });
      expect(none.totals.events).toBe(0);
    }
    expect(await db.analyticsEventDay.count({ where: { businessId, campaignKey: { not: "" } } })).toBe(0);
    await getAnalytics(businessId, { from: "2025-03-01", to: "2025-03-02", environment: "TEST", campaign: "spring" });
    expect(await db.analyticsEventDay.count({ where: { businessId, campaignKey: "spring" } })).toBe(2);
  });

  it("referral stats count commissions in what was rewarded, so what was earned is the participants' earnedEth (a refunded commission leaves 0, not less)", async () => {
    const { businessId, alice } = await seed();
    // A commission of 2000 wei, refunded whole.
    await db.reward.create({ data: { businessId, environment: "TEST", participantId: alice.id, kind: "COMMISSION", requestedWei: "2000", amountWei: "2000", reversedWei: "2000", status: "PAID", paidAt: new Date() } });
    const s = await referralStats(businessId, "TEST");
    expect(s).toMatchObject({ ethRewarded: "0.000000000000003", ethReversed: "0.000000000000002", ethEarned: "0.000000000000001", ethRewardedByKind: { COMMISSION: "0.000000000000002" } });
    const totals = await participantTotals(businessId, [alice.id]);
    expect(totals.get(alice.id)?.earnedEth).toBe(s.ethEarned);
  });

  it("referral stats by status and reason", async () => {
    const { businessId } = await seed();
    const s = await referralStats(businessId, "TEST");
    expect(s).toMatchObject({ total: 2, byStatus: { REWARDED: 1, REJECTED: 1 }, conversionRate: 0.5, ethRewarded: "0.000000000000001", rejectedReferralsByReason: { SELF_REFERRAL: 1 } });
  });
});
