// Reversals as the business sees them: GET /business/reversals and the staff action
// POST /business/rewards/:rewardId/reverse.
import { z } from "zod";
import { listCursor, listLimit, pageOutput } from "../../shared/list-page";
import { environment } from "../api-keys/schemas";
import { rewardKind } from "../../shared/reward-enums";

const reversalItem = z.object({
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
