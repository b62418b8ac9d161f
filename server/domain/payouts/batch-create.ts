// Step 1 of a batch payout: the next READY participants of an environment (at most
// PAYOUT_BATCH_SIZE, under the per-transaction gas cap) become one call of the BatchPayout
// contract, simulated, then signed and recorded (PENDING, with each participant's own payout and
// rewards claimed) in one transaction under the sender lock, before anything is broadcast: the
// same guarantees as a single payout (create.ts), for many at once.
import type { Address } from "viem";
import { db, type Tx } from "../../db/client";
import { transactionRetried } from "../../db/retry";
import { onChain } from "../../chain/clients";
import { AppError } from "../../shared/errors";
import { env } from "../../shared/env";
import { weiToDb, weiToEth } from "../../shared/money";
import { isNative } from "../../shared/asset";
import { sharedAmountUnits } from "../assets/read";
import { loadConfig } from "../effective-config/load";
import { getBalanceWei, lockPool } from "../ledger/service";
import { debitLedger } from "../rules/debit";
import { walletProblem } from "../participants/wallet-rules";
import { assetBalanceOf } from "./asset-transfer";
import { batchCall, batchIsCheaper, batchShareGas, isEmptyAccount, TX_GAS_CAP } from "./batch-call";
import { ensureApproval } from "./batch-approval";
import { belowMinimumMessage, claimRewards, heldBack, lockSender, nextCandidates, nextNonce, payableOf, pendingBatch, refuse, samePayable, type Candidate, type Payable } from "./create";
import type { SkippedPayout } from "./schemas";
import { estimateTransferGas, recordBatchTransaction, REVERTED, rpcMessage, signBatchNew, TX_OPTIONS, type Sender } from "./sender";

/** A participant chosen for the batch: what they are owed (as seen before the lock) and their gas share. */
interface Member {
  c: Candidate;
  seen: Payable;
  shareGas: bigint;
}

export type BatchStep =
  /** A batch recorded: broadcast it. */
  | { kind: "created"; batchId: string; created: string[]; skipped: SkippedPayout[] }
  /** No batch now, but more participants to look at: ask again. */
  | { kind: "more"; created: string[]; skipped: SkippedPayout[] }
  /** Nothing (more) to batch in this run: the rest are paid one transfer each. */
  | { kind: "none"; created: string[]; skipped: SkippedPayout[] };

const baseOf = (s: Sender, c: Candidate, seen: Payable, now: Date, chainId: number) => ({
  businessId: s.businessId,
  environment: s.environment,
  participantId: c.participantId,
  walletAddress: c.walletAddress,
  fromAddress: s.address,
  rewardsWei: weiToDb(seen.rewardsWei),
  offsetWei: weiToDb(seen.offsetWei),
  amountWei: weiToDb(seen.amountWei),
  rewardIds: seen.rewardIds,
  createdAt: now,
  chainId,
});

/**
 * Looks at each candidate as a single payout would (minimum, wallet rules, a simulated transfer
 * capped at PAYOUT_MAX_GAS, gas against the amount) and chooses batch or plain by gas. A refused
 * wallet fails alone here (WALLET_REFUSED / WALLET_GAS_LIMIT); nobody else waits for it.
 */
async function sortCandidates(s: Sender, rows: Candidate[], minPayout: bigint, exclude: Set<string>, plain: Set<string>, now: Date, chainId: number) {
  const members: Member[] = [];
  const created: string[] = [];
  const skipped: SkippedPayout[] = [];
  for (const c of rows) {
    const seen = await payableOf(db, s, c.participantId, false);
    if (seen.rewardIds.length === 0) continue;
    if (seen.amountWei === 0n) {
      plain.add(c.participantId); // entirely offset: settled without a transaction (create.ts)
      continue;
    }
    if (seen.amountWei < minPayout) {
      exclude.add(c.participantId);
      skipped.push({ participantId: c.participantId, code: "BELOW_MINIMUM", message: belowMinimumMessage(seen.amountWei, minPayout, s.asset) });
      continue;
    }
    const problem = walletProblem(c.walletAddress, s.depositIndex);
    const estimate = problem ? { refused: `WALLET_REFUSED: ${problem}` } : await estimateTransferGas(s, c.walletAddress as Address, seen.amountWei);
    if ("refused" in estimate) {
      exclude.add(c.participantId);
      const r = await db.$transaction((tx) => refuse(tx, baseOf(s, c, seen, now, chainId), estimate.refused, true), TX_OPTIONS);
      if (r.kind === "created") created.push(r.payout.id);
      continue;
    }
    const empty = isNative(s.asset) ? await isEmptyAccount(s, c.walletAddress as Address) : false;
    if (!batchIsCheaper(s.asset, estimate.gas, empty)) {
      plain.add(c.participantId);
      continue;
    }
    const shareGas = batchShareGas(s.asset, estimate.gas, empty);
    const held = heldBack(s, c.participantId, seen.amountWei, shareGas * s.fees!.maxFeePerGas);
    if (held) {
      exclude.add(c.participantId);
      skipped.push(held);
      continue;
    }
    members.push({ c, seen, shareGas });
  }
  return { members, created, skipped };
}

/** Simulates the batch; a member whose own one-recipient batch reverts is refused alone, and the rest simulated again. */
async function simulate(s: Sender, contract: Address, members: Member[], exclude: Set<string>, created: string[], now: Date, chainId: number): Promise<{ members: Member[]; gas: bigint } | null> {
  let left = members;
  for (let round = 0; round < 3 && left.length >= 2; round++) {
    const call = batchCall(s.asset, contract, left.map((m) => m.c.walletAddress as Address), left.map((m) => m.seen.amountWei));
    try {
      const gas = await onChain(s.target, "estimateGas", () => s.client.estimateGas({ account: s.address, ...call }));
      return { members: left, gas };
    } catch (e) {
      if (e instanceof AppError) throw e;
      if (!REVERTED.test(rpcMessage(e))) return null; // not a recipient's doing (funds, the node): paid one by one
    }
    const kept: Member[] = [];
    for (const m of left) {
      const one = batchCall(s.asset, contract, [m.c.walletAddress as Address], [m.seen.amountWei]);
      try {
        await onChain(s.target, "call", () => s.client.call({ account: s.address, ...one }));
        kept.push(m);
      } catch (e) {
        if (e instanceof AppError) throw e;
        exclude.add(m.c.participantId);
        const why = String((e as { shortMessage?: string }).shortMessage ?? (e as Error).message).slice(0, 200);
        const reason = `WALLET_REFUSED: a transfer to ${m.c.walletAddress} fails in a batch (${why}); runs skip this participant until their wallet changes`;
        const r = await db.$transaction((tx) => refuse(tx, baseOf(s, m.c, m.seen, now, chainId), reason, true), TX_OPTIONS);
        if (r.kind === "created") created.push(r.payout.id);
      }
    }
    left = kept;
  }
  return null;
}

/** The batch within the gas cap: members in order while their shares (and the transaction's base) fit. */
function withinCap(members: Member[]): Member[] {
  let total = 60_000n;
  const out: Member[] = [];
  for (const m of members) {
    if ((total + m.shareGas) * 12n > TX_GAS_CAP * 10n) break;
    total += m.shareGas;
    out.push(m);
  }
  return out;
}

/**
 * The next batch of the run: recorded PENDING (broadcast by the caller), or why none. Participants
 * passed over or refused are added to `exclude`; those a plain transfer pays cheaper to `plain`.
 */
export async function createNextBatch(s: Sender, contract: Address, exclude: Set<string>, plain: Set<string>, now = new Date()): Promise<BatchStep> {
  const chainId = s.chainId!;
  const size = env.payoutBatchSize;
  if (size < 2) return { kind: "none", created: [], skipped: [] }; // PAYOUT_BATCH_SIZE=1: one transfer each
  if ((await pendingBatch(db, s)) || (await db.payout.findFirst({ where: { environment: s.environment, fromAddress: s.address, status: "PENDING" }, select: { id: true } }))) {
    return { kind: "none", created: [], skipped: [] };
  }
  const cfg = await loadConfig(db, s.businessId, s.environment);
  const rows = await nextCandidates(s, [...exclude, ...plain], cfg.requireVerifiedWallet, size);
  const sorted = await sortCandidates(s, rows, sharedAmountUnits(cfg.minPayoutWei, s.asset), exclude, plain, now, chainId);
  const { created, skipped } = sorted;
  const more = rows.length === size ? "more" : "none";
  const capped = withinCap(sorted.members);
  if (capped.length < 2) {
    for (const m of capped) plain.add(m.c.participantId);
    return { kind: more, created, skipped };
  }
  const total = capped.reduce((a, m) => a + m.seen.amountWei, 0n);
  if (!isNative(s.asset) && !(await ensureApproval(s, contract, total, chainId))) return { kind: "none", created, skipped };
  const sim = await simulate(s, contract, capped, exclude, created, now, chainId);
  if (!sim) {
    for (const m of capped) if (!exclude.has(m.c.participantId)) plain.add(m.c.participantId);
    return { kind: "more", created, skipped };
  }
  const recorded = await recordBatch(s, contract, sim.members, sim.gas + sim.gas / 5n, now);
  if (!recorded) {
    // Short of funds or gas for the whole batch: each is paid (or refused, with the reason) alone.
    for (const m of sim.members) plain.add(m.c.participantId);
    return { kind: "more", created, skipped };
  }
  for (const m of sim.members) exclude.add(m.c.participantId);
  return { kind: "created", batchId: recorded.batchId, created: [...created, ...recorded.payoutIds], skipped };
}

/**
 * Signs and records the batch under the sender lock: its members' payable rewards are locked and
 * compared with what was simulated (a member whose rewards or wallet changed meanwhile is left for
 * later), the nonce taken, the gas reserve debited (ETH), the batch, its signed version and one
 * PENDING payout per member written, each member's rewards claimed. Null when the deposit address
 * or the pool cannot cover the batch.
 */
async function recordBatch(s: Sender, contract: Address, members: Member[], gasLimit: bigint, now: Date): Promise<{ batchId: string; payoutIds: string[] } | null> {
  const fees = s.fees!;
  const gasHeld = await onChain(s.target, "getBalance", () => s.client.getBalance({ address: s.address, blockTag: "pending" }));
  const assetHeld = isNative(s.asset) ? gasHeld : await onChain(s.target, "balanceOf", () => assetBalanceOf(s.client, s.asset, s.address));
  const chainNonce = await onChain(s.target, "getTransactionCount", () => s.client.getTransactionCount({ address: s.address, blockTag: "pending" }));
  return transactionRetried(async (tx: Tx) => {
    await lockSender(tx, s);
    if (await pendingBatch(tx, s)) return null;
    if (await tx.payout.findFirst({ where: { environment: s.environment, fromAddress: s.address, status: "PENDING" }, select: { id: true } })) return null;
    const kept: Member[] = [];
    for (const m of members) {
      const now2 = await tx.participant.findUnique({ where: { id: m.c.participantId }, select: { walletAddress: true, walletFailedAt: true } });
      if (now2?.walletAddress !== m.c.walletAddress || now2.walletFailedAt) continue;
      if (samePayable(m.seen, await payableOf(tx, s, m.c.participantId, true))) kept.push(m);
    }
    if (kept.length < 2) return null;
    const total = kept.reduce((a, m) => a + m.seen.amountWei, 0n);
    const reserveWei = gasLimit * fees.maxFeePerGas;
    if (assetHeld < total + (isNative(s.asset) ? reserveWei : 0n) || gasHeld < reserveWei) return null;
    const call = batchCall(s.asset, contract, kept.map((m) => m.c.walletAddress as Address), kept.map((m) => m.seen.amountWei));
    const nonce = await nextNonce(tx, s, chainNonce, s.genesis ?? null);
    const signed = await signBatchNew(tx, s, call, { nonce, gasLimit, fees, chainId: s.chainId! });
    const ledgerReserve = isNative(s.asset) ? gasLimit * signed.fees.maxFeePerGas : 0n;
    const pool = ledgerReserve > 0n ? await lockPool(tx, s.businessId, s.environment) : null;
    if (pool && (await getBalanceWei(tx, s.businessId, s.environment)) < ledgerReserve) return null;
    const batch = await tx.payoutBatch.create({
      data: {
        businessId: s.businessId, environment: s.environment, kind: isNative(s.asset) ? "ETH" : "TOKEN", fromAddress: s.address, contractAddress: contract,
        tokenAddress: s.asset.tokenAddress, chainId: s.chainId!, chainGenesis: s.genesis ?? null, nonce, txHash: signed.txHash, rawTx: signed.rawTx,
        recipients: kept.length, amountWei: weiToDb(total), gasReservedWei: weiToDb(ledgerReserve), createdAt: now,
      },
    });
    await recordBatchTransaction(tx, batch.id, signed);
    const payoutIds: string[] = [];
    for (const m of kept) {
      const p = await tx.payout.create({ data: { ...baseOf(s, m.c, m.seen, now, s.chainId!), chainGenesis: s.genesis ?? null, status: "PENDING", batchId: batch.id, nonce, txHash: signed.txHash } });
      await claimRewards(tx, p.id, m.seen.rewardIds, "IN_PAYOUT");
      payoutIds.push(p.id);
    }
    if (pool) await debitLedger(tx, pool, { businessId: s.businessId, environment: s.environment, amountWei: ledgerReserve, kind: "GAS", memo: `Gas reserved for batch ${batch.id} of ${kept.length} payouts (tx ${signed.txHash}, up to ${weiToEth(ledgerReserve)} ETH)` });
    return { batchId: batch.id, payoutIds };
  }, TX_OPTIONS);
}
