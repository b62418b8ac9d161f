import { z } from "zod";
import { assetTag } from "../../shared/asset";
import { isoInstant } from "../../shared/dates";
import { listCursor, listLimit, pageOutput } from "../../shared/list-page";
import { ethAmount } from "../../shared/money";
import { environment } from "../../shared/environment";
import { rewardKind, rewardStatus } from "../../shared/reward-enums";
import { commissionBasisFields } from "../../shared/reward-basis";
import { rewardState } from "./state";


/** The short form carried by events and the synchronous /track answer (engine.ts RewardSummary). */
export const rewardSummaryOutput = z.object({
  /** The asset the amounts are in (the environment's). */
  asset: assetTag,
  rewardId: z.string(),
  participantId: z.string(),
  kind: rewardKind,
  amountEth: z.string(),
  requestedEth: z.string(),
  status: rewardStatus,
  reason: z.string().nullable(),
  ...commissionBasisFields,
});

export const rewardOutput = z.object({
  /** The asset the amounts are in (the environment's). */
  asset: assetTag,
  rewardId: z.string(),
  environment,
  participantId: z.string(),
  participant: z.object({ referralCode: z.string(), email: z.string().nullable(), name: z.string().nullable(), externalId: z.string().nullable() }),
  kind: rewardKind,
  status: rewardStatus,
  /** What the rules asked for. */
  requestedEth: z.string(),
  /** What was paid after caps and pool ("0" unless PAID). */
  amountEth: z.string(),
  /** Why it was capped, held or refused, comma-separated (e.g. "PER_EVENT_CAP,DAILY_CAP", "INSUFFICIENT_POOL"). */
  reason: z.string().nullable(),
  note: z.string().nullable(),
  eventId: z.string().nullable(),
  referralId: z.string().nullable(),
  createdAt: z.string(),
  paidAt: z.string().nullable(),
  /** Payout state of a PAID reward (null otherwise): ON_HOLD until payableAt, then PAYABLE, IN_PAYOUT, PAID_OUT; or REVERSED. */
  payoutStatus: z.enum(["ON_HOLD", "PAYABLE", "IN_PAYOUT", "PAID_OUT", "REVERSED"]).nullable(),
  payableAt: z.string().nullable(),
  payoutId: z.string().nullable(),
  reversedAt: z.string().nullable(),
  reversalReason: z.string().nullable(),
  /** What its reversals took back so far: all of amountEth once REVERSED, a share after partial refunds. */
  reversedEth: z.string(),
  /** Where it stands, one word (docs/api.md "Reward states"): HELD_FOR_REVIEW, REFUSED, ON_HOLD, PAYABLE, IN_PAYOUT, PAID_OUT or REVERSED. */
  state: rewardState,
  ...commissionBasisFields,
});
export type RewardOutput = z.infer<typeof rewardOutput>;

export const createRewardInput = z.strictObject({
  /** A participant id, referral code or email, in `environment`. */
  recipient: z.string().trim().min(1).max(254),
  amountEth: ethAmount.refine((s) => /[1-9]/.test(s), "Must be greater than 0"),
  reason: z.string().trim().min(1).max(500),
  environment: environment.default("LIVE"),
});
export type CreateRewardInput = z.infer<typeof createRewardInput>;

export const createRewardOutput = rewardOutput.extend({ balanceEth: z.string() });

export const listRewardsInput = z.strictObject({
  environment: environment.default("LIVE"),
  status: rewardStatus.optional(),
  kind: rewardKind.optional(),
  participantId: z.string().min(1).max(64).optional(),
  eventId: z.string().min(1).max(64).optional(),
  /** Inclusive lower bound on createdAt. */
  from: isoInstant.optional(),
  /** Exclusive upper bound on createdAt (a bare date means the start of that day). */
  to: isoInstant.optional(),
  limit: listLimit,
  cursor: listCursor,
});
export const listRewardsOutput = pageOutput(rewardOutput);
