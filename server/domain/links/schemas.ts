// GET /business/analytics/funnel: from link clicks to paid-out rewards, grouped.
import { z } from "zod";
import { assetTag } from "../../shared/asset";
import { utcDay } from "../../shared/dates";
import { environment } from "../../shared/environment";

const FUNNEL_GROUPS = ["referrer", "campaign", "utm_source", "day"] as const;

export const funnelInput = z.strictObject({
  environment: environment.default("LIVE"),
  /** First UTC day, inclusive (default: 29 days before `to`). */
  from: utcDay.optional(),
  /** Last UTC day, inclusive (default: today). */
  to: utcDay.optional(),
  groupBy: z.enum(FUNNEL_GROUPS).default("referrer"),
});
export type FunnelInput = z.infer<typeof funnelInput>;

export const FRAUD_SIGNALS = ["SAME_VISITOR", "CLICK_VELOCITY", "WALLET_SHARED", "NO_CLICK"] as const;

const funnelRow = z.object({
  /** The referrer's referral code, the campaign, the utm_source or the UTC day; null: none. */
  key: z.string().nullable(),
  /** groupBy=referrer: the referrer's participant id. */
  participantId: z.string().optional(),
  /** groupBy=referrer: the referrer's name, when the business gave one. */
  name: z.string().nullable().optional(),
  /** Counted clicks (one per visitor, link and hour; bots and HEAD requests never count). */
  clicks: z.number().int(),
  /** Distinct visitors per UTC day, summed over the days. */
  uniqueClicks: z.number().int(),
  /** Referrals made in the range (cohort of the funnel). */
  referrals: z.number().int(),
  /** Of those, qualified (a qualifying event arrived), rewarded or not. */
  qualified: z.number().int(),
  /** Of those, rewarded (a reward was paid from the pool). */
  rewarded: z.number().int(),
  /** ETH granted to those referrals (less reversed rewards). */
  rewardsEth: z.string(),
  /** Of that, ETH that reached a wallet (confirmed payouts). */
  paidOutEth: z.string(),
});

export const funnelOutput = z.object({
  /** The asset the amounts are in (the environment's). */
  asset: assetTag,
  data: z.array(funnelRow),
  /** True when there were more groups than the FUNNEL_MAX_GROUPS listed (the ones with most clicks, then referrals). */
  truncated: z.boolean(),
  /** Referrals of the range that a fraud signal flagged or rejected, per signal. */
  signals: z.object(Object.fromEntries(FRAUD_SIGNALS.map((s) => [s, z.number().int()])) as Record<(typeof FRAUD_SIGNALS)[number], z.ZodNumber>),
});
export type FunnelOutput = z.infer<typeof funnelOutput>;

export const participantClicksOutput = z.object({
  /** Counted clicks on the participant's link, all time (rolled-up days included). */
  clicks: z.number().int(),
  uniqueClicks: z.number().int(),
  /** Counted clicks of the last 30 days, per UTC day. */
  days: z.array(z.object({ date: z.string(), clicks: z.number().int() })),
});
export type ParticipantClicksOutput = z.infer<typeof participantClicksOutput>;
