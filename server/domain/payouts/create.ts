// Step 1 of a payout: the next participant's payable rewards become one transfer, signed and
// recorded (PENDING) in one transaction under the sender lock, with its gas reserve debited.
// A wallet that refuses (reverts in estimation, needs more than PAYOUT_MAX_GAS, or is not a
// wallet at all) fails its payout and is skipped by later runs until it changes.
import type { Address } from "viem";
import { db, type Tx } from "../../db/client";
import { transactionRetried } from "../../db/retry";
import { onChain } from "../../chain/clients";
import { env } from "../../shared/env";
import { AppError } from "../../shared/errors";
import { toBigInt, weiToDb, weiToEth } from "../../shared/money";
import { ETH_ASSET, isNative, type Asset } from "../../shared/asset";
import { amountOf, readAsset, sharedAmountUnits } from "../assets/read";
import { assetBalanceOf } from "./asset-transfer";
import { loadConfig } from "../effective-config/load";
import { creditLedger, getBalanceWei, lockPool } from "../ledger/service";
import { debitLedger } from "../rules/debit";
import { walletProblem } from "../participants/wallet-rules";
import { emitWebhookEvent } from "../webhooks/emit";
import { payoutWebhook, type PayoutRow } from "./list";
import { owedOf, participantSumsCtes, participantSumsSelect, type ParticipantSums } from "./totals";
import type { SkippedPayout } from "./schemas";
import { chainGenesisOf, estimateTransferGas, payoutHashTaken, quoteFees, recordTransaction, signTransfer, signUntaken, TX_OPTIONS, type Sender } from "./sender";

export async function lockSender(tx: Tx, s: Sender) {
  await tx.$executeRaw`
    INSERT INTO "PayoutSender" ("environment", "address", "businessId", "createdAt")
    VALUES (${s.environment}::"Environment", ${s.address}, ${s.businessId}, now())
    ON CONFLICT ("environment", "address") DO NOTHING`;
  await tx.$queryRaw`SELECT "address" FROM "PayoutSender" WHERE "environment" = ${s.environment}::"Environment" AND "address" = ${s.address} FOR UPDATE`;
}

/** What a participant still owes back from reversed rewards that had been paid out, not yet offset by a payout (payouts/totals.ts owedOf). */
export async function participantDebtWei(client: Tx | typeof db, participantId: string): Promise<bigint> {
  const [sums] = await client.$queryRawUnsafe<ParticipantSums[]>(`WITH ${participantSumsCtes(`p."id" = $1`)} ${participantSumsSelect}`, participantId);
  return sums ? owedOf(sums).owedBackWei : 0n;
}

/**
 * The next nonce: the chain's pending count (read before the lock), never below the highest live
 * nonce recorded for this chain (single payouts' and batches'). A local development chain starts empty each time it starts (in
 * memory) while the database keeps the payouts of its earlier lives: only those signed on this
 * one (the same genesis) count.
 */
export async function nextNonce(tx: Tx, s: Sender, chainCount: number, genesis: string | null): Promise<number> {
  const rows = await tx.$queryRaw<Array<{ n: number | null }>>`
    SELECT MAX("nonce") AS "n" FROM (
      SELECT "nonce" FROM "Payout"
      WHERE "environment" = ${s.environment}::"Environment" AND "fromAddress" = ${s.address} AND "status" <> 'FAILED'
        AND COALESCE("chainGenesis", '') = COALESCE(${genesis}::text, '')
      UNION ALL
      SELECT "nonce" FROM "PayoutBatch"
      WHERE "environment" = ${s.environment}::"Environment" AND "fromAddress" = ${s.address} AND "status" <> 'FAILED'
        AND COALESCE("chainGenesis", '') = COALESCE(${genesis}::text, '')
    ) AS "live"`;
  const recorded = rows[0]?.n;
  return Math.max(chainCount, recorded === null || recorded === undefined ? 0 : Number(recorded) + 1);
}

/** The sender's PENDING batch (recorded, not yet broadcast), if any. */
export const pendingBatch = (client: Tx | typeof db, s: Sender) =>
  client.payoutBatch.findFirst({ where: { environment: s.environment, fromAddress: s.address, status: "PENDING" }, orderBy: { nonce: "asc" }, select: { id: true } });

export type CreateStep =
  | { kind: "none" }
  | { kind: "pending"; payout: PayoutRow }
  | { kind: "created"; payout: PayoutRow }
  | { kind: "skipped"; skipped: SkippedPayout }
  /** The participant's rewards changed between the look and the lock: look again. */
  | { kind: "retry" };

export interface Candidate {
  participantId: string;
  walletAddress: string;
}

/**
 * The next participants to pay, at most `limit`, oldest payable first: payable rewards, a wallet
 * that has not refused a payout (and, with requireVerifiedWallet, one proven by signature in the
 * portal), not in `skip` (passed over in this run, or chosen for a plain transfer).
 */
export async function nextCandidates(s: Sender, skip: string[], verifiedOnly: boolean, limit: number): Promise<Candidate[]> {
  return db.$queryRaw<Candidate[]>`
    SELECT r."participantId", p."walletAddress"
    FROM "Reward" r JOIN "Participant" p ON p."id" = r."participantId"
    WHERE r."businessId" = ${s.businessId} AND r."environment" = ${s.environment}::"Environment"
      AND r."payoutStatus" = 'PAYABLE' AND r."payoutId" IS NULL
      AND p."walletAddress" IS NOT NULL AND p."walletFailedAt" IS NULL
      AND (${!verifiedOnly} OR p."walletVerified")
      AND NOT (r."participantId" = ANY(${skip}::text[]))
    GROUP BY r."participantId", p."walletAddress"
    ORDER BY MIN(r."payableAt"), r."participantId"
    LIMIT ${limit}`;
}

/**
 * The participant's payable rewards (locked with FOR UPDATE inside a transaction), their sum, and
 * what offsets it. A reward pays its amount less what partial refunds returned to the pool.
 */
export async function payableOf(client: Tx | typeof db, s: Sender, participantId: string, lock: boolean) {
  const rewards = lock
    ? await client.$queryRaw<Array<{ id: string; amountWei: string }>>`
        SELECT "id", ("amountWei" - "returnedWei")::text AS "amountWei" FROM "Reward"
        WHERE "participantId" = ${participantId} AND "businessId" = ${s.businessId} AND "environment" = ${s.environment}::"Environment"
          AND "payoutStatus" = 'PAYABLE' AND "payoutId" IS NULL
        ORDER BY "payableAt", "id" FOR UPDATE`
    : await client.$queryRaw<Array<{ id: string; amountWei: string }>>`
        SELECT "id", ("amountWei" - "returnedWei")::text AS "amountWei" FROM "Reward"
        WHERE "participantId" = ${participantId} AND "businessId" = ${s.businessId} AND "environment" = ${s.environment}::"Environment"
          AND "payoutStatus" = 'PAYABLE' AND "payoutId" IS NULL
        ORDER BY "payableAt", "id"`;
  const rewardsWei = rewards.reduce((a, r) => a + toBigInt(r.amountWei), 0n);
  const debt = await participantDebtWei(client, participantId);
  const offsetWei = debt < rewardsWei ? debt : rewardsWei;
  return { rewardIds: rewards.map((r) => r.id), rewardsWei, offsetWei, amountWei: rewardsWei - offsetWei };
}

export type Payable = Awaited<ReturnType<typeof payableOf>>;
export const samePayable = (a: Payable, b: Payable) => a.amountWei === b.amountWei && a.offsetWei === b.offsetWei && a.rewardIds.join() === b.rewardIds.join();

export const belowMinimumMessage = (amountWei: bigint, minWei: bigint, asset: Asset = ETH_ASSET) => `${amountOf(amountWei, asset)} ${asset.symbol} is below the minimum payout of ${amountOf(minWei, asset)} ${asset.symbol}`;

/** A payout refused because the sending address or the pool has too little ETH (not the participant's doing). */
export const isShortage = (error: string | null) => /^INSUFFICIENT_(FUNDS|POOL_FOR_GAS):/.test(error ?? "");

/** Records a payout refused before signing (FAILED with its reason; the rewards stay PAYABLE), and the wallet's refusal when it is the wallet's doing. */
export async function refuse(tx: Tx, data: Parameters<Tx["payout"]["create"]>[0]["data"], reason: string, walletFault: boolean): Promise<CreateStep> {
  const payout = await tx.payout.create({ data: { ...data, status: "FAILED", error: reason, failedAt: data.createdAt } });
  if (walletFault) await markWalletFailed(tx, payout.participantId, payout.walletAddress, reason, payout.failedAt!);
  await emitWebhookEvent(tx, payoutWebhook("payout.failed", payout, await readAsset(tx, payout.businessId, payout.environment))); // webhook
  return { kind: "created", payout };
}

/** The participant's wallet refused a payout: runs skip them until the wallet changes (a trigger clears the mark). */
export async function markWalletFailed(tx: Tx, participantId: string, wallet: string, reason: string, at: Date) {
  await tx.participant.updateMany({ where: { id: participantId, walletAddress: wallet }, data: { walletFailure: reason.slice(0, 1000), walletFailedAt: at } });
}

/**
 * The next step of a run: the sender's PENDING payout (to be broadcast first); or one payout,
 * signed and recorded in one transaction under the sender lock; or a participant passed over
 * (below minPayoutEth, gas too high for the amount) or refused (FAILED: the wallet, or too
 * little ETH); or nothing left to pay. Every chain call (gas estimate, balance, nonce) happens
 * before the transaction, and the pool is locked only for the gas reserve's debit. The rewards
 * are locked before the pool here and after it by a reversal: a deadlock between the two runs
 * this transaction again (it signs, but sends nothing before it commits).
 * Participants handled in this step are added to `exclude`.
 */
export async function createNextPayout(s: Sender, exclude: Set<string>, now = new Date()): Promise<CreateStep> {
  const pendingNow = await db.payout.findFirst({ where: { environment: s.environment, fromAddress: s.address, status: "PENDING" }, orderBy: { nonce: "asc" } });
  if (pendingNow) return { kind: "pending", payout: pendingNow };
  const cfg = await loadConfig(db, s.businessId, s.environment);
  const [c = null] = await nextCandidates(s, [...exclude], cfg.requireVerifiedWallet, 1);
  if (!c) return { kind: "none" };
  exclude.add(c.participantId);
  const seen = await payableOf(db, s, c.participantId, false);
  if (seen.rewardIds.length === 0) return { kind: "retry" };
  const minPayout = sharedAmountUnits(cfg.minPayoutWei, s.asset);
  const { amountWei, offsetWei, rewardsWei } = seen;
  if (amountWei > 0n && amountWei < minPayout) {
    return { kind: "skipped", skipped: { participantId: c.participantId, code: "BELOW_MINIMUM", message: belowMinimumMessage(amountWei, minPayout, s.asset) } };
  }
  const base = {
    businessId: s.businessId,
    environment: s.environment,
    participantId: c.participantId,
    walletAddress: c.walletAddress,
    fromAddress: s.address,
    rewardsWei: weiToDb(rewardsWei),
    offsetWei: weiToDb(offsetWei),
    amountWei: weiToDb(amountWei),
    rewardIds: seen.rewardIds,
    createdAt: now,
  };

  if (amountWei === 0n) {
    // Entirely offset by earlier clawbacks: settled without a transaction.
    return transactionRetried(async (tx): Promise<CreateStep> => {
      await lockSender(tx, s);
      if (!samePayable(seen, await payableOf(tx, s, c.participantId, true))) return { kind: "retry" };
      const payout = await tx.payout.create({ data: { ...base, status: "CONFIRMED", sentAt: now, confirmedAt: now, gasWei: "0" } });
      await claimRewards(tx, payout.id, seen.rewardIds, "PAID_OUT");
      await lockPool(tx, s.businessId, s.environment);
      await creditLedger(tx, { businessId: s.businessId, environment: s.environment, amountWei: offsetWei, kind: "REVERSAL", memo: `Payout ${payout.id}: ${amountOf(offsetWei, s.asset)} ${s.asset.symbol} of rewards offset against clawed-back rewards` });
      return { kind: "created", payout };
    }, TX_OPTIONS);
  }

  const refusal = walletProblem(c.walletAddress, s.depositIndex);
  if (refusal) return db.$transaction((tx) => refuse(tx, base, `WALLET_REFUSED: ${refusal}`, true), TX_OPTIONS);
  // The chain, before any lock.
  const chainId = s.chainId ?? (await onChain(s.target, "getChainId", () => s.client.getChainId()));
  const genesis = s.genesis !== undefined ? s.genesis : await chainGenesisOf(s, chainId);
  const fees = s.fees ?? (await quoteFees(s));
  const estimate = await estimateTransferGas(s, c.walletAddress as Address, amountWei);
  if ("refused" in estimate) return db.$transaction((tx) => refuse(tx, { ...base, chainId }, estimate.refused, true), TX_OPTIONS);
  const gasLimit = estimate.gas;
  const quotedReserveWei = gasLimit * fees.maxFeePerGas;
  const held = heldBack(s, c.participantId, amountWei, quotedReserveWei);
  if (held) return { kind: "skipped", skipped: held };
  const gasWei = await onChain(s.target, "getBalance", () => s.client.getBalance({ address: s.address, blockTag: "pending" }));
  const onChainWei = isNative(s.asset) ? gasWei : await onChain(s.target, "balanceOf", () => assetBalanceOf(s.client, s.asset, s.address));
  if (!isNative(s.asset) && gasWei < quotedReserveWei) {
    return { kind: "skipped", skipped: { participantId: c.participantId, code: "GAS_BALANCE_LOW", message: `Not paid: the deposit address holds ${weiToEth(gasWei)} ETH for gas; this payout needs up to ${weiToEth(quotedReserveWei)} ETH` } };
  }
  const chainNonce = await onChain(s.target, "getTransactionCount", () => s.client.getTransactionCount({ address: s.address, blockTag: "pending" }));

  return transactionRetried(async (tx): Promise<CreateStep> => {
    await lockSender(tx, s);
    const pending = await tx.payout.findFirst({ where: { environment: s.environment, fromAddress: s.address, status: "PENDING" }, orderBy: { nonce: "asc" } });
    if (pending) return { kind: "pending", payout: pending };
    // A batch recorded meanwhile that pays nobody (a token approval) is broadcast by the next run's settling.
    if (await pendingBatch(tx, s)) return { kind: "none" };
    if (!samePayable(seen, await payableOf(tx, s, c.participantId, true))) {
      exclude.delete(c.participantId);
      return { kind: "retry" };
    }
    // The wallet again, now: changed, cleared or marked failed during the chain calls above (a
    // participant replacing a compromised wallet in the portal), the payout is not signed to the old one.
    const now = await tx.participant.findUnique({ where: { id: c.participantId }, select: { walletAddress: true, walletFailedAt: true } });
    if (!now || now.walletAddress !== c.walletAddress || now.walletFailedAt) {
      exclude.delete(c.participantId);
      return { kind: "retry" };
    }
    const short = shortage(s, onChainWei, amountWei, quotedReserveWei);
    if (short) return refuse(tx, { ...base, chainId }, short, false);
    const nonce = await nextNonce(tx, s, chainNonce, genesis);
    const signed = await signUntaken(fees, (f) => signTransfer(s, { to: c.walletAddress as Address, value: amountWei, nonce, gasLimit, fees: f, chainId }), (hash) => payoutHashTaken(tx, hash));
    // An ETH pool pays its payouts' gas: reserved from it now (under the pool's lock), settled on
    // confirmation. A token's gas is the deposit address's ETH, outside the ledger.
    const reserveWei = isNative(s.asset) ? gasLimit * signed.fees.maxFeePerGas : 0n;
    const pool = reserveWei > 0n ? await lockPool(tx, s.businessId, s.environment) : null;
    const poolWei = pool ? await getBalanceWei(tx, s.businessId, s.environment) : 0n;
    if (pool && poolWei < reserveWei) {
      return refuse(tx, { ...base, chainId }, `INSUFFICIENT_POOL_FOR_GAS: the pool has ${weiToEth(poolWei)} ETH available; gas needs up to ${weiToEth(reserveWei)} ETH`, false);
    }
    const payout = await tx.payout.create({
      data: { ...base, status: "PENDING", chainId, chainGenesis: genesis, nonce, txHash: signed.txHash, rawTx: signed.rawTx, gasReservedWei: weiToDb(reserveWei) },
    });
    await recordTransaction(tx, payout.id, signed);
    await claimRewards(tx, payout.id, seen.rewardIds, "IN_PAYOUT");
    if (pool) await debitLedger(tx, pool, { businessId: s.businessId, environment: s.environment, amountWei: reserveWei, kind: "GAS", memo: `Gas reserved for payout ${payout.id} (tx ${signed.txHash})` });
    return { kind: "created", payout };
  }, TX_OPTIONS);
}

/**
 * A participant held back before anything is signed: an ETH payout whose gas would exceed
 * PAYOUT_MAX_GAS_PERCENT of what it pays (a token's amount and ETH's gas have no common unit
 * without a price: GAS_BALANCE_LOW and PAYOUT_MAX_GAS bound a token payout's gas instead).
 */
export function heldBack(s: Sender, participantId: string, amountWei: bigint, quotedReserveWei: bigint): SkippedPayout | null {
  const maxPercent = BigInt(env.payoutMaxGasPercent);
  if (!isNative(s.asset) || maxPercent <= 0n || quotedReserveWei * 100n <= amountWei * maxPercent) return null;
  return { participantId, code: "GAS_TOO_HIGH", message: `Held back: its gas (up to ${weiToEth(quotedReserveWei)} ETH) would exceed ${maxPercent}% of the ${weiToEth(amountWei)} ETH it pays (PAYOUT_MAX_GAS_PERCENT)` };
}

/** Why the deposit address cannot pay this payout (INSUFFICIENT_FUNDS), or null: the asset's holdings, and for ETH the gas on top. */
function shortage(s: Sender, heldUnits: bigint, amount: bigint, reserveWei: bigint): string | null {
  const a = s.asset;
  if (isNative(a)) {
    return heldUnits < amount + reserveWei ? `INSUFFICIENT_FUNDS: the deposit address holds ${weiToEth(heldUnits)} ETH; this payout needs ${weiToEth(amount)} ETH plus up to ${weiToEth(reserveWei)} ETH of gas` : null;
  }
  return heldUnits < amount ? `INSUFFICIENT_FUNDS: the deposit address holds ${amountOf(heldUnits, a)} ${a.symbol}; this payout needs ${amountOf(amount, a)} ${a.symbol}` : null;
}

/**
 * Signs the transfer. The same transfer at the same nonce and fees as a failed payout's signs to
 * the same bytes, whose hash is taken (PayoutTransaction.txHash is unique): a fee a wei higher
 * makes it a new transaction. Either can be mined, never both (one nonce).
 */
/** Moves exactly these PAYABLE rewards into the payout; any of them already taken aborts the transaction. */
export async function claimRewards(tx: Tx, payoutId: string, rewardIds: string[], to: "IN_PAYOUT" | "PAID_OUT") {
  const r = await tx.reward.updateMany({ where: { id: { in: rewardIds }, payoutStatus: "PAYABLE", payoutId: null }, data: { payoutStatus: to, payoutId } });
  if (r.count !== rewardIds.length) throw new AppError("CONFLICT", "A reward of this payout was taken by another payout; retry");
}

