// On-chain payouts: the payable rewards of each participant with a wallet become one transfer
// from the business's deposit address (key derived from DEPOSIT_MNEMONIC) to the wallet.
//
// Exactly once, whatever crashes:
//  1. create (one DB transaction, under the per-sender row lock PayoutSender … FOR UPDATE): the
//     nonce is max(chain pending count, highest recorded live nonce + 1); the transaction is
//     signed and recorded (hash, nonce, raw) as PENDING with its rewards IN_PAYOUT and the gas
//     reserve debited from the pool. Nothing is broadcast before this commits, so a crash before
//     the commit leaves nothing anywhere, and a discarded signature can never be mined: its
//     nonce is used by the transaction that is recorded next.
//  2. broadcast: the recorded raw transaction, as is (a rebroadcast after a crash sends the same
//     bytes; "already known" / mined is success). PENDING → SENT. While a payout of a sender is
//     PENDING no other payout is created for it, so nonces never leave a gap behind a failure.
//  3. check: a mined transaction becomes CONFIRMED after the required confirmations (the gas
//     actually used is settled in the ledger); a mined transaction that disappeared (reorg) is
//     sent back (blockNumber cleared, the same raw transaction rebroadcast); one stuck under the
//     network's base fee is replaced at the same nonce with higher fees (every signed version is
//     kept in PayoutTransaction, so whichever is mined is found).
// A payout is FAILED only while nothing of it can be mined: refused before signing (not enough
// ETH on chain or in the pool for gas), or its first broadcast rejected by the node; its rewards
// return to PAYABLE and its gas reserve to the pool.
import { keccak256, type Address, type Hash, type Hex, type PublicClient, TransactionReceiptNotFoundError } from "viem";
import type { HDAccount } from "viem/accounts";
import { db, type Tx } from "../../db/client";
import type { Payout } from "../../db/generated";
import { isChainDown, onChain, publicClientFor, requireChainTarget, type ChainTarget } from "../../chain/clients";
import { depositAccountFor } from "../../chain/deposit-address";
import { AppError, notFound } from "../../shared/errors";
import { env } from "../../shared/env";
import type { Environment } from "../../shared/environment";
import { checkCursor, pageArgs, toPage } from "../../shared/list-page";
import { toBigInt, weiToDb, weiToEth } from "../../shared/money";
import { loadConfig } from "../config/effective";
import { creditLedger, debitLedger, getBalanceWei, lockPool } from "../ledger/service";
import { emitWebhookEvent, type WebhookEvent } from "../webhooks/emit";
import type { ListPayoutsInput, PayoutOutput } from "./schemas";

const TX_OPTIONS = { timeout: 60_000, maxWait: 60_000 };
/** Fee bump of a replacement: nodes require at least +10% on both fees; use +25%. */
const BUMP_NUM = 125n;
const BUMP_DEN = 100n;
const MAX_PAYOUTS_PER_RUN = 500;

export interface Sender {
  businessId: string;
  /** Read once per run (runPayouts) so that the locked section makes fewer chain calls. */
  chainId?: number;
  fees?: FeeQuote;
  environment: Environment;
  target: ChainTarget;
  account: HDAccount;
  address: Address;
  client: PublicClient;
}

/** The business's sending account for an environment, or 503 CHAIN_UNAVAILABLE with the reason. */
export async function senderFor(businessId: string, environment: Environment): Promise<Sender> {
  const target = requireChainTarget(environment);
  const b = await db.business.findUnique({ where: { id: businessId }, select: { depositIndex: true } });
  if (!b) throw notFound("Business");
  const account = depositAccountFor(environment, b.depositIndex);
  if (!account) throw new AppError("CHAIN_UNAVAILABLE", `No ${environment} deposit key can be derived: check DEPOSIT_MNEMONIC`, { environment });
  return { businessId, environment, target, account, address: account.address, client: publicClientFor(target.rpcUrl) };
}

// ───────────── outputs ─────────────

type PayoutRow = Payout;

export function toPayoutOutput(p: PayoutRow): PayoutOutput {
  return {
    payoutId: p.id,
    environment: p.environment,
    participantId: p.participantId,
    walletAddress: p.walletAddress,
    amountEth: weiToEth(p.amountWei),
    rewardsEth: weiToEth(p.rewardsWei),
    offsetEth: weiToEth(p.offsetWei),
    gasEth: p.gasWei === null ? null : weiToEth(p.gasWei),
    status: p.status,
    txHash: p.txHash,
    nonce: p.nonce,
    fromAddress: p.fromAddress,
    blockNumber: p.blockNumber === null ? null : p.blockNumber.toString(),
    rewardIds: p.rewardIds,
    error: p.error,
    createdAt: p.createdAt.toISOString(),
    sentAt: p.sentAt?.toISOString() ?? null,
    confirmedAt: p.confirmedAt?.toISOString() ?? null,
    failedAt: p.failedAt?.toISOString() ?? null,
  };
}

/** The payout.* webhook event of a payout row (its data: the payout as GET /business/payouts lists it). */
const payoutWebhook = (type: "payout.sent" | "payout.confirmed" | "payout.failed", p: PayoutRow): WebhookEvent => ({
  businessId: p.businessId,
  environment: p.environment,
  type,
  data: { ...toPayoutOutput(p) },
});

export async function listPayouts(businessId: string, q: ListPayoutsInput) {
  await checkCursor(q.cursor, (id) => db.payout.findFirst({ where: { id, businessId, environment: q.environment }, select: { id: true } }));
  const rows = await db.payout.findMany({
    where: { businessId, environment: q.environment, status: q.status, participantId: q.participantId },
    ...pageArgs(q.limit, q.cursor),
  });
  return toPage(rows, q.limit, toPayoutOutput);
}

// ───────────── step 0: holds ─────────────

/** Rewards whose holding period is over become PAYABLE. */
export async function releaseHolds(businessId: string, environment: Environment, now = new Date()): Promise<number> {
  const r = await db.reward.updateMany({
    where: { businessId, environment, payoutStatus: "ON_HOLD", payableAt: { lte: now } },
    data: { payoutStatus: "PAYABLE" },
  });
  return r.count;
}

// ───────────── step 1: create (sign and record) ─────────────

async function lockSender(tx: Tx, s: Sender) {
  await tx.$executeRaw`
    INSERT INTO "PayoutSender" ("environment", "address", "businessId", "createdAt")
    VALUES (${s.environment}::"Environment", ${s.address}, ${s.businessId}, now())
    ON CONFLICT ("environment", "address") DO NOTHING`;
  await tx.$queryRaw`SELECT "address" FROM "PayoutSender" WHERE "environment" = ${s.environment}::"Environment" AND "address" = ${s.address} FOR UPDATE`;
}

/** What a participant still owes back from reversed rewards that had been paid out, not yet offset by a payout. */
export async function participantDebtWei(client: Tx | typeof db, participantId: string): Promise<bigint> {
  const rows = await client.$queryRaw<Array<{ debt: string }>>`
    SELECT (
      COALESCE((SELECT SUM("amountWei") FROM "RewardReversal" WHERE "participantId" = ${participantId} AND "outcome" = 'CLAWBACK'), 0)
      - COALESCE((SELECT SUM("offsetWei") FROM "Payout" WHERE "participantId" = ${participantId} AND "status" <> 'FAILED'), 0)
    )::text AS "debt"`;
  const d = toBigInt(rows[0]?.debt ?? "0");
  return d > 0n ? d : 0n;
}

export interface FeeQuote {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** EIP-1559 fees: twice the current base fee plus the tip, so a rising base fee does not strand it. */
export async function quoteFees(s: Sender): Promise<FeeQuote> {
  return onChain(s.target, "fees", async () => {
    const block = await s.client.getBlock({ blockTag: "latest" });
    const base = block.baseFeePerGas ?? (await s.client.getGasPrice());
    let tip: bigint;
    try {
      tip = await s.client.estimateMaxPriorityFeePerGas();
    } catch {
      tip = 1_000_000_000n;
    }
    if (tip <= 0n) tip = 1n;
    return { maxFeePerGas: base * 2n + tip, maxPriorityFeePerGas: tip };
  });
}

async function gasLimitFor(s: Sender, to: Address, value: bigint): Promise<bigint> {
  return onChain(s.target, "estimateGas", async () => {
    try {
      // A plain transfer costs 21 000; a contract wallet may need more (estimated with the
      // value, so a reverting receiver shows up here rather than on chain).
      return await s.client.estimateGas({ account: s.address, to, value });
    } catch (e) {
      const msg = String((e as Error).message);
      if (/insufficient funds/i.test(msg)) return 21_000n;
      throw e;
    }
  });
}

export interface SignedTransfer {
  rawTx: Hex;
  txHash: Hash;
  nonce: number;
  gasLimit: bigint;
  fees: FeeQuote;
  chainId: number;
}

/** Signs a transfer locally (the key never leaves the process). Signing alone sends nothing. */
export async function signTransfer(s: Sender, p: { to: Address; value: bigint; nonce: number; gasLimit: bigint; fees: FeeQuote; chainId: number }): Promise<SignedTransfer> {
  const rawTx = await s.account.signTransaction({
    type: "eip1559",
    chainId: p.chainId,
    nonce: p.nonce,
    to: p.to,
    value: p.value,
    gas: p.gasLimit,
    maxFeePerGas: p.fees.maxFeePerGas,
    maxPriorityFeePerGas: p.fees.maxPriorityFeePerGas,
  });
  return { rawTx, txHash: keccak256(rawTx), nonce: p.nonce, gasLimit: p.gasLimit, fees: p.fees, chainId: p.chainId };
}

/** The next nonce: the chain's pending count, never below the highest live nonce already recorded. */
async function nextNonce(tx: Tx, s: Sender): Promise<number> {
  const chain = await onChain(s.target, "getTransactionCount", () => s.client.getTransactionCount({ address: s.address, blockTag: "pending" }));
  const rows = await tx.$queryRaw<Array<{ n: number | null }>>`
    SELECT MAX("nonce") AS "n" FROM "Payout"
    WHERE "environment" = ${s.environment}::"Environment" AND "fromAddress" = ${s.address} AND "status" <> 'FAILED'`;
  const recorded = rows[0]?.n;
  return Math.max(chain, recorded === null || recorded === undefined ? 0 : Number(recorded) + 1);
}

type CreateStep = { kind: "none" } | { kind: "pending"; payout: PayoutRow } | { kind: "created"; payout: PayoutRow };

interface Candidate {
  participantId: string;
  walletAddress: string;
  totalWei: bigint;
}

async function candidates(tx: Tx, s: Sender, exclude: Set<string>, verifiedOnly: boolean): Promise<Candidate[]> {
  const rows = await tx.$queryRaw<Array<{ participantId: string; walletAddress: string; total: string }>>`
    SELECT r."participantId", p."walletAddress", SUM(r."amountWei")::text AS "total"
    FROM "Reward" r JOIN "Participant" p ON p."id" = r."participantId"
    WHERE r."businessId" = ${s.businessId} AND r."environment" = ${s.environment}::"Environment"
      AND r."payoutStatus" = 'PAYABLE' AND r."payoutId" IS NULL AND p."walletAddress" IS NOT NULL
      AND (${!verifiedOnly} OR p."walletVerified")
    GROUP BY r."participantId", p."walletAddress"
    ORDER BY MIN(r."payableAt"), r."participantId"`;
  return rows.filter((r) => !exclude.has(r.participantId)).map((r) => ({ participantId: r.participantId, walletAddress: r.walletAddress, totalWei: toBigInt(r.total) }));
}

/**
 * One payout, signed and recorded in one transaction under the sender lock; or the sender's
 * PENDING payout (to be broadcast first); or nothing left to pay. Participants that cannot be
 * paid now (below minPayoutEth, or refused for lack of ETH) are added to `exclude`.
 */
export async function createNextPayout(s: Sender, exclude: Set<string>, now = new Date()): Promise<CreateStep> {
  // Cheap look first, without the lock: most concurrent runs find nothing to do.
  const [pendingNow, payableNow] = await Promise.all([
    db.payout.findFirst({ where: { environment: s.environment, fromAddress: s.address, status: "PENDING" }, select: { id: true } }),
    db.reward.findFirst({
      where: { businessId: s.businessId, environment: s.environment, payoutStatus: "PAYABLE", payoutId: null, participantId: { notIn: [...exclude] }, participant: { walletAddress: { not: null } } },
      select: { id: true },
    }),
  ]);
  if (!pendingNow && !payableNow) return { kind: "none" };
  return db.$transaction(async (tx): Promise<CreateStep> => {
    await lockSender(tx, s);
    const pending = await tx.payout.findFirst({ where: { environment: s.environment, fromAddress: s.address, status: "PENDING" }, orderBy: { nonce: "asc" } });
    if (pending) return { kind: "pending", payout: pending };
    const cfg = await loadConfig(tx, s.businessId, s.environment);
    const minPayout = toBigInt(cfg.minPayoutWei);
    // requireVerifiedWallet: only wallets proven by signature in the portal are paid.
    for (const c of await candidates(tx, s, exclude, cfg.requireVerifiedWallet)) {
      // Lock this participant's payable rewards and re-sum them under the lock.
      const rewards = await tx.$queryRaw<Array<{ id: string; amountWei: string }>>`
        SELECT "id", "amountWei"::text AS "amountWei" FROM "Reward"
        WHERE "participantId" = ${c.participantId} AND "businessId" = ${s.businessId} AND "environment" = ${s.environment}::"Environment"
          AND "payoutStatus" = 'PAYABLE' AND "payoutId" IS NULL
        ORDER BY "payableAt", "id" FOR UPDATE`;
      if (rewards.length === 0) continue;
      const rewardsWei = rewards.reduce((a, r) => a + toBigInt(r.amountWei), 0n);
      const debt = await participantDebtWei(tx, c.participantId);
      const offsetWei = debt < rewardsWei ? debt : rewardsWei;
      const amountWei = rewardsWei - offsetWei;
      if (amountWei > 0n && amountWei < minPayout) {
        exclude.add(c.participantId);
        continue;
      }
      exclude.add(c.participantId);
      const rewardIds = rewards.map((r) => r.id);
      const base = {
        businessId: s.businessId,
        environment: s.environment,
        participantId: c.participantId,
        walletAddress: c.walletAddress,
        fromAddress: s.address,
        rewardsWei: weiToDb(rewardsWei),
        offsetWei: weiToDb(offsetWei),
        amountWei: weiToDb(amountWei),
        rewardIds,
        createdAt: now,
      };
      const pool = await lockPool(tx, s.businessId, s.environment);

      if (amountWei === 0n) {
        // Entirely offset by earlier clawbacks: settled without a transaction.
        const payout = await tx.payout.create({ data: { ...base, status: "CONFIRMED", sentAt: now, confirmedAt: now, gasWei: "0" } });
        await claimRewards(tx, payout.id, rewardIds, "PAID_OUT");
        await creditLedger(tx, { businessId: s.businessId, environment: s.environment, amountWei: offsetWei, kind: "REVERSAL", memo: `Payout ${payout.id}: ${weiToEth(offsetWei)} ETH of rewards offset against clawed-back rewards` });
        return { kind: "created", payout };
      }

      const chainId = s.chainId ?? (await onChain(s.target, "getChainId", () => s.client.getChainId()));
      const nonce = await nextNonce(tx, s);
      const fees = s.fees ?? (await quoteFees(s));
      const gasLimit = await gasLimitFor(s, c.walletAddress as Address, amountWei);
      const reserveWei = gasLimit * fees.maxFeePerGas;
      const onChainWei = await onChain(s.target, "getBalance", () => s.client.getBalance({ address: s.address, blockTag: "pending" }));
      const poolWei = await getBalanceWei(tx, s.businessId, s.environment);
      let refusal: string | null = null;
      if (onChainWei < amountWei + reserveWei) {
        refusal = `INSUFFICIENT_FUNDS: the deposit address holds ${weiToEth(onChainWei)} ETH; this payout needs ${weiToEth(amountWei)} ETH plus up to ${weiToEth(reserveWei)} ETH of gas`;
      } else if (poolWei < reserveWei) {
        refusal = `INSUFFICIENT_POOL_FOR_GAS: the pool has ${weiToEth(poolWei)} ETH available; gas needs up to ${weiToEth(reserveWei)} ETH`;
      }
      if (refusal) {
        // Nothing signed: recorded as FAILED with its reason; the rewards stay PAYABLE.
        const payout = await tx.payout.create({ data: { ...base, status: "FAILED", error: refusal, failedAt: now, chainId } });
        await emitWebhookEvent(tx, payoutWebhook("payout.failed", payout)); // webhook
        return { kind: "created", payout };
      }
      const signed = await signTransfer(s, { to: c.walletAddress as Address, value: amountWei, nonce, gasLimit, fees, chainId });
      const payout = await tx.payout.create({
        data: { ...base, status: "PENDING", chainId, nonce, txHash: signed.txHash, rawTx: signed.rawTx, gasReservedWei: weiToDb(reserveWei) },
      });
      await recordTransaction(tx, payout.id, signed);
      await claimRewards(tx, payout.id, rewardIds, "IN_PAYOUT");
      await debitLedger(tx, pool, {
        businessId: s.businessId,
        environment: s.environment,
        amountWei: reserveWei,
        kind: "GAS",
        memo: `Gas reserved for payout ${payout.id} (tx ${signed.txHash})`,
      });
      return { kind: "created", payout };
    }
    return { kind: "none" };
  }, TX_OPTIONS);
}

function recordTransaction(tx: Tx, payoutId: string, t: SignedTransfer) {
  return tx.payoutTransaction.create({
    data: {
      payoutId,
      txHash: t.txHash,
      rawTx: t.rawTx,
      nonce: t.nonce,
      maxFeePerGas: weiToDb(t.fees.maxFeePerGas),
      maxPriorityFeePerGas: weiToDb(t.fees.maxPriorityFeePerGas),
      gasLimit: weiToDb(t.gasLimit),
    },
  });
}

/** Moves exactly these PAYABLE rewards into the payout; any of them already taken aborts the transaction. */
async function claimRewards(tx: Tx, payoutId: string, rewardIds: string[], to: "IN_PAYOUT" | "PAID_OUT") {
  const r = await tx.reward.updateMany({ where: { id: { in: rewardIds }, payoutStatus: "PAYABLE", payoutId: null }, data: { payoutStatus: to, payoutId } });
  if (r.count !== rewardIds.length) throw new AppError("CONFLICT", "A reward of this payout was taken by another payout; retry");
}

// ───────────── step 2: broadcast ─────────────

const ALREADY_KNOWN = /already known|known transaction|already imported|already in (the )?(mempool|pool)|transaction already exists/i;
const NONCE_USED = /nonce too low|nonce has already been used|NONCE_EXPIRED|nonce.*(is )?lower than/i;

function rpcMessage(e: unknown): string {
  const parts: string[] = [];
  let cur: unknown = e;
  for (let i = 0; cur && i < 6; i++) {
    const m = (cur as { details?: string; shortMessage?: string; message?: string });
    parts.push(m.details ?? "", m.shortMessage ?? "", m.message ?? "");
    cur = (cur as { cause?: unknown }).cause;
  }
  return parts.join(" | ");
}

async function receiptOf(s: Sender, hash: Hash) {
  return onChain(s.target, "getTransactionReceipt", async () => {
    try {
      return await s.client.getTransactionReceipt({ hash });
    } catch (e) {
      if (e instanceof TransactionReceiptNotFoundError) return null;
      throw e;
    }
  });
}

/** The mined receipt of any signed version of the payout, if one is mined. */
async function minedVersion(s: Sender, payoutId: string) {
  const versions = await db.payoutTransaction.findMany({ where: { payoutId }, orderBy: { createdAt: "asc" } });
  for (const v of versions) {
    const receipt = await receiptOf(s, v.txHash as Hash);
    if (receipt) return { version: v, receipt };
  }
  return null;
}

/**
 * Sends the payout's recorded raw transaction. PENDING → SENT. The chain down leaves it as it
 * is (503 to the caller); a definitive rejection of a PENDING payout fails it.
 */
export async function broadcastPayout(s: Sender, payoutId: string): Promise<PayoutRow> {
  const p = await db.payout.findUniqueOrThrow({ where: { id: payoutId } });
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
      return failPayout(s, p.id, `BROADCAST_REJECTED: ${(e as { shortMessage?: string }).shortMessage ?? String((e as Error).message).slice(0, 300)}`);
    } else {
      await db.payout.update({ where: { id: p.id }, data: { error: `Rebroadcast refused: ${String((e as { shortMessage?: string }).shortMessage ?? (e as Error).message).slice(0, 300)}` } });
      return db.payout.findUniqueOrThrow({ where: { id: p.id } });
    }
  }
  // PENDING → SENT and its payout.sent event commit together (once: a rebroadcast finds it SENT).
  await db.$transaction(async (tx) => {
    const r = await tx.payout.updateMany({ where: { id: p.id, status: "PENDING" }, data: { status: "SENT", sentAt: new Date() } });
    if (r.count === 1) await emitWebhookEvent(tx, payoutWebhook("payout.sent", await tx.payout.findUniqueOrThrow({ where: { id: p.id } }))); // webhook
  }, TX_OPTIONS);
  return db.payout.findUniqueOrThrow({ where: { id: p.id } });
}

/**
 * FAILED, only for a payout that nothing can still mine (PENDING: never accepted by the node):
 * its rewards return to PAYABLE, its gas reserve (less gasSpentWei, when a reverted transaction
 * did burn gas) to the pool, and rewards reversed meanwhile return to the pool too.
 */
async function failPayout(s: Sender, payoutId: string, reason: string, from: "PENDING" | "SENT" = "PENDING", gasSpentWei = 0n): Promise<PayoutRow> {
  await db.$transaction(async (tx) => {
    await lockPool(tx, s.businessId, s.environment);
    const r = await tx.payout.updateMany({
      where: { id: payoutId, status: from },
      data: { status: "FAILED", error: reason.slice(0, 1000), failedAt: new Date(), gasWei: gasSpentWei > 0n ? weiToDb(gasSpentWei) : undefined },
    });
    if (r.count !== 1) return;
    const p = await tx.payout.findUniqueOrThrow({ where: { id: payoutId } });
    await emitWebhookEvent(tx, payoutWebhook("payout.failed", p)); // webhook
    await tx.reward.updateMany({ where: { payoutId, payoutStatus: "IN_PAYOUT" }, data: { payoutStatus: "PAYABLE", payoutId: null } });
    // Reversed while in this payout: it was never paid out after all, so the ETH goes back to the pool.
    const reversed = await tx.reward.findMany({ where: { payoutId, payoutStatus: "REVERSED" }, select: { id: true } });
    for (const rw of reversed) {
      const rev = await tx.rewardReversal.updateManyAndReturn({ where: { rewardId: rw.id, outcome: "CLAWBACK" }, data: { outcome: "RETURNED_TO_POOL" } });
      await tx.reward.update({ where: { id: rw.id }, data: { payoutId: null } });
      if (rev[0] && toBigInt(rev[0].amountWei) > 0n) {
        await creditLedger(tx, { businessId: s.businessId, environment: s.environment, amountWei: toBigInt(rev[0].amountWei), kind: "REVERSAL", memo: `Reversed reward ${rw.id} returned to the pool (its payout failed)` });
      }
    }
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
  const mined = await minedVersion(s, p.id);
  if (mined) {
    const { receipt, version } = mined;
    const gasSpentWei = receipt.gasUsed * receipt.effectiveGasPrice;
    if (receipt.status !== "success") {
      // The receiver refused the ETH: nothing was transferred, the gas is spent.
      return failPayout(s, p.id, `TX_REVERTED: the wallet ${p.walletAddress} refused the transfer (tx ${version.txHash})`, "SENT", gasSpentWei);
    }
    const head = await onChain(s.target, "getBlockNumber", () => s.client.getBlockNumber({ cacheTime: 0 }));
    const confirmations = Number(head - receipt.blockNumber + 1n);
    if (confirmations < s.target.confirmations) {
      await db.payout.update({ where: { id: p.id }, data: { blockNumber: receipt.blockNumber, txHash: version.txHash, rawTx: version.rawTx } });
      return db.payout.findUniqueOrThrow({ where: { id: p.id } });
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
    await emitWebhookEvent(tx, payoutWebhook("payout.confirmed", await tx.payout.findUniqueOrThrow({ where: { id: p.id } }))); // webhook
    await tx.reward.updateMany({ where: { payoutId: p.id, payoutStatus: "IN_PAYOUT" }, data: { payoutStatus: "PAID_OUT" } });
    const reserve = toBigInt(p.gasReservedWei);
    if (reserve > gasSpentWei) {
      await creditLedger(tx, { businessId: s.businessId, environment: s.environment, amountWei: reserve - gasSpentWei, kind: "GAS", memo: `Unused gas reserve of payout ${p.id} returned (used ${weiToEth(gasSpentWei)} ETH)` });
    } else if (gasSpentWei > reserve) {
      const pool = await lockPool(tx, s.businessId, s.environment);
      await debitLedger(tx, pool, { businessId: s.businessId, environment: s.environment, amountWei: gasSpentWei - reserve, kind: "GAS", memo: `Gas of payout ${p.id} above its reserve` });
    }
    const offset = toBigInt(p.offsetWei);
    if (offset > 0n) {
      await creditLedger(tx, { businessId: s.businessId, environment: s.environment, amountWei: offset, kind: "REVERSAL", memo: `Payout ${p.id}: ${weiToEth(offset)} ETH of rewards kept to offset clawed-back rewards` });
    }
  }, TX_OPTIONS);
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
  const extraReserve = gasLimit * fees.maxFeePerGas - toBigInt(p.gasReservedWei);
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

// ───────────── the run ─────────────

/** Brings every unfinished payout of the sender forward: broadcast PENDING, check SENT. */
export async function settlePayouts(s: Sender): Promise<void> {
  const open = await db.payout.findMany({
    where: { businessId: s.businessId, environment: s.environment, status: { in: ["PENDING", "SENT"] } },
    orderBy: [{ nonce: "asc" }, { createdAt: "asc" }],
    select: { id: true, status: true },
  });
  for (const p of open) {
    if (p.status === "PENDING") await broadcastPayout(s, p.id);
    else await checkPayout(s, p.id);
  }
}

async function waitMined(s: Sender, hashes: Hash[], ms: number) {
  const deadline = Date.now() + ms;
  for (const h of hashes) {
    while (Date.now() < deadline) {
      if (await receiptOf(s, h)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/**
 * POST /business/payouts/run and the REWARD_PAYOUT job: settles unfinished payouts, releases
 * ended holds, then creates, signs, records and broadcasts one payout per participant whose
 * payable rewards reach minPayoutEth. Answers the payouts it created (FAILED ones included).
 * Safe to run concurrently, in any number of processes.
 */
export async function runPayouts(businessId: string, environment: Environment): Promise<PayoutOutput[]> {
  const s = await senderFor(businessId, environment);
  // The chain must answer before anything is created: down → 503, nothing written.
  s.chainId = await onChain(s.target, "getChainId", () => s.client.getChainId());
  s.fees = await quoteFees(s);
  await settlePayouts(s);
  await releaseHolds(businessId, environment);
  const exclude = new Set<string>();
  const created: string[] = [];
  for (let i = 0; i < MAX_PAYOUTS_PER_RUN; i++) {
    const step = await createNextPayout(s, exclude);
    if (step.kind === "none") break;
    if (step.kind === "created") created.push(step.payout.id);
    if (step.payout.status === "PENDING") {
      const after = await broadcastPayout(s, step.payout.id);
      // Still PENDING: the node did not take it (unreachable); stop here, the next run resends it.
      if (after.status === "PENDING") break;
    }
  }
  // Give a mined transaction the chance to confirm within this call (a local chain mines at once),
  // this run's and those recovered above alike.
  const sent = await db.payout.findMany({ where: { businessId, environment, status: "SENT" }, select: { id: true, txHash: true }, take: MAX_PAYOUTS_PER_RUN });
  if (sent.length) {
    await waitMined(s, sent.map((p) => p.txHash as Hash), 5_000);
    for (const p of sent) await checkPayout(s, p.id);
  }
  const rows = await db.payout.findMany({ where: { id: { in: created } }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  return rows.map(toPayoutOutput);
}
