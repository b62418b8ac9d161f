// Steps 2 and 3 of a batch payout, as settle.ts does them for a single payout: broadcast the
// recorded transaction (PENDING → SENT), then check it on chain: CONFIRMED after the required
// confirmations (each payout with its share of the gas), back after a reorg, replaced at the same
// nonce when stuck under the base fee, or FAILED while nothing of it can be mined. The batch's
// status changes first and its payouts follow in the same database transaction (a trigger holds
// them to it, migration 0220).
import { parseTransaction, type Hash, type Hex } from "viem";
import { db, type Tx } from "../../db/client";
import { isChainDown, onChain } from "../../chain/clients";
import { AppError } from "../../shared/errors";
import { env } from "../../shared/env";
import { toBigInt, weiToDb } from "../../shared/money";
import { isNative } from "../../shared/asset";
import { amountOf } from "../assets/read";
import { creditLedger, creditLedgerMany, getBalanceWei, lockPool } from "../ledger/service";
import { debitLedger } from "../rules/debit";
import { emitWebhookEvent } from "../webhooks/emit";
import { payoutWebhook } from "./list";
import { minedBatchVersion, recordBatchTransaction, rpcMessage, signCall, transactionOf, TX_OPTIONS, type Sender } from "./sender";
import { ALREADY_KNOWN, BUMP_DEN, BUMP_NUM, NONCE_USED, nonceUsed, settleGasReserve } from "./settle";

type BatchRow = Awaited<ReturnType<typeof db.payoutBatch.findUniqueOrThrow>>;

/** Sends the batch's recorded raw transaction. PENDING → SENT (its payouts too, each with payout.sent). */
export async function broadcastBatch(s: Sender, batchId: string): Promise<BatchRow> {
  const b = await db.payoutBatch.findUniqueOrThrow({ where: { id: batchId } });
  if (b.status !== "PENDING" && b.status !== "SENT") return b;
  try {
    await s.client.sendRawTransaction({ serializedTransaction: b.rawTx as Hex });
  } catch (e) {
    if (isChainDown(e)) throw new AppError("CHAIN_UNAVAILABLE", `The ${s.environment} chain is not reachable (sendRawTransaction); try again shortly`, { environment: s.environment });
    const msg = rpcMessage(e);
    const why = String((e as { shortMessage?: string }).shortMessage ?? (e as Error).message).slice(0, 300);
    if (ALREADY_KNOWN.test(msg)) {
      // The node has it already: success.
    } else if (b.status === "SENT") {
      if (!NONCE_USED.test(msg)) await db.payoutBatch.update({ where: { id: b.id }, data: { error: `Rebroadcast refused: ${why}` } });
      return db.payoutBatch.findUniqueOrThrow({ where: { id: b.id } });
    } else if (!(await minedBatchVersion(s, b.id)) && !(await heldByNode(s, b.id))) {
      // PENDING and nothing of it on the node: it fails, its payouts' rewards are payable again.
      if (NONCE_USED.test(msg) || (await nonceUsed(s, b.nonce))) return failBatch(s, b.id, `NONCE_CONSUMED: nonce ${b.nonce} of ${s.address} was used by another transaction; nothing was sent`);
      return failBatch(s, b.id, `BROADCAST_REJECTED: ${why}`);
    }
  }
  await db.$transaction(async (tx) => {
    const at = new Date();
    const r = await tx.payoutBatch.updateMany({ where: { id: b.id, status: "PENDING" }, data: { status: "SENT", sentAt: at } });
    if (r.count !== 1) return;
    await tx.payout.updateMany({ where: { batchId: b.id, status: "PENDING" }, data: { status: "SENT", sentAt: at } });
    for (const p of await tx.payout.findMany({ where: { batchId: b.id }, orderBy: { id: "asc" } })) await emitWebhookEvent(tx, payoutWebhook("payout.sent", p, s.asset)); // webhook
  }, TX_OPTIONS);
  return db.payoutBatch.findUniqueOrThrow({ where: { id: b.id } });
}

async function heldByNode(s: Sender, batchId: string): Promise<boolean> {
  const versions = await db.payoutBatchTransaction.findMany({ where: { batchId }, select: { txHash: true } });
  for (const v of versions) if (await transactionOf(s, v.txHash as Hash)) return true;
  return false;
}

/** Each payout's share of the batch's gas: equal parts, the first ones a wei more until it adds up. */
export function gasShares(totalWei: bigint, n: number): bigint[] {
  if (n === 0) return [];
  const each = totalWei / BigInt(n);
  const rest = Number(totalWei % BigInt(n));
  return Array.from({ length: n }, (_, i) => each + (i < rest ? 1n : 0n));
}

/**
 * FAILED, only while nothing of the batch can be mined (PENDING never taken by the node, or SENT
 * and reverted on chain): every payout of it fails with the reason, its rewards return to
 * PAYABLE, what was reversed of them meanwhile returns to the pool, and the gas reserve less what
 * a reverted transaction burnt returns to the pool. No wallet is blamed: the next run simulates
 * again and refuses the one that reverts.
 */
async function failBatch(s: Sender, batchId: string, reason: string, from: "PENDING" | "SENT" = "PENDING", gasSpentWei = 0n): Promise<BatchRow> {
  await db.$transaction(async (tx) => {
    await lockPool(tx, s.businessId, s.environment);
    const at = new Date();
    const r = await tx.payoutBatch.updateMany({ where: { id: batchId, status: from }, data: { status: "FAILED", error: reason.slice(0, 1000), failedAt: at, gasWei: gasSpentWei > 0n ? weiToDb(gasSpentWei) : undefined } });
    if (r.count !== 1) return;
    const b = await tx.payoutBatch.findUniqueOrThrow({ where: { id: batchId } });
    const payouts = await tx.payout.findMany({ where: { batchId }, orderBy: { id: "asc" } });
    const shares = gasShares(gasSpentWei, payouts.length);
    for (const [i, p] of payouts.entries()) {
      const failed = await tx.payout.update({ where: { id: p.id }, data: { status: "FAILED", error: reason.slice(0, 1000), failedAt: at, gasWei: gasSpentWei > 0n ? weiToDb(shares[i]) : undefined } });
      await emitWebhookEvent(tx, payoutWebhook("payout.failed", failed, s.asset)); // webhook
    }
    const ids = payouts.map((p) => p.id);
    await tx.reward.updateMany({ where: { payoutId: { in: ids }, payoutStatus: "IN_PAYOUT" }, data: { payoutStatus: "PAYABLE", payoutId: null } });
    const back = await tx.rewardReversal.updateManyAndReturn({ where: { rewardId: { in: payouts.flatMap((p) => p.rewardIds) }, outcome: "CLAWBACK" }, data: { outcome: "RETURNED_TO_POOL" } });
    await tx.reward.updateMany({ where: { payoutId: { in: ids }, payoutStatus: "REVERSED" }, data: { payoutId: null } });
    const credits = back
      .filter((v) => toBigInt(v.amountWei) > 0n)
      .map((v) => ({ amountWei: toBigInt(v.amountWei), kind: "REVERSAL" as const, memo: `Reversed reward ${v.rewardId} returned to the pool (its batch payout failed)` }));
    if (credits.length) await creditLedgerMany(tx, { businessId: s.businessId, environment: s.environment }, credits);
    const refund = toBigInt(b.gasReservedWei) - gasSpentWei;
    if (refund > 0n) await creditLedger(tx, { businessId: s.businessId, environment: s.environment, amountWei: refund, kind: "GAS", memo: `Gas reserve of failed batch ${batchId} returned` });
    else if (refund < 0n && isNative(s.asset)) {
      const pool = await lockPool(tx, s.businessId, s.environment);
      await debitLedger(tx, pool, { businessId: s.businessId, environment: s.environment, amountWei: -refund, kind: "GAS", memo: `Gas of failed batch ${batchId} above its reserve` });
    }
  }, TX_OPTIONS);
  return db.payoutBatch.findUniqueOrThrow({ where: { id: batchId } });
}

/** Checks a SENT batch on chain and moves it on: CONFIRMED, back (reorg), replaced (stuck fee), or as it is. */
export async function checkBatch(s: Sender, batchId: string, now = new Date()): Promise<BatchRow> {
  const b = await db.payoutBatch.findUniqueOrThrow({ where: { id: batchId } });
  if (b.status !== "SENT") return b;
  const mined = await minedBatchVersion(s, b.id);
  if (mined) {
    const { receipt, version } = mined;
    const gasSpentWei = receipt.gasUsed * receipt.effectiveGasPrice;
    const head = await onChain(s.target, "getBlockNumber", () => s.client.getBlockNumber({ cacheTime: 0 }));
    if (Number(head - receipt.blockNumber + 1n) < s.target.confirmations) {
      await db.payoutBatch.update({ where: { id: b.id }, data: { blockNumber: receipt.blockNumber, txHash: version.txHash, rawTx: version.rawTx } });
      return db.payoutBatch.findUniqueOrThrow({ where: { id: b.id } });
    }
    if (receipt.status !== "success") return failBatch(s, b.id, `TX_REVERTED: batch transaction ${version.txHash} reverted on chain; its participants are paid by a later run`, "SENT", gasSpentWei);
    await confirmBatch(s, b, version.txHash, receipt.blockNumber, gasSpentWei, now);
    return db.payoutBatch.findUniqueOrThrow({ where: { id: b.id } });
  }
  if (b.blockNumber !== null) {
    await db.payoutBatch.update({ where: { id: b.id }, data: { blockNumber: null, error: `Dropped from block ${b.blockNumber} by a chain reorganisation; rebroadcast` } });
    await db.payout.updateMany({ where: { batchId: b.id, status: "SENT" }, data: { blockNumber: null } });
  }
  const latest = await db.payoutBatchTransaction.findFirst({ where: { batchId: b.id }, orderBy: { createdAt: "desc" } });
  if (latest && b.sentAt && now.getTime() - b.sentAt.getTime() >= env.payoutStuckAfterMs) {
    const block = await onChain(s.target, "getBlock", () => s.client.getBlock({ blockTag: "latest" }));
    const base = block.baseFeePerGas ?? 0n;
    if (toBigInt(latest.maxFeePerGas) < base) await replaceStuckBatch(s, b, latest, base);
  }
  return broadcastBatch(s, b.id);
}

async function confirmBatch(s: Sender, b: BatchRow, txHash: string, blockNumber: bigint, gasSpentWei: bigint, now: Date) {
  await db.$transaction(async (tx) => {
    await lockPool(tx, s.businessId, s.environment);
    const r = await tx.payoutBatch.updateMany({ where: { id: b.id, status: "SENT" }, data: { status: "CONFIRMED", confirmedAt: now, txHash, blockNumber, gasWei: weiToDb(gasSpentWei), error: null } });
    if (r.count !== 1) return;
    const current = await tx.payoutBatch.findUniqueOrThrow({ where: { id: b.id } });
    const payouts = await tx.payout.findMany({ where: { batchId: b.id }, orderBy: { id: "asc" } });
    const shares = gasShares(gasSpentWei, payouts.length);
    for (const [i, p] of payouts.entries()) {
      const done = await tx.payout.update({ where: { id: p.id }, data: { status: "CONFIRMED", confirmedAt: now, txHash, blockNumber, gasWei: weiToDb(shares[i]), error: null } });
      await emitWebhookEvent(tx, payoutWebhook("payout.confirmed", done, s.asset)); // webhook
    }
    await tx.reward.updateMany({ where: { payoutId: { in: payouts.map((p) => p.id) }, payoutStatus: "IN_PAYOUT" }, data: { payoutStatus: "PAID_OUT" } });
    // An approval's or a token batch's gas is the deposit address's ETH, outside the ledger.
    if (isNative(s.asset) && current.kind === "ETH") await settleGasReserve(tx, s, `batch ${b.id}`, toBigInt(current.gasReservedWei), gasSpentWei);
    const offsets = payouts
      .filter((p) => toBigInt(p.offsetWei) > 0n)
      .map((p) => ({ amountWei: toBigInt(p.offsetWei), kind: "REVERSAL" as const, memo: `Payout ${p.id}: ${amountOf(p.offsetWei, s.asset)} ${s.asset.symbol} of rewards kept to offset clawed-back rewards` }));
    if (offsets.length) await creditLedgerMany(tx, { businessId: s.businessId, environment: s.environment }, offsets);
  }, TX_OPTIONS);
}

/** Replaces a batch stuck under the base fee: the same call at the same nonce, higher fees; an ETH batch's extra reserve from the pool. */
async function replaceStuckBatch(s: Sender, b: BatchRow, latest: { rawTx: string; maxFeePerGas: { toFixed(): string }; maxPriorityFeePerGas: { toFixed(): string }; gasLimit: { toFixed(): string } }, baseFee: bigint) {
  const parsed = parseTransaction(latest.rawTx as Hex);
  const gasLimit = toBigInt(latest.gasLimit);
  const tip = (toBigInt(latest.maxPriorityFeePerGas) * BUMP_NUM) / BUMP_DEN + 1n;
  const bumped = (toBigInt(latest.maxFeePerGas) * BUMP_NUM) / BUMP_DEN + 1n;
  const fees = { maxPriorityFeePerGas: tip, maxFeePerGas: bumped > baseFee * 2n + tip ? bumped : baseFee * 2n + tip };
  const signed = await signCall(s, { to: parsed.to!, value: parsed.value ?? 0n, data: parsed.data }, { nonce: b.nonce, gasLimit, fees, chainId: b.chainId });
  const extraReserve = isNative(s.asset) && b.kind === "ETH" ? gasLimit * fees.maxFeePerGas - toBigInt(b.gasReservedWei) : 0n;
  await db.$transaction(async (tx: Tx) => {
    const pool = await lockPool(tx, s.businessId, s.environment);
    if (extraReserve > 0n && (await getBalanceWei(tx, s.businessId, s.environment)) < extraReserve) return;
    const r = await tx.payoutBatch.updateMany({
      where: { id: b.id, status: "SENT", txHash: b.txHash },
      data: { txHash: signed.txHash, rawTx: signed.rawTx, gasReservedWei: extraReserve > 0n ? weiToDb(gasLimit * fees.maxFeePerGas) : undefined, error: `Replaced a transaction stuck under the base fee (${b.txHash})` },
    });
    if (r.count !== 1) return;
    await tx.payout.updateMany({ where: { batchId: b.id }, data: { txHash: signed.txHash } });
    await recordBatchTransaction(tx, b.id, signed);
    if (extraReserve > 0n) await debitLedger(tx, pool, { businessId: s.businessId, environment: s.environment, amountWei: extraReserve, kind: "GAS", memo: `Extra gas reserved to replace the stuck transaction of batch ${b.id}` });
  }, TX_OPTIONS);
}

/** Brings every unfinished batch of the sender forward (approvals included): broadcast PENDING, check SENT. */
export async function settleBatches(s: Sender): Promise<void> {
  const open = await db.payoutBatch.findMany({
    where: { businessId: s.businessId, environment: s.environment, status: { in: ["PENDING", "SENT"] } },
    orderBy: [{ nonce: "asc" }, { createdAt: "asc" }],
    select: { id: true, status: true },
  });
  for (const b of open) {
    if (b.status === "PENDING") await broadcastBatch(s, b.id);
    else await checkBatch(s, b.id);
  }
}
