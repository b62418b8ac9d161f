// Payouts: inputs and outputs of POST /business/payouts/run, GET /business/payouts and
// POST /sdk/rewards/reverse.
import { z } from "zod";
import { listCursor, listLimit, pageOutput } from "../../shared/list-page";
import { environment } from "../api-keys/schemas";
import { email, externalUserId } from "../participants/schemas";

const payoutStatus = z.enum(["PENDING", "SENT", "CONFIRMED", "FAILED"]);

const payoutOutput = z.object({
  payoutId: z.string(),
  environment,
  participantId: z.string(),
  walletAddress: z.string(),
  /** ETH the transaction sends: the rewards' sum minus the clawbacks it offsets. */
  amountEth: z.string(),
  /** Sum of the rewards paid by this payout. */
  rewardsEth: z.string(),
  /** Part of the rewards kept to offset earlier reversed (already paid-out) rewards. */
  offsetEth: z.string(),
  /** Gas the mined transaction cost (from the pool); null until mined. */
  gasEth: z.string().nullable(),
  status: payoutStatus,
  txHash: z.string().nullable(),
  nonce: z.number().int().nullable(),
  fromAddress: z.string(),
  blockNumber: z.string().nullable(),
  rewardIds: z.array(z.string()),
  error: z.string().nullable(),
  createdAt: z.string(),
  sentAt: z.string().nullable(),
  confirmedAt: z.string().nullable(),
  failedAt: z.string().nullable(),
});
export type PayoutOutput = z.infer<typeof payoutOutput>;

export const runPayoutsInput = z.strictObject({ environment: environment.default("LIVE") });
/** A participant a run passed over: their rewards stay payable. */
const skippedPayout = z.object({
  participantId: z.string(),
  /** BELOW_MINIMUM: under minPayoutEth. GAS_TOO_HIGH: its gas would exceed PAYOUT_MAX_GAS_PERCENT of the amount (held back). */
  code: z.enum(["BELOW_MINIMUM", "GAS_TOO_HIGH"]),
  message: z.string(),
});
export type SkippedPayout = z.infer<typeof skippedPayout>;
export const runPayoutsOutput = z.object({ payouts: z.array(payoutOutput), skipped: z.array(skippedPayout) });

export const listPayoutsInput = z.strictObject({
  environment: environment.default("LIVE"),
  status: payoutStatus.optional(),
  participantId: z.string().min(1).max(64).optional(),
  limit: listLimit,
  cursor: listCursor,
});
export type ListPayoutsInput = z.infer<typeof listPayoutsInput>;
export const listPayoutsOutput = pageOutput(payoutOutput);

const eventName = z.string().trim().min(1).max(100);

/** POST /sdk/rewards/reverse (secret key). */
export const reverseRewardsInput = z
  .strictObject({
    referredUserId: externalUserId.optional(),
    referredUserEmail: email.optional(),
    /** The reversing event, recorded with the reversal (e.g. "refund", "chargeback"). */
    eventName: eventName.optional(),
    reason: z.string().trim().min(1).max(500),
    idempotencyKey: z.string().trim().min(1).max(255).optional(),
  })
  .refine((v) => v.referredUserId !== undefined || v.referredUserEmail !== undefined, {
    message: "Provide referredUserId or referredUserEmail",
    path: ["referredUserId"],
  });
export type ReverseRewardsInput = z.infer<typeof reverseRewardsInput>;

const reversalOutput = z.object({
  reversalId: z.string(),
  rewardId: z.string(),
  participantId: z.string(),
  amountEth: z.string(),
  /** RETURNED_TO_POOL: the reward had not been paid out, its ETH is back in the pool. CLAWBACK: it had; the participant's next payouts offset it. */
  outcome: z.enum(["RETURNED_TO_POOL", "CLAWBACK"]),
  reason: z.string(),
  eventName: z.string().nullable(),
  createdAt: z.string(),
});
export type ReversalOutput = z.infer<typeof reversalOutput>;

export const reverseRewardsOutput = z.object({
  referredParticipantId: z.string(),
  reversals: z.array(reversalOutput),
  /** ETH credited back to the pool by this call. */
  returnedToPoolEth: z.string(),
  /** ETH already paid out, now owed back by the participants (offset by their next payouts). */
  clawbackEth: z.string(),
  balanceEth: z.string(),
});
export type ReverseRewardsOutput = z.infer<typeof reverseRewardsOutput>;
