import { z } from "zod";
import { ethAmount } from "../../shared/money";

export const generalConfigOutput = z.object({
  businessName: z.string(),
  website: z.string().nullable(),
  rewardStrategy: z.enum(["FIXED", "TIERED"]),
  referralRewardEth: z.string(),
  bonusEth: z.string(),
  eventProcessing: z.enum(["AUTO", "SYNC", "ASYNC"]),
  qualifyingEvents: z.array(z.string()),
});

export const spendConfigOutput = z.object({
  /** null = no cap */
  maxEthPerDayPerUser: z.string().nullable(),
  maxReferralEthPerEvent: z.string().nullable(),
  maxBonusEthPerEvent: z.string().nullable(),
  lowPoolAlertEth: z.string(),
  autoRefillEnabled: z.boolean(),
  autoRefillAmountEth: z.string(),
});

export const configOutput = z.object({ general: generalConfigOutput, spend: spendConfigOutput });
export type ConfigOutput = z.infer<typeof configOutput>;

export { ethAmount };

const eventName = z.string().trim().min(1).max(100);

/**
 * A JSON boolean, strictly. The REST adapter (trpc-to-openapi) switches z.boolean() schemas to
 * coercion, under which the string "false" would become true; literals are left alone.
 */
export const strictBoolean = z.union([z.literal(true), z.literal(false)]);

/** PATCH /business/config/general: every field optional; only the fields sent change. */
export const updateGeneralInput = z.strictObject({
  businessName: z.string().trim().min(1).max(120).optional(),
  website: z.url({ protocol: /^https?$/ }).max(2048).nullable().optional(),
  rewardStrategy: z.enum(["FIXED", "TIERED"]).optional(),
  referralRewardEth: ethAmount.optional(),
  bonusEth: ethAmount.optional(),
  eventProcessing: z.enum(["AUTO", "SYNC", "ASYNC"]).optional(),
  /** Event names that qualify a referral for rewards; an empty list means every event qualifies. */
  qualifyingEvents: z.array(eventName).max(100).optional(),
});
export type UpdateGeneralInput = z.infer<typeof updateGeneralInput>;

/** PATCH /business/config/spend (owner): caps take null for "no cap". */
export const updateSpendInput = z.strictObject({
  maxEthPerDayPerUser: ethAmount.nullable().optional(),
  maxReferralEthPerEvent: ethAmount.nullable().optional(),
  maxBonusEthPerEvent: ethAmount.nullable().optional(),
  lowPoolAlertEth: ethAmount.optional(),
  autoRefillEnabled: strictBoolean.optional(),
  autoRefillAmountEth: ethAmount.optional(),
});
export type UpdateSpendInput = z.infer<typeof updateSpendInput>;
