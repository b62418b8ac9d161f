import { z } from "zod";
import { strictNumber } from "../../shared/strict-types";
import { environment } from "../../shared/environment";
import { ethAmount } from "../../shared/money";

export const tierOutput = z.object({
  tierId: z.string(),
  name: z.string(),
  /** Qualified (or rewarded) referrals a referrer needs to sit in this tier. */
  minReferrals: z.number().int(),
  /** Upper bound (inclusive) implied by the next tier; null for the top tier. */
  maxReferrals: z.number().int().nullable(),
  referralRewardEth: z.string(),
  bonusEth: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TierOutput = z.infer<typeof tierOutput>;

const name = z.string().trim().min(1).max(100);
const minReferrals = strictNumber(z.number().int().min(0).max(1_000_000));

export const createTierInput = z.strictObject({
  name,
  minReferrals,
  referralRewardEth: ethAmount,
  bonusEth: ethAmount.default("0"),
});

export const updateTierInput = z.strictObject({
  tierId: z.string().min(1).max(64),
  name: name.optional(),
  minReferrals: minReferrals.optional(),
  referralRewardEth: ethAmount.optional(),
  bonusEth: ethAmount.optional(),
});

export const tierIdInput = z.strictObject({ tierId: z.string().min(1).max(64) });

export const tierCategorizationInput = z.strictObject({ environment: environment.default("LIVE") });

export const tierCategorizationOutput = z.object({
  environment,
  totalParticipants: z.number().int(),
  /** Participants below the lowest tier's threshold (or every participant when there are no tiers). */
  untiered: z.object({ participantCount: z.number().int() }),
  tiers: z.array(tierOutput.pick({ tierId: true, name: true, minReferrals: true, maxReferrals: true }).extend({ participantCount: z.number().int() })),
  /** Referrers closest to their next tier (fewest referrals missing first). */
  closestToNext: z.array(
    z.object({
      participantId: z.string(),
      referralCode: z.string(),
      email: z.string().nullable(),
      name: z.string().nullable(),
      qualifiedReferrals: z.number().int(),
      currentTierId: z.string().nullable(),
      nextTierId: z.string(),
      nextTierName: z.string(),
      referralsToNext: z.number().int(),
    }),
  ),
});
export type TierCategorizationOutput = z.infer<typeof tierCategorizationOutput>;
