import { z } from "zod";
import { assetTag } from "../../shared/asset";
import { utcDay } from "../../shared/dates";
import { environment } from "../../shared/environment";

export const analyticsInput = z.strictObject({
  /** First UTC day, inclusive (default: 29 days before `to`). */
  from: utcDay.optional(),
  /** Last UTC day, inclusive (default: today). */
  to: utcDay.optional(),
  environment: environment.default("LIVE"),
  /** Only events / referrals / rewards of this campaign (metadata.campaign). */
  campaign: z.string().trim().min(1).max(100).optional(),
});

const counts = {
  events: z.number().int(),
  referrals: z.number().int(),
  /** Referrals that qualified (first qualifying event) that day, whether or not funds allowed a payout. */
  conversions: z.number().int(),
  /** Rewards earned (PAID: the pool paid them) that day, paid out or not. */
  rewardsPaid: z.number().int(),
  /** Their amounts, reversed ones included (docs/api.md, "Totals: one meaning each"). */
  ethRewarded: z.string(),
  /** ethRewarded less what reversals took back of those rewards. */
  ethEarned: z.string(),
  /** Of the referrals created in the bucket, the share that has converted since (0..1). */
  conversionRate: z.number(),
};

const topReferrer = z.object({
  participantId: z.string(),
  referralCode: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  referrals: z.number().int(),
  conversions: z.number().int(),
  /** Every kind of reward they earned (commissions included), reversed ones included. */
  ethRewarded: z.string(),
  /** ethRewarded less what reversals took back: what they keep. */
  ethEarned: z.string(),
});

export const analyticsOutput = z.object({
  environment,
  /** The asset the amounts are in (the environment's). */
  asset: assetTag,
  from: z.string(),
  to: z.string(),
  campaign: z.string().nullable(),
  totals: z.object(counts),
  days: z.array(z.object({ date: z.string(), ...counts })),
  topReferrers: z.array(topReferrer),
});
export type AnalyticsOutput = z.infer<typeof analyticsOutput>;

export const referralStatsInput = z.strictObject({ environment: environment.default("LIVE") });

export const referralStatsOutput = z.object({
  environment,
  /** The asset the amounts are in (the environment's). */
  asset: assetTag,
  total: z.number().int(),
  byStatus: z.object({ PENDING: z.number().int(), QUALIFIED: z.number().int(), REWARDED: z.number().int(), FLAGGED: z.number().int(), REJECTED: z.number().int() }),
  /** (QUALIFIED + REWARDED) / total, 0 when there are none. */
  conversionRate: z.number(),
  /** Every PAID reward of the environment (referral, bonus, manual and commission), reversed ones included. */
  ethRewarded: z.string(),
  /** Of those, taken back by reversals (refunds, chargebacks, staff). */
  ethReversed: z.string(),
  /** ethRewarded − ethReversed: what participants earned, the sum of their `earnedEth`. */
  ethEarned: z.string(),
  ethRewardedByKind: z.object({ REFERRAL: z.string(), BONUS: z.string(), MANUAL: z.string(), COMMISSION: z.string() }),
  /** Rejected referrals by reason (SELF_REFERRAL, DISPOSABLE_EMAIL, …). */
  rejectedReferralsByReason: z.record(z.string(), z.number().int()),
  topReferrers: z.array(topReferrer),
});
export type ReferralStatsOutput = z.infer<typeof referralStatsOutput>;

export const commissionAnalyticsInput = z.strictObject({
  environment: environment.default("LIVE"),
  /** First UTC day, inclusive. Without `from`/`to`: the 30 days ending today, or all time for one referrer. */
  from: utcDay.optional(),
  /** Last UTC day, inclusive. */
  to: utcDay.optional(),
  /** One referrer: the revenue of the people they referred and the commissions they earned (their environment). */
  participantId: z.string().min(1).max(64).optional(),
});
export type CommissionAnalyticsInput = z.infer<typeof commissionAnalyticsInput>;

export const commissionAnalyticsOutput = z.object({
  environment,
  /** The asset the amounts are in (the environment's). */
  asset: assetTag,
  /** The range counted (UTC days, inclusive); both null: all time. */
  from: z.string().nullable(),
  to: z.string().nullable(),
  participantId: z.string().nullable(),
  /**
   * Revenue attributed to referrals: the amounts of processed events of referrals that are not
   * rejected, less what was refunded of them, summed per currency, by the event's arrival.
   */
  revenue: z.array(z.object({ currency: z.string(), amount: z.string(), events: z.number().int() })),
  /** Commissions granted: earned rewards (PAID, reversed ones included) created by a commission rule, by the day earned. */
  commissions: z.object({
    count: z.number().int(),
    eth: z.string(),
    byRule: z.array(z.object({ ruleId: z.string(), name: z.string().nullable(), count: z.number().int(), eth: z.string() })),
  }),
});
export type CommissionAnalyticsOutput = z.infer<typeof commissionAnalyticsOutput>;
