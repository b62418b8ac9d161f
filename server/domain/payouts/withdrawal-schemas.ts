// The referrer's withdrawals in the portal: POST /portal/api/withdrawals (202) and GET /portal/api/withdrawals.
import { z } from "zod";
import { assetTag } from "../../shared/asset";
import { listCursor, listLimit } from "../../shared/list-page";

/** REQUESTED: waiting for the run; SENT: in a payout not yet confirmed; PAID: its payout confirmed; FAILED: see failureCode. */
const withdrawalStatus = z.enum(["REQUESTED", "SENT", "PAID", "FAILED"]);

/** POST takes no fields (the amount is everything payable); an empty body or {} is accepted. */
export const requestWithdrawalInput = z.strictObject({}).optional();

export const withdrawalRequested = z.object({
  withdrawalId: z.string(),
  status: z.literal("REQUESTED"),
  amountEth: z.string(),
  asset: assetTag,
});
export type WithdrawalRequested = z.infer<typeof withdrawalRequested>;

const withdrawalItem = z.object({
  withdrawalId: z.string(),
  status: withdrawalStatus,
  /** What was payable when the request was made. */
  amountEth: z.string(),
  /** What the payout paid (it pays everything payable when it is made), once there is one. */
  paidEth: z.string().nullable(),
  payoutId: z.string().nullable(),
  txHash: z.string().nullable(),
  /** The transaction on the chain's block explorer, where one is configured (else use txHash). */
  txUrl: z.string().nullable(),
  /** Why it failed: PAYOUT_FAILED (the payout was refused), or the run's reason (BELOW_MINIMUM, NO_WALLET, WALLET_FAILED, GAS_TOO_HIGH, GAS_BALANCE_LOW). */
  failureCode: z.string().nullable(),
  failure: z.string().nullable(),
  createdAt: z.string(),
  settledAt: z.string().nullable(),
});

/** What the portal's button shows: whether a request may be made now, for how much, and when it would arrive. */
const withdrawalAvailability = z.object({
  allowed: z.boolean(),
  /** Why not: WITHDRAWALS_DISABLED, NO_WALLET, WALLET_FAILED, BELOW_MINIMUM, WITHDRAWAL_PENDING or RATE_LIMITED; null when allowed. */
  reason: z.string().nullable(),
  message: z.string().nullable(),
  amountEth: z.string(),
  minWithdrawalEth: z.string(),
  asset: assetTag,
  /** The run a request starts begins within this many seconds; the transfer then waits for its confirmations. */
  runWithinSeconds: z.number().int(),
  confirmations: z.number().int(),
});

export const withdrawalsInput = z.strictObject({ limit: listLimit, cursor: listCursor });
export const withdrawalsOutput = z.object({ data: z.array(withdrawalItem), nextCursor: z.string().nullable(), availability: withdrawalAvailability });
export type WithdrawalsOutput = z.infer<typeof withdrawalsOutput>;
