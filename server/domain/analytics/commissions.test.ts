// Revenue attributed and commissions granted, against the real database with fixtures written directly.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { getCommissionAnalytics } from "./commissions";

const hex = () => randomBytes(5).toString("hex");
const day = new Date("2025-03-02T12:00:00Z");

async function seed() {
  const b = await db.business.create({ data: { name: "Revenue Co", ownerId: `owner-${hex()}` } });
  const mk = (name: string) => db.participant.create({ data: { businessId: b.id, environment: "TEST", referralCode: `C${hex()}`, email: `${hex()}@example.com`, name } });
  const [alice, bob, carol, dave] = [await mk("Alice"), await mk("Bob"), await mk("Carol"), await mk("Dave")];
  const toBob = await db.referral.create({ data: { businessId: b.id, environment: "TEST", referrerId: alice.id, referredId: bob.id, status: "REWARDED", createdAt: day, qualifiedAt: day } });
  const toCarol = await db.referral.create({ data: { businessId: b.id, environment: "TEST", referrerId: alice.id, referredId: carol.id, status: "QUALIFIED", createdAt: day, qualifiedAt: day } });
  const toDave = await db.referral.create({ data: { businessId: b.id, environment: "TEST", referrerId: carol.id, referredId: dave.id, status: "QUALIFIED", createdAt: day, qualifiedAt: day } });
  const ev = (referralId: string | null, amount: string | null, currency: string | null, extra: { status?: "PROCESSED" | "REJECTED" | "FAILED"; createdAt?: Date; environment?: "TEST" | "LIVE" } = {}) => ({
    businessId: b.id,
    environment: extra.environment ?? "TEST",
    eventName: "purchase",
    referralId,
    amount,
    currency,
    status: extra.status ?? "PROCESSED",
    createdAt: extra.createdAt ?? day,
  });
  await db.trackedEvent.createMany({
    data: [
      ev(toBob.id, "19.99", "USD"),
      ev(toBob.id, "5", "USD"),
      ev(toCarol.id, "0.5", "ETH"),
      ev(toDave.id, "1000", "JPY"),
      ev(toBob.id, null, null), // no amount: no revenue
      ev(toBob.id, "100", "USD", { status: "REJECTED" }), // refused: not revenue
      ev(toBob.id, "100", "USD", { status: "FAILED" }),
      ev(null, "50", "USD"), // not a referred user's
      ev(toBob.id, "7", "USD", { createdAt: new Date("2025-04-15T00:00:00Z") }), // outside the range
    ],
  });
  const rule = await db.commissionRule.create({ data: { businessId: b.id, environment: "TEST", name: "10% of purchases", eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "10" } });
  const reward = (participantId: string, wei: string, extra: { ruleId?: string | null; status?: "PAID" | "HELD" | "REFUSED"; kind?: "COMMISSION" | "REFERRAL"; paidAt?: Date | null } = {}) => ({
    businessId: b.id,
    environment: "TEST" as const,
    participantId,
    referralId: toBob.id,
    kind: extra.kind ?? ("COMMISSION" as const),
    requestedWei: wei,
    amountWei: wei,
    status: extra.status ?? ("PAID" as const),
    paidAt: extra.paidAt === undefined ? day : extra.paidAt,
    ruleId: extra.ruleId === undefined ? rule.id : extra.ruleId,
  });
  await db.reward.createMany({
    data: [
      reward(alice.id, "666333333333333"),
      reward(alice.id, "1666666666666666"),
      reward(carol.id, "1000"),
      reward(alice.id, "5", { status: "HELD", paidAt: null }), // not granted yet
      reward(alice.id, "9", { status: "REFUSED", paidAt: null }),
      reward(alice.id, "10000000000000000", { ruleId: null, kind: "REFERRAL" }), // the one-time reward, not a commission
    ],
  });
  return { businessId: b.id, alice, carol, rule };
}

describe("commission analytics", () => {
  it("sums referred users' event amounts per currency and rule rewards over a range", async () => {
    const { businessId, rule } = await seed();
    const a = await getCommissionAnalytics(businessId, { environment: "TEST", from: "2025-03-01", to: "2025-03-31" });
    expect(a.revenue).toEqual([
      { currency: "ETH", amount: "0.5", events: 1 },
      { currency: "JPY", amount: "1000", events: 1 },
      { currency: "USD", amount: "24.99", events: 2 },
    ]);
    expect(a.commissions).toEqual({ count: 3, eth: "0.002333000000000999", byRule: [{ ruleId: rule.id, name: "10% of purchases", count: 3, eth: "0.002333000000000999" }] });
    expect(a).toMatchObject({ environment: "TEST", from: "2025-03-01", to: "2025-03-31", participantId: null });
    const live = await getCommissionAnalytics(businessId, { environment: "LIVE", from: "2025-03-01", to: "2025-03-31" });
    expect(live.revenue).toEqual([]);
    expect(live.commissions.count).toBe(0);
  });

  it("one referrer: their referred users' revenue and their own commissions, all time by default", async () => {
    const { businessId, alice, carol } = await seed();
    const a = await getCommissionAnalytics(businessId, { environment: "LIVE", participantId: alice.id });
    expect(a).toMatchObject({ environment: "TEST", from: null, to: null, participantId: alice.id });
    expect(a.revenue).toEqual([
      { currency: "ETH", amount: "0.5", events: 1 },
      { currency: "USD", amount: "31.99", events: 3 },
    ]);
    expect(a.commissions).toMatchObject({ count: 2, eth: "0.002332999999999999" });
    const march = await getCommissionAnalytics(businessId, { environment: "TEST", participantId: alice.id, from: "2025-03-01", to: "2025-03-31" });
    expect(march.revenue.find((r) => r.currency === "USD")).toEqual({ currency: "USD", amount: "24.99", events: 2 });
    const c = await getCommissionAnalytics(businessId, { environment: "TEST", participantId: carol.id });
    expect(c.revenue).toEqual([{ currency: "JPY", amount: "1000", events: 1 }]);
    expect(c.commissions).toMatchObject({ count: 1, eth: "0.000000000000001" });
  });

  it("a deleted rule keeps its name in the figures; another business's participant is not found", async () => {
    const { businessId, alice, rule } = await seed();
    const other = await db.business.create({ data: { name: "Other", ownerId: `owner-${hex()}` } });
    await expect(getCommissionAnalytics(other.id, { environment: "TEST", participantId: alice.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await db.commissionRule.update({ where: { id: rule.id }, data: { deletedAt: new Date() } });
    const a = await getCommissionAnalytics(businessId, { environment: "TEST", participantId: alice.id });
    expect(a.commissions.byRule[0]).toMatchObject({ ruleId: rule.id, name: "10% of purchases" });
  });
});
