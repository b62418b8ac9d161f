// Reward tiers: a referrer's tier is the one with the highest minReferrals not above their count
// of qualified (or rewarded) referrals. Thresholds are unique per business, so tiers never overlap.
import { lockBusiness } from "../../db/business-lock";
import { db, type Prisma } from "../../db/client";
import { isUniqueViolation } from "../../db/unique-violation";
import { AppError, notFound } from "../../shared/errors";
import { weiToDb, weiToEth } from "../../shared/money";
import { sharedUnitsOfInput } from "../assets/read";
import type { Environment } from "../../shared/environment";
import type { TierCategorizationOutput, TierOutput } from "./schemas";
import { QUALIFIED_STATUSES, tierFor } from "../../shared/referral-rules";

const MAX_TIERS = 50;
type Row = Prisma.TierGetPayload<object>;

/** Tiers sorted by threshold, each with the upper bound implied by the next one. */
function toOutputs(rows: Row[]): TierOutput[] {
  const sorted = [...rows].sort((a, b) => a.minReferrals - b.minReferrals);
  return sorted.map((t, i) => ({
    tierId: t.id,
    name: t.name,
    minReferrals: t.minReferrals,
    maxReferrals: i + 1 < sorted.length ? sorted[i + 1].minReferrals - 1 : null,
    referralRewardEth: weiToEth(t.referralRewardWei),
    bonusEth: weiToEth(t.bonusWei),
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  }));
}

export async function listTiers(businessId: string): Promise<TierOutput[]> {
  return toOutputs(await db.tier.findMany({ where: { businessId } }));
}

const overlap = (minReferrals: number) =>
  new AppError("TIER_OVERLAP", `Another tier already starts at ${minReferrals} referrals; tier thresholds must be distinct`, { minReferrals });

export async function createTier(businessId: string, input: { name: string; minReferrals: number; referralRewardEth: string; bonusEth: string }): Promise<TierOutput> {
  // Tier amounts are business-wide: read in each environment's asset, at most the fewer decimals of the two.
  const referralRewardWei = await sharedUnitsOfInput(db, businessId, input.referralRewardEth, "referralRewardEth");
  const bonusWei = await sharedUnitsOfInput(db, businessId, input.bonusEth, "bonusEth");
  try {
    const row = await db.$transaction(async (tx) => {
      // One creation at a time per business, so that concurrent creations cannot pass the cap together.
      await lockBusiness(tx, businessId);
      const existing = await tx.tier.findMany({ where: { businessId }, select: { minReferrals: true } });
      if (existing.length >= MAX_TIERS) throw new AppError("UNPROCESSABLE", `A business can have at most ${MAX_TIERS} tiers`);
      if (existing.some((t) => t.minReferrals === input.minReferrals)) throw overlap(input.minReferrals);
      return tx.tier.create({
        data: {
          businessId,
          name: input.name,
          minReferrals: input.minReferrals,
          referralRewardWei: weiToDb(referralRewardWei),
          bonusWei: weiToDb(bonusWei),
        },
      });
    });
    return (await listTiers(businessId)).find((t) => t.tierId === row.id)!;
  } catch (e) {
    // The unique index (businessId, minReferrals) is the final guard against concurrent creates.
    if (isUniqueViolation(e)) throw overlap(input.minReferrals);
    throw e;
  }
}

async function ownedTier(businessId: string, tierId: string) {
  const t = await db.tier.findFirst({ where: { id: tierId, businessId } });
  if (!t) throw notFound("Tier");
  return t;
}

export async function updateTier(
  businessId: string,
  input: { tierId: string; name?: string; minReferrals?: number; referralRewardEth?: string; bonusEth?: string },
): Promise<TierOutput> {
  const tier = await ownedTier(businessId, input.tierId);
  const referralRewardWei = input.referralRewardEth === undefined ? undefined : await sharedUnitsOfInput(db, businessId, input.referralRewardEth, "referralRewardEth");
  const bonusWei = input.bonusEth === undefined ? undefined : await sharedUnitsOfInput(db, businessId, input.bonusEth, "bonusEth");
  if (input.minReferrals !== undefined && input.minReferrals !== tier.minReferrals) {
    const clash = await db.tier.findFirst({ where: { businessId, minReferrals: input.minReferrals, id: { not: tier.id } }, select: { id: true } });
    if (clash) throw overlap(input.minReferrals);
  }
  try {
    // Deleted meanwhile (a concurrent DELETE): 404, as if it had been gone before.
    const { count } = await db.tier.updateMany({
      where: { id: tier.id, businessId },
      data: {
        name: input.name,
        minReferrals: input.minReferrals,
        referralRewardWei: referralRewardWei === undefined ? undefined : weiToDb(referralRewardWei),
        bonusWei: bonusWei === undefined ? undefined : weiToDb(bonusWei),
      },
    });
    if (count === 0) throw notFound("Tier");
  } catch (e) {
    if (isUniqueViolation(e)) throw overlap(input.minReferrals!);
    throw e;
  }
  return (await listTiers(businessId)).find((t) => t.tierId === tier.id)!;
}

export async function deleteTier(businessId: string, tierId: string): Promise<TierOutput> {
  const all = await listTiers(businessId);
  const out = all.find((t) => t.tierId === tierId);
  if (!out) throw notFound("Tier");
  // Two deletes at once: the second finds nothing to delete, 404.
  const { count } = await db.tier.deleteMany({ where: { id: tierId, businessId } });
  if (count === 0) throw notFound("Tier");
  return { ...out, maxReferrals: null };
}

export async function tierCategorization(businessId: string, environment: Environment): Promise<TierCategorizationOutput> {
  const tiers = await listTiers(businessId);
  const totalParticipants = await db.participant.count({ where: { businessId, environment } });
  const counts = await db.referral.groupBy({
    by: ["referrerId"],
    where: { businessId, environment, status: { in: [...QUALIFIED_STATUSES] } },
    _count: { _all: true },
  });
  const tierIndexFor = (n: number) => {
    const t = tierFor(tiers, n);
    return t ? tiers.indexOf(t) : -1;
  };
  const perTier = tiers.map(() => 0);
  let untiered = 0;
  const zeroTier = tierIndexFor(0);
  // Participants with no qualified referral sit wherever 0 falls.
  const withoutReferrals = totalParticipants - counts.length;
  if (zeroTier >= 0) perTier[zeroTier] += withoutReferrals;
  else untiered += withoutReferrals;
  const candidates: Array<{ participantId: string; n: number; current: number; next: number }> = [];
  for (const c of counts) {
    const n = c._count._all;
    const idx = tierIndexFor(n);
    if (idx >= 0) perTier[idx]++;
    else untiered++;
    if (idx + 1 < tiers.length) candidates.push({ participantId: c.referrerId, n, current: idx, next: idx + 1 });
  }
  candidates.sort((a, b) => tiers[a.next].minReferrals - a.n - (tiers[b.next].minReferrals - b.n) || b.n - a.n);
  const top = candidates.slice(0, 10);
  const people = await db.participant.findMany({
    where: { id: { in: top.map((c) => c.participantId) }, businessId },
    select: { id: true, referralCode: true, email: true, name: true },
  });
  const byId = new Map(people.map((p) => [p.id, p]));
  return {
    environment,
    totalParticipants,
    untiered: { participantCount: untiered },
    tiers: tiers.map((t, i) => ({ tierId: t.tierId, name: t.name, minReferrals: t.minReferrals, maxReferrals: t.maxReferrals, participantCount: perTier[i] })),
    closestToNext: top
      .filter((c) => byId.has(c.participantId))
      .map((c) => {
        const p = byId.get(c.participantId)!;
        const next = tiers[c.next];
        return {
          participantId: p.id,
          referralCode: p.referralCode,
          email: p.email,
          name: p.name,
          qualifiedReferrals: c.n,
          currentTierId: c.current >= 0 ? tiers[c.current].tierId : null,
          nextTierId: next.tierId,
          nextTierName: next.name,
          referralsToNext: next.minReferrals - c.n,
        };
      }),
  };
}
