// Tier thresholds are distinct per business: the pre-check answers TIER_OVERLAP, and when two
// creates race past it the unique index does, through the shared unique-violation check. A tier
// deleted meanwhile is a 404 for the delete or update that comes second.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness } from "../../../tests/support/domain";
import { createTier, deleteTier, listTiers, updateTier } from "./service";

const tier = (name: string, minReferrals: number) => ({ name, minReferrals, referralRewardEth: "0.01", bonusEth: "0" });

describe("tiers", () => {
  it("refuses a second tier at the same threshold, also when the creates race (TIER_OVERLAP, never a 500)", async () => {
    const { businessId } = await domainBusiness();
    await createTier(businessId, tier("Silver", 5));
    await expect(createTier(businessId, tier("Again", 5))).rejects.toMatchObject({ code: "TIER_OVERLAP" });

    const raced = await Promise.allSettled([createTier(businessId, tier("A", 10)), createTier(businessId, tier("B", 10))]);
    expect(raced.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = raced.find((r) => r.status === "rejected");
    expect(refused?.reason).toMatchObject({ code: "TIER_OVERLAP" });
    expect((await listTiers(businessId)).map((t) => t.minReferrals)).toEqual([5, 10]);
    expect(await db.tier.count({ where: { businessId } })).toBe(2);
  });

  it("two deletes of a tier at once, or an update racing a delete: the later is a 404, never a 500", async () => {
    const { businessId } = await domainBusiness();
    const a = await createTier(businessId, tier("Gone", 7));
    const both = await Promise.allSettled([deleteTier(businessId, a.tierId), deleteTier(businessId, a.tierId)]);
    expect(both.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(both.find((r) => r.status === "rejected")?.reason).toMatchObject({ code: "NOT_FOUND" });

    const b = await createTier(businessId, tier("Raced", 8));
    const raced = await Promise.allSettled([deleteTier(businessId, b.tierId), updateTier(businessId, { tierId: b.tierId, name: "Renamed" })]);
    for (const r of raced) if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "NOT_FOUND" });
    expect(await db.tier.count({ where: { id: b.tierId } })).toBe(0);
  });
});
