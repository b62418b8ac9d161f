// Payouts: inputs and outputs of POST /business/payouts/run and GET /business/payouts.
import { z } from "zod";
import { assetTag } from "../../shared/asset";
import { listCursor, listLimit, pageOutput } from "../../shared/list-page";
import { environment } from "../../shared/environment";
import { participantRef } from "../participants/schemas";

const payoutStatus = z.enum(["PENDING", "SENT", "CONFIRMED", "FAILED"]);

const payoutOutput = z.object({
  /** The asset amountEth, rewardsEth and offsetEth are in (gasEth is always ETH). */
  asset: assetTag,
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
  /** Gas the mined transaction cost (from the pool; a batch's payout: its equal share of the batch's gas); null until mined. */
  gasEth: z.string().nullable(),
  status: payoutStatus,
  /** The batch transaction that pays it (GET /business/payouts/batches); null for a transfer of its own. */
  batchId: z.string().nullable(),
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
  /**
   * BELOW_MINIMUM: under minPayoutEth. GAS_TOO_HIGH: its gas would exceed PAYOUT_MAX_GAS_PERCENT of
   * the amount (held back; ETH programs). GAS_BALANCE_LOW: a token program's deposit address has
   * too little ETH for this payout's gas (not paid; fund it with ETH).
   */
  code: z.enum(["BELOW_MINIMUM", "GAS_TOO_HIGH", "GAS_BALANCE_LOW"]),
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
/** A payout as GET /business/payouts lists it: with the participant it pays, to name them. */
export const listPayoutsOutput = pageOutput(payoutOutput.extend({ participant: participantRef }));

const queueState = z.enum(["REQUESTED", "READY", "ON_HOLD", "BELOW_MINIMUM", "NO_WALLET", "WALLET_FAILED"]);
export type QueueState = z.infer<typeof queueState>;

/** GET /business/payouts/queue: who is owed ETH not yet in a payout, and what the next run does about it. */
export const payoutQueueInput = z.strictObject({ environment: environment.default("LIVE") });
const queueItem = z.object({
  participant: participantRef,
  walletAddress: z.string().nullable(),
  /**
   * REQUESTED: the participant asked to be paid (a withdrawal in the portal) and the next run,
   * which their request started, pays it. READY: the next run pays it. ON_HOLD: nothing payable before nextPayableAt. BELOW_MINIMUM:
   * payable, under minPayoutEth. NO_WALLET: no payout wallet. WALLET_FAILED: the wallet refused a
   * payout (or cannot be one); skipped until it changes.
   */
  state: queueState,
  /** Payable now (hold ended), before offsets. */
  payableEth: z.string(),
  /** What the next run would send: payableEth less what offsets earlier clawbacks. */
  amountEth: z.string(),
  /** Still on hold. */
  onHoldEth: z.string(),
  /** When the next held reward becomes payable; null when none is on hold. */
  nextPayableAt: z.string().nullable(),
  /** Why, in words. */
  reason: z.string(),
  /** True when everything owed is owed to them as the referred customer of their referrals (bonuses, commissions to the referred), none as a referrer. */
  customer: z.boolean(),
});
const queueTotal = z.object({ count: z.number().int(), eth: z.string() });
export const payoutQueueOutput = z.object({
  environment,
  /** The asset every amount of the queue is in. */
  asset: assetTag,
  minPayoutEth: z.string(),
  payoutHoldDays: z.number().int(),
  autoPayoutEnabled: z.boolean(),
  /** Per state: participants and ETH (payable plus on hold); REQUESTED only while someone has an open withdrawal request. */
  totals: z.object({ REQUESTED: queueTotal.optional(), READY: queueTotal, ON_HOLD: queueTotal, BELOW_MINIMUM: queueTotal, NO_WALLET: queueTotal, WALLET_FAILED: queueTotal }),
  /** Owed to customers without a wallet: the NO_WALLET items that are customers with no wallet set (counted in NO_WALLET too). */
  customersWithoutWallet: queueTotal,
  /** At most 100: requested first, then ready, then below the minimum, on hold, wallet failed, no wallet; larger amounts first. */
  items: z.array(queueItem),
  /** True when more participants are owed than items lists (totals count them all). */
  truncated: z.boolean(),
});
export type PayoutQueueOutput = z.infer<typeof payoutQueueOutput>;

/** GET /business/payouts/batches: batch transactions, newest first. */
export const listBatchesInput = z.strictObject({
  environment: environment.default("LIVE"),
  limit: listLimit,
  cursor: listCursor,
});
export type ListBatchesInput = z.infer<typeof listBatchesInput>;
const batchOutput = z.object({
  /** The asset amountEth is in (gasEth is always ETH). */
  asset: assetTag,
  batchId: z.string(),
  environment,
  /** The transaction (the mined version once mined; a fee bump replaces it). */
  txHash: z.string(),
  /** The transaction on the environment's block explorer (EXPLORER_URL / EXPLORER_URL_TEST), or null when none is configured. */
  txUrl: z.string().nullable(),
  nonce: z.number().int(),
  /** As its payouts': PENDING (recorded), SENT, CONFIRMED or FAILED. */
  status: payoutStatus,
  /** Participants it pays (one payout each, with this batchId). */
  recipients: z.number().int(),
  /** What it pays in all. */
  amountEth: z.string(),
  /** Gas the mined transaction cost, in ETH; null until mined. */
  gasEth: z.string().nullable(),
  blockNumber: z.string().nullable(),
  error: z.string().nullable(),
  createdAt: z.string(),
  confirmedAt: z.string().nullable(),
});
export type BatchOutput = z.infer<typeof batchOutput>;
export const listBatchesOutput = pageOutput(batchOutput);
