// Steps 2 and 3 of a payout: broadcast the recorded transaction (PENDING → SENT), then check it
// on chain (CONFIRMED, back after a reorg, replaced when stuck under the base fee), or FAILED
// while nothing of it can be mined.
import type { Address, Hash, Hex } from "viem";
import { db, type Tx } from "../../db/client";
import { isChainDown, onChain } from "../../chain/clients";
import { AppError } from "../../shared/errors";
import { env } from "../../shared/env";
import { toBigInt, weiToDb, weiToEth } from "../../shared/money";
import { isNative } from "../../shared/asset";
import { amountOf } from "../assets/read";
import { creditLedger, creditLedgerMany, getBalanceWei, lockPool } from "../ledger/service";
import { debitLedger } from "../rules/debit";
import { emitWebhookEvent } from "../webhooks/emit";
import { markWalletFailed } from "./create";
import { broadcastBatch, checkBatch, settleBatches } from "./batch-settle";
import { payoutWebhook, type PayoutRow } from "./list";
import { minedVersion, recordTransaction, rpcMessage, signTransfer, transactionOf, TX_OPTIONS, type Sender } from "./sender";

/** Fee bump of a replacement: nodes require at least +10% on both fees; use +25%. */
export const BUMP_NUM = 125n;
export const BUMP_DEN = 100n;

export const ALREADY_KNOWN = /already ?known|known transaction|already imported|already in (the )?(mempool|pool)|transaction already exists/i;
export const NONCE_USED = /nonce too low|nonce has already been used|NONCE_EXPIRED|nonce.*(is )?lower than/i;
/**
 * Sends the payout's recorded raw transaction. PENDING → SENT. The chain down leaves it as it
 * is (503 to the caller); a definitive rejection of a PENDING payout fails it.
 */
export async function broadcastPayout(s: Sender, payoutId: string): Promise<PayoutRow> {
  const p = await db.payout.findUniqueOrThrow({ where: { id: payoutId } });
  if (p.batchId && (p.status === "PENDING" || p.status === "SENT")) {
    // One of a batch: the batch's transaction is what is sent (batch-settle.ts).
    await broadcastBatch(s, p.batchId);
    return db.payout.findUniqueOrThrow({ where: { id: p.id } });
  }
  if ((p.status !== "PENDING" && p.status !== "SENT") || !p.rawTx) return p;
  try {
    await s.client.sendRawTransaction({ serializedTransaction: p.rawTx as Hex });
  } catch (e) {
    // Unreachable node: stays as it is (503 to the caller), resent by the next run.
    if (isChainDown(e)) throw new AppError("CHAIN_UNAVAILABLE", `The ${s.environment} chain is not reachable (sendRawTransaction); try again shortly`, { environment: s.environment });
    const msg = rpcMessage(e);
    if (ALREADY_KNOWN.test(msg)) {
      // The node has it already (a rebroadcast, or a concurrent run sent it): success.
    } else if (NONCE_USED.test(msg)) {
      // Our nonce is used: by this payout (mined before a crash, or by a concurrent run) or, if
      // none of its versions is mined, by something else.
      const mined = await minedVersion(s, p.id);
      if (!mined) {
        if (p.status === "PENDING") return failPayout(s, p.id, `NONCE_CONSUMED: nonce ${p.nonce} of ${s.address} was used by another transaction; nothing was sent`);
        return p;
      }
    } else if (p.status === "PENDING") {
      // An answer we do not recognise (a node's own wording of "already known", an internal
      // error after accepting it): the payout fails only when nothing of it can still be mined.
      // A version the node holds (pending or mined) was sent, by this call or a concurrent run.
      if (!(await heldByNode(s, p.id))) {
        const why = (e as { shortMessage?: string }).shortMessage ?? String((e as Error).message);
        if (await nonceUsed(s, p.nonce)) return failPayout(s, p.id, `NONCE_CONSUMED: nonce ${p.nonce} of ${s.address} was used by another transaction; nothing was sent`);
        return failPayout(s, p.id, `BROADCAST_REJECTED: ${why.slice(0, 300)}`);
      }
    } else {
      await db.payout.update({ where: { id: p.id }, data: { error: `Rebroadcast refused: ${String((e as { shortMessage?: string }).shortMessage ?? (e as Error).message).slice(0, 300)}` } });
      return db.payout.findUniqueOrThrow({ where: { id: p.id } });
    }
  }
  // PENDING → SENT and its payout.sent event commit together (once: a rebroadcast finds it SENT).
  await db.$transaction(async (tx) => {
    const r = await tx.payout.updateMany({ where: { id: p.id, status: "PENDING" }, data: { status: "SENT", sentAt: new Date() } });
    if (r.count === 1) await emitWebhookEvent(tx, payoutWebhook("payout.sent", await tx.payout.findUniqueOrThrow({ where: { id: p.id } }), s.asset)); // webhook
  }, TX_OPTIONS);
  return db.payout.findUniqueOrThrow({ where: { id: p.id } });
}

/** True when the node holds a signed version of the payout, pending or mined. */
async function heldByNode(s: Sender, payoutId: string): Promise<boolean> {
  const versions = await db.payoutTransaction.findMany({ where: { payoutId }, select: { txHash: true } });
  for (const v of versions) if (await transactionOf(s, v.txHash as Hash)) return true;
  return false;
}

/** True when the sending address has a mined transaction at `nonce` (its mined count is past it). */
export async function nonceUsed(s: Sender, nonce: number | null): Promise<boolean> {
  if (nonce === null) return false;
  const mined = await onChain(s.target, "getTransactionCount", () => s.client.getTransactionCount({ address: s.address, blockTag: "latest" }));
  return mined > nonce;
}

/**
 * FAILED, only for a payout that nothing can still mine (PENDING: never accepted by the node, or
 * SENT and reverted on chain; `walletFault` marks the wallet so runs skip it until it changes):
 * its rewards return to PAYABLE, its gas reserve (less gasSpentWei, when a reverted transaction
 * did burn gas) to the pool, and what was reversed of its rewards meanwhile returns to the pool too.
 */
async function failPayout(s: Sender, payoutId: string, reason: string, from: "PENDING" | "SENT" = "PENDING", gasSpentWei = 0n, walletFault = false): Promise<PayoutRow> {
  await db.$transaction(async (tx) => {
    await lockPool(tx, s.businessId, s.environment);
    const r = await tx.payout.updateMany({
      where: { id: payoutId, status: from },
      data: { status: "FAILED", error: reason.slice(0, 1000), failedAt: new Date(), gasWei: gasSpentWei > 0n ? weiToDb(gasSpentWei) : undefined },
    });
    if (r.count !== 1) return;
    const p = await tx.payout.findUniqueOrThrow({ where: { id: payoutId } });
    if (walletFault) await markWalletFailed(tx, p.participantId, p.walletAddress, reason, p.failedAt!);
    await emitWebhookEvent(tx, payoutWebhook("payout.failed", p, s.asset)); // webhook
    await tx.reward.updateMany({ where: { payoutId, payoutStatus: "IN_PAYOUT" }, data: { payoutStatus: "PAYABLE", payoutId: null } });
    // Reversed (wholly or in part) while in this payout: never paid out after all, so those
    // clawbacks go back to the pool (the trigger moves them into each reward's returnedWei).
    const back = await tx.rewardReversal.updateManyAndReturn({ where: { rewardId: { in: p.rewardIds }, outcome: "CLAWBACK" }, data: { outcome: "RETURNED_TO_POOL" } });
    await tx.reward.updateMany({ where: { payoutId, payoutStatus: "REVERSED" }, data: { payoutId: null } });
    const credits = back
      .filter((v) => toBigInt(v.amountWei) > 0n)
      .map((v) => ({ amountWei: toBigInt(v.amountWei), kind: "REVERSAL" as const, memo: `Reversed reward ${v.rewardId} returned to the pool (its payout failed)` }));
    if (credits.length) await creditLedgerMany(tx, { businessId: s.businessId, environment: s.environment }, credits);
    const refund = toBigInt(p.gasReservedWei) - gasSpentWei;
    if (refund > 0n) {
      await creditLedger(tx, { businessId: s.businessId, environment: s.environment, amountWei: refund, kind: "GAS", memo: `Gas reserve of failed payout ${payoutId} returned` });
    }
  }, TX_OPTIONS);
  return db.payout.findUniqueOrThrow({ where: { id: payoutId } });
}

// ───────────── step 3: check (confirm, reorg, stuck fee) ─────────────

/** Checks a SENT payout on chain and moves it on: CONFIRMED, back (reorg), replaced (stuck fee), or as it is. */
export async function checkPayout(s: Sender, payoutId: string, now = new Date()): Promise<PayoutRow> {
  const p = await db.payout.findUniqueOrThrow({ where: { id: payoutId } });
  if (p.status !== "SENT") return p;
  if (p.batchId) {
    await checkBatch(s, p.batchId, now);
    return db.payout.findUniqueOrThrow({ where: { id: p.id } });
  }
  const mined = await minedVersion(s, p.id);
  if (mined) {
    const { receipt, version } = mined;
    const gasSpentWei = receipt.gasUsed * receipt.effectiveGasPrice;
    // A reverted transfer waits for its confirmations too: a reorg may mine the same transaction
    // again, and a receiver whose behaviour depends on state may then accept it.
    const head = await onChain(s.target, "getBlockNumber", () => s.client.getBlockNumber({ cacheTime: 0 }));
    const confirmations = Number(head - receipt.blockNumber + 1n);
    if (confirmations < s.target.confirmations) {
      await db.payout.update({ where: { id: p.id }, data: { blockNumber: receipt.blockNumber, txHash: version.txHash, rawTx: version.rawTx } });
      return db.payout.findUniqueOrThrow({ where: { id: p.id } });
    }
    if (receipt.status !== "success") {
      // The receiver (or the token, for a token payout) refused: nothing was transferred, the gas is spent.
      return failPayout(s, p.id, `TX_REVERTED: the wallet ${p.walletAddress} refused the transfer (tx ${version.txHash}); runs skip this participant until their wallet changes`, "SENT", gasSpentWei, true);
    }
    await confirmPayout(s, p, version.txHash, receipt.blockNumber, gasSpentWei, now);
    return db.payout.findUniqueOrThrow({ where: { id: p.id } });
  }
  // Not mined (any more).
  if (p.blockNumber !== null) {
    await db.payout.update({
      where: { id: p.id },
      data: { blockNumber: null, error: `Dropped from block ${p.blockNumber} by a chain reorganisation; rebroadcast` },
    });
  }
  const latest = await db.payoutTransaction.findFirst({ where: { payoutId: p.id }, orderBy: { createdAt: "desc" } });
  if (latest && p.sentAt && now.getTime() - p.sentAt.getTime() >= env.payoutStuckAfterMs) {
    const block = await onChain(s.target, "getBlock", () => s.client.getBlock({ blockTag: "latest" }));
    const base = block.baseFeePerGas ?? 0n;
    if (toBigInt(latest.maxFeePerGas) < base) return replaceStuck(s, p, latest, base);
  }
  return broadcastPayout(s, p.id);
}

async function confirmPayout(s: Sender, p: PayoutRow, txHash: string, blockNumber: bigint, gasSpentWei: bigint, now: Date) {
  await db.$transaction(async (tx) => {
    await lockPool(tx, s.businessId, s.environment);
    const r = await tx.payout.updateMany({
      where: { id: p.id, status: "SENT" },
      data: { status: "CONFIRMED", confirmedAt: now, txHash, blockNumber, gasWei: weiToDb(gasSpentWei), error: null },
    });
    if (r.count !== 1) return;
    // Read again under the pool lock: a replacement of a stuck transaction may have raised the reserve since `p` was read.
    const current = await tx.payout.findUniqueOrThrow({ where: { id: p.id } });
    await emitWebhookEvent(tx, payoutWebhook("payout.confirmed", current, s.asset)); // webhook
    await tx.reward.updateMany({ where: { payoutId: p.id, payoutStatus: "IN_PAYOUT" }, data: { payoutStatus: "PAID_OUT" } });
    // A token's gas is the deposit address's ETH, outside the ledger: nothing to settle.
    if (isNative(s.asset)) await settleGasReserve(tx, s, `payout ${p.id}`, toBigInt(current.gasReservedWei), gasSpentWei);
    const offset = toBigInt(p.offsetWei);
    if (offset > 0n) {
      await creditLedger(tx, { businessId: s.businessId, environment: s.environment, amountWei: offset, kind: "REVERSAL", memo: `Payout ${p.id}: ${amountOf(offset, s.asset)} ${s.asset.symbol} of rewards kept to offset clawed-back rewards` });
    }
  }, TX_OPTIONS);
}

/** An ETH payout's gas in the ledger: the unused reserve back to the pool, or what it used above it debited. */
export async function settleGasReserve(tx: Tx, s: Sender, what: string, reserve: bigint, gasSpentWei: bigint) {
  if (reserve > gasSpentWei) {
    await creditLedger(tx, { businessId: s.businessId, environment: s.environment, amountWei: reserve - gasSpentWei, kind: "GAS", memo: `Unused gas reserve of ${what} returned (used ${weiToEth(gasSpentWei)} ETH)` });
  } else if (gasSpentWei > reserve) {
    const pool = await lockPool(tx, s.businessId, s.environment);
    await debitLedger(tx, pool, { businessId: s.businessId, environment: s.environment, amountWei: gasSpentWei - reserve, kind: "GAS", memo: `Gas of ${what} above its reserve` });
  }
}

/** Replaces a transaction stuck under the base fee: same nonce, same transfer, higher fees. */
async function replaceStuck(s: Sender, p: PayoutRow, latest: { maxFeePerGas: { toFixed(): string }; maxPriorityFeePerGas: { toFixed(): string }; gasLimit: { toFixed(): string } }, baseFee: bigint): Promise<PayoutRow> {
  const oldMax = toBigInt(latest.maxFeePerGas);
  const oldTip = toBigInt(latest.maxPriorityFeePerGas);
  const gasLimit = toBigInt(latest.gasLimit);
  const tip = (oldTip * BUMP_NUM) / BUMP_DEN + 1n;
  const bumped = (oldMax * BUMP_NUM) / BUMP_DEN + 1n;
  const fees = { maxPriorityFeePerGas: tip, maxFeePerGas: bumped > baseFee * 2n + tip ? bumped : baseFee * 2n + tip };
  const signed = await signTransfer(s, { to: p.walletAddress as Address, value: toBigInt(p.amountWei), nonce: p.nonce!, gasLimit, fees, chainId: p.chainId! });
  // Only an ETH pool reserves its payouts' gas (create.ts).
  const extraReserve = isNative(s.asset) ? gasLimit * fees.maxFeePerGas - toBigInt(p.gasReservedWei) : 0n;
  const ok = await db.$transaction(async (tx) => {
    const pool = await lockPool(tx, s.businessId, s.environment);
    if (extraReserve > 0n && (await getBalanceWei(tx, s.businessId, s.environment)) < extraReserve) return false;
    const r = await tx.payout.updateMany({
      where: { id: p.id, status: "SENT", txHash: p.txHash },
      data: { txHash: signed.txHash, rawTx: signed.rawTx, gasReservedWei: extraReserve > 0n ? weiToDb(gasLimit * fees.maxFeePerGas) : undefined, error: `Replaced a transaction stuck under the base fee (${p.txHash})` },
    });
    if (r.count !== 1) return false;
    await recordTransaction(tx, p.id, signed);
    if (extraReserve > 0n) {
      await debitLedger(tx, pool, { businessId: s.businessId, environment: s.environment, amountWei: extraReserve, kind: "GAS", memo: `Extra gas reserved to replace the stuck transaction of payout ${p.id}` });
    }
    return true;
  }, TX_OPTIONS);
  if (!ok) return broadcastPayout(s, p.id);
  return broadcastPayout(s, p.id);
}

// ───────────── every open payout ─────────────

/** Brings every unfinished payout and batch of the sender forward: broadcast PENDING, check SENT. */
export async function settlePayouts(s: Sender): Promise<void> {
  await settleBatches(s);
  const open = await db.payout.findMany({
    where: { businessId: s.businessId, environment: s.environment, status: { in: ["PENDING", "SENT"] }, batchId: null },
    orderBy: [{ nonce: "asc" }, { createdAt: "asc" }],
    select: { id: true, status: true },
  });
  for (const p of open) {
    if (p.status === "PENDING") await broadcastPayout(s, p.id);
    else await checkPayout(s, p.id);
  }
}

