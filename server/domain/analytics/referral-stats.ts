// GET /business/referrals/stats: all-time referral totals of one environment.
import { db } from "../../db/client";
import { toBigInt, weiToEth } from "../../shared/money";
import type { Environment } from "../../shared/environment";
import type { ReferralStatsOutput } from "./schemas";
import { topReferrers } from "./service";
import { QUALIFIED_STATUSES } from "../../shared/referral-rules";

export async function referralStats(businessId: string, environment: Environment): Promise<ReferralStatsOutput> {
  const [byStatusRows, paid, reversed, rejected, top] = await Promise.all([
    db.referral.groupBy({ by: ["status"], where: { businessId, environment }, _count: { _all: true } }),
    db.reward.groupBy({ by: ["kind"], where: { businessId, environment, status: "PAID" }, _sum: { amountWei: true } }),
    // Reversed: whole rewards and the shares partial refunds took back.
    db.reward.aggregate({ where: { businessId, environment, status: "PAID" }, _sum: { reversedWei: true } }),
    db.referral.groupBy({ by: ["reason"], where: { businessId, environment, status: "REJECTED" }, _count: { _all: true } }),
    topReferrers(businessId, environment, null, null),
  ]);
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
    total,
    byStatus,
    conversionRate: total ? Math.round((QUALIFIED_STATUSES.reduce((n, s) => n + byStatus[s], 0) / total) * 10_000) / 10_000 : 0,
    ethRewarded: weiToEth(rewarded),
    ethReversed: weiToEth(toBigInt(reversed._sum.reversedWei ?? 0)),
    ethEarned: weiToEth(rewarded - toBigInt(reversed._sum.reversedWei ?? 0)),
    ethRewardedByKind: { REFERRAL: weiToEth(kinds.REFERRAL), BONUS: weiToEth(kinds.BONUS), MANUAL: weiToEth(kinds.MANUAL), COMMISSION: weiToEth(kinds.COMMISSION) },
    rejectedReferralsByReason: Object.fromEntries(rejected.map((r) => [r.reason ?? "UNSPECIFIED", r._count._all])),
    topReferrers: top,
  };
}
