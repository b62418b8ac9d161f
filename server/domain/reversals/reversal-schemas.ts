// Reversals: GET /business/reversals, the staff action POST /business/rewards/:rewardId/reverse
// and the integration's POST /sdk/rewards/reverse.
import { z } from "zod";
import { listCursor, listLimit, pageOutput } from "../../shared/list-page";
import { environment } from "../../shared/environment";
import { rewardKind } from "../../shared/reward-enums";
import { decimalAmount } from "../../shared/money";
import { assetTag } from "../../shared/asset";
import { email, externalUserId } from "../participants/schemas";

const reversalItem = z.object({
  /** The asset the amounts are in (the environment's). */
  asset: assetTag,
  reversalId: z.string(),
  environment,
  rewardId: z.string(),
  rewardKind,
  participantId: z.string(),
  participant: z.object({ referralCode: z.string(), email: z.string().nullable(), name: z.string().nullable(), externalId: z.string().nullable() }),
  amountEth: z.string(),
  /** RETURNED_TO_POOL: not paid out yet, its ETH went back to the pool. CLAWBACK: already paid out; the participant's next payouts offset it. */
  outcome: z.enum(["RETURNED_TO_POOL", "CLAWBACK"]),
  reason: z.string(),
  eventName: z.string().nullable(),
  eventId: z.string().nullable(),
  /** EVENT: a tracked reversal event; API: POST /sdk/rewards/reverse; DASHBOARD: staff. */
  source: z.enum(["EVENT", "API", "DASHBOARD"]),
  createdAt: z.string(),
});
export type ReversalItem = z.infer<typeof reversalItem>;

export const listReversalsInput = z.strictObject({
  environment: environment.default("LIVE"),
  participantId: z.string().min(1).max(64).optional(),
  outcome: z.enum(["RETURNED_TO_POOL", "CLAWBACK"]).optional(),
  limit: listLimit,
  cursor: listCursor,
});
export type ListReversalsInput = z.infer<typeof listReversalsInput>;
export const listReversalsOutput = pageOutput(reversalItem);

export const reverseRewardInput = z.strictObject({
  rewardId: z.string().min(1).max(64),
  reason: z.string().trim().min(1, "Say why the reward is reversed").max(500),
});
export const reverseRewardOutput = reversalItem.extend({ balanceEth: z.string() });

const eventName = z.string().trim().min(1).max(100);

/** POST /sdk/rewards/reverse (secret key): a referred user's rewards, or an event's (a refund, partial with `amount`). */
export const reverseRewardsInput = z
  .strictObject({
    referredUserId: externalUserId.optional(),
    referredUserEmail: email.optional(),
    /** The original event (e.g. the purchase refunded): its rewards are reversed, all or the share of `amount`. */
    eventId: z.string().trim().min(1).max(64).optional(),
    /** With eventId: how much of the event's amount is refunded, in the event's currency. Without it, the rest of the event. */
    amount: decimalAmount.optional(),
    /** The reversing event, recorded with the reversal (e.g. "refund", "chargeback"). */
    eventName: eventName.optional(),
    reason: z.string().trim().min(1).max(500),
    idempotencyKey: z.string().trim().min(1).max(255).optional(),
  })
  .superRefine((v, ctx) => {
    const byUser = v.referredUserId !== undefined || v.referredUserEmail !== undefined;
    if (!byUser && v.eventId === undefined) ctx.addIssue({ code: "custom", message: "Provide eventId, or referredUserId or referredUserEmail", path: ["referredUserId"] });
    if (byUser && v.eventId !== undefined) ctx.addIssue({ code: "custom", message: "Provide either eventId or referredUserId/referredUserEmail, not both", path: ["eventId"] });
    if (v.amount !== undefined && v.eventId === undefined) ctx.addIssue({ code: "custom", message: "amount refunds part of an event: it needs eventId", path: ["amount"] });
  });
export type ReverseRewardsInput = z.infer<typeof reverseRewardsInput>;

const reversalOutput = z.object({
  reversalId: z.string(),
  rewardId: z.string(),
  participantId: z.string(),
  /** What this reversal takes back: the reward's remaining amount, or its share of a partial refund. */
  amountEth: z.string(),
  /** RETURNED_TO_POOL: the reward had not been paid out, its ETH is back in the pool. CLAWBACK: it had; the participant's next payouts offset it. */
  outcome: z.enum(["RETURNED_TO_POOL", "CLAWBACK"]),
  reason: z.string(),
  eventName: z.string().nullable(),
  createdAt: z.string(),
});
export type ReversalOutput = z.infer<typeof reversalOutput>;

export const reverseRewardsOutput = z.object({
  /** The referred user whose rewards were reversed (with eventId: the event's, null when it has none). */
  referredParticipantId: z.string().nullable(),
  reversals: z.array(reversalOutput),
  /** With eventId: the event reversed, and how much of its amount is refunded in all (its currency; null when it has no amount). */
  eventId: z.string().optional(),
  refundedAmount: z.string().nullable().optional(),
  /** The asset the amounts are in (the environment's). */
  asset: assetTag,
  /** The amount credited back to the pool by this call. */
  returnedToPoolEth: z.string(),
  /** The amount already paid out, now owed back by the participants (offset by their next payouts). */
  clawbackEth: z.string(),
  balanceEth: z.string(),
});
export type ReverseRewardsOutput = z.infer<typeof reverseRewardsOutput>;
