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
