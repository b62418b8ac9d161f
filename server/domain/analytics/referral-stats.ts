// GET /business/referrals/stats: all-time referral totals of one environment.
import { db } from "../../db/client";
import { toBigInt } from "../../shared/money";
import { amountOf, assetTagOf } from "../../shared/asset";
import { readAsset } from "../assets/read";
import type { Environment } from "../../shared/environment";
import type { ReferralStatsOutput } from "./schemas";
import { topReferrers } from "./service";
import { QUALIFIED_STATUSES } from "../../shared/referral-rules";

export async function referralStats(businessId: string, environment: Environment): Promise<ReferralStatsOutput> {
  const [byStatusRows, paid, reversed, rejected, top, asset] = await Promise.all([
    db.referral.groupBy({ by: ["status"], where: { businessId, environment }, _count: { _all: true } }),
    db.reward.groupBy({ by: ["kind"], where: { businessId, environment, status: "PAID" }, _sum: { amountWei: true } }),
    // Reversed: whole rewards and the shares partial refunds took back.
    db.reward.aggregate({ where: { businessId, environment, status: "PAID" }, _sum: { reversedWei: true } }),
    db.referral.groupBy({ by: ["reason"], where: { businessId, environment, status: "REJECTED" }, _count: { _all: true } }),
    topReferrers(businessId, environment, null, null),
    readAsset(db, businessId, environment),
  ]);
  const amount = (units: bigint) => amountOf(units, asset);
  const byStatus = { PENDING: 0, QUALIFIED: 0, REWARDED: 0, FLAGGED: 0, REJECTED: 0 };
  for (const r of byStatusRows) byStatus[r.status] = r._count._all;
  const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
  const kinds = { REFERRAL: 0n, BONUS: 0n, MANUAL: 0n, COMMISSION: 0n };
  for (const p of paid) kinds[p.kind] = toBigInt(p._sum.amountWei ?? 0);
  // Every PAID reward, commissions included: ethReversed counts their reversals, and ethEarned is
  // the sum of the participants' earnedEth (payouts/totals.ts), which counts every kind.
  const rewarded = kinds.REFERRAL + kinds.BONUS + kinds.MANUAL + kinds.COMMISSION;
  return {
    environment,
    asset: assetTagOf(asset),
    total,
    byStatus,
    conversionRate: total ? Math.round((QUALIFIED_STATUSES.reduce((n, s) => n + byStatus[s], 0) / total) * 10_000) / 10_000 : 0,
    ethRewarded: amount(rewarded),
    ethReversed: amount(toBigInt(reversed._sum.reversedWei ?? 0)),
    ethEarned: amount(rewarded - toBigInt(reversed._sum.reversedWei ?? 0)),
    ethRewardedByKind: { REFERRAL: amount(kinds.REFERRAL), BONUS: amount(kinds.BONUS), MANUAL: amount(kinds.MANUAL), COMMISSION: amount(kinds.COMMISSION) },
    rejectedReferralsByReason: Object.fromEntries(rejected.map((r) => [r.reason ?? "UNSPECIFIED", r._count._all])),
    topReferrers: top,
  };
}
