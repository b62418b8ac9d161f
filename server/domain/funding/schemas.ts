// Balance and on-chain funding: inputs and outputs of GET /business/balance,
// POST /business/funding/verify and POST /business/funding/test-deposit.
import { z } from "zod";
import { ethAmount } from "../../shared/money";
import { environment } from "../../shared/environment";
import { assetTag } from "../../shared/asset";

/** 0x + 64 hex digits; stored lower-case so that one transaction has one spelling. */
const txHash = z
  .string()
  .trim()
  .max(66)
  .regex(/^0x[0-9a-fA-F]{64}$/, "Must be a transaction hash: 0x followed by 64 hex digits")
  .transform((s) => s.toLowerCase() as `0x${string}`);

export const balanceInput = z.object({ environment: environment.default("LIVE") });

export const balanceOutput = z.object({
  environment,
  /** The asset the amounts are in (gas figures are always ETH). */
  asset: assetTag,
  /** The deposit address's ETH, which pays payouts' gas; null when the chain cannot be read. */
  gasBalanceEth: z.string().nullable(),
  /** Ledger sum: funding credits minus reward debits plus adjustments. */
  balanceEth: z.string(),
  balanceWei: z.string(),
  /** Where to send ETH to fund this environment's pool; null when the environment has no deposit seed (LIVE without DEPOSIT_MNEMONIC). */
  depositAddress: z.string().nullable(),
  lowPoolAlertEth: z.string(),
  /** True while the balance sits below lowPoolAlertEth (one alert per crossing). */
  belowLowPoolAlert: z.boolean(),
  /** Whether funding can be verified for this environment (RPC configured, deposit seed usable). */
  chainConfigured: z.boolean(),
  /** Why chainConfigured is false, else null. */
  chainProblem: z.string().nullable(),
  confirmationsRequired: z.number().int(),
  /** The deposit address's balance read from the chain; null when the chain is down or not configured. */
  onChainBalanceEth: z.string().nullable(),
  /** Earned by participants and not yet paid out (on hold, payable, in a payout). */
  owedEth: z.string(),
  /** Sent to participants' wallets by confirmed payouts. */
  paidOutEth: z.string(),
  /** Gas of payouts, paid from the pool. */
  gasSpentEth: z.string(),
  /** What new rewards can still draw on (= balanceEth, the ledger sum). */
  availableEth: z.string(),
  /** Whether onChainBalanceEth = availableEth + owedEth (null when the chain cannot be read). */
  reconciled: z.boolean().nullable(),
  /** onChainBalanceEth − (availableEth + owedEth), e.g. a deposit not verified yet; null when the chain cannot be read. */
  unreconciledEth: z.string().nullable(),
});
export type BalanceOutput = z.infer<typeof balanceOutput>;

export const verifyFundingInput = z.strictObject({ txHash, environment: environment.default("LIVE") });
export type VerifyFundingInput = z.infer<typeof verifyFundingInput>;

export const verifyFundingOutput = z.object({
  txHash: z.string(),
  environment,
  asset: assetTag,
  /** The transaction's value. */
  amountEth: z.string(),
  /** What this call added to the pool: amountEth, or "0" when the hash was already credited. */
  creditedEth: z.string(),
  /** True when this transaction had been credited before (a hash is never credited twice). */
  alreadyCredited: z.boolean(),
  balanceEth: z.string(),
  depositAddress: z.string(),
  from: z.string().nullable(),
  blockNumber: z.string().nullable(),
  confirmations: z.number().int().nullable(),
  ledgerEntryId: z.string(),
  creditedAt: z.string(),
});
export type VerifyFundingOutput = z.infer<typeof verifyFundingOutput>;

/** Dev faucet, in the TEST environment's asset: more than 0, at most 100 ETH or a million token units (checked with the asset). */
export const testDepositInput = z.strictObject({
  amountEth: ethAmount.refine((s) => !/^0(\.0+)?$/.test(s), "Must be more than 0"),
});

export const testDepositOutput = z.object({
  txHash: z.string(),
  environment: z.literal("TEST"),
  asset: assetTag,
  amountEth: z.string(),
  from: z.string(),
  to: z.string(),
  blockNumber: z.string(),
});
export type TestDepositOutput = z.infer<typeof testDepositOutput>;

/** Why a funding transaction was refused: details.reason of 422 FUNDING_REJECTED. */
export type FundingRejection =
  | "TX_NOT_FOUND"
  | "TX_PENDING"
  | "TX_REVERTED"
  | "WRONG_RECIPIENT"
  | "ZERO_VALUE"
  | "INSUFFICIENT_CONFIRMATIONS";
