import { z } from "zod";
import { ethAmount } from "../../shared/money";
import { environment } from "../api-keys/schemas";

const generalConfigOutput = z.object({
  businessName: z.string(),
  website: z.string().nullable(),
  rewardStrategy: z.enum(["FIXED", "TIERED"]),
  referralRewardEth: z.string(),
  bonusEth: z.string(),
  eventProcessing: z.enum(["AUTO", "SYNC", "ASYNC"]),
  qualifyingEvents: z.array(z.string()),
  /** Event names that reverse the referral's rewards when tracked (e.g. "refund"); also under spend. */
  reversalEvents: z.array(z.string()),
  /** The portal shows the month's top referrers (handles or masked names); per environment. */
  leaderboardEnabled: z.boolean(),
});

const spendConfigOutput = z.object({
  /** null = no cap */
  maxEthPerDayPerUser: z.string().nullable(),
  maxReferralEthPerEvent: z.string().nullable(),
  maxBonusEthPerEvent: z.string().nullable(),
  lowPoolAlertEth: z.string(),
  autoRefillEnabled: z.boolean(),
  autoRefillAmountEth: z.string(),
  /** Days a granted reward stays ON_HOLD before it becomes PAYABLE (0–90). */
  payoutHoldDays: z.number().int(),
  /** A participant's payable rewards are paid out once their sum reaches this. */
  minPayoutEth: z.string(),
  /** Payouts run on a schedule (PAYOUT_INTERVAL_MS) without POST /business/payouts/run. */
  autoPayoutEnabled: z.boolean(),
  /** Event names that reverse the referral's rewards when tracked (same list as general.reversalEvents). */
  reversalEvents: z.array(z.string()),
  /** Payouts go only to wallets the participant proved by signature in the portal. */
  requireVerifiedWallet: z.boolean(),
});

export const configOutput = z.object({
  /** The environment whose values `general.referralRewardEth`, `general.bonusEth` and `spend` show. */
  environment,
  /** True when this environment has values of its own; false when it uses the business-wide ones. */
  environmentSpecific: z.boolean(),
  general: generalConfigOutput,
  spend: spendConfigOutput,
});

/** GET /business/config?environment=TEST|LIVE (default LIVE). */
export const getConfigInput = z.object({ environment: environment.default("LIVE") });

/**
 * Only for the fields that may differ by environment (referralRewardEth, bonusEth, every spend
 * field): with `environment` they change in that environment only; without, in both.
 */
const targetEnvironment = environment.optional();
export type ConfigOutput = z.infer<typeof configOutput>;

const eventName = z.string().trim().min(1).max(100);

/**
 * A JSON boolean, strictly. The REST adapter (trpc-to-openapi) switches z.boolean() schemas to
 * coercion, under which the string "false" would become true; literals are left alone.
 */
export const strictBoolean = z.union([z.literal(true), z.literal(false)]);

/** PATCH /business/config/general: every field optional; only the fields sent change. */
export const updateGeneralInput = z.strictObject({
  environment: targetEnvironment,
  businessName: z.string().trim().min(1).max(120).optional(),
  website: z.url({ protocol: /^https?$/ }).max(2048).nullable().optional(),
  rewardStrategy: z.enum(["FIXED", "TIERED"]).optional(),
  referralRewardEth: ethAmount.optional(),
  bonusEth: ethAmount.optional(),
  eventProcessing: z.enum(["AUTO", "SYNC", "ASYNC"]).optional(),
  /** Event names that qualify a referral for rewards; an empty list means every event qualifies. */
  qualifyingEvents: z.array(eventName).max(100).optional(),
  reversalEvents: z.array(eventName).max(100).optional(),
  leaderboardEnabled: strictBoolean.optional(),
});
export type UpdateGeneralInput = z.infer<typeof updateGeneralInput>;

/** PATCH /business/config/spend (owner): caps take null for "no cap". */
export const updateSpendInput = z.strictObject({
  environment: targetEnvironment,
  maxEthPerDayPerUser: ethAmount.nullable().optional(),
  maxReferralEthPerEvent: ethAmount.nullable().optional(),
  maxBonusEthPerEvent: ethAmount.nullable().optional(),
  lowPoolAlertEth: ethAmount.optional(),
  autoRefillEnabled: strictBoolean.optional(),
  autoRefillAmountEth: ethAmount.optional(),
  payoutHoldDays: z.number().int().min(0).max(90).optional(),
  minPayoutEth: ethAmount.optional(),
  autoPayoutEnabled: strictBoolean.optional(),
  reversalEvents: z.array(eventName).max(100).optional(),
  requireVerifiedWallet: strictBoolean.optional(),
});
export type UpdateSpendInput = z.infer<typeof updateSpendInput>;
