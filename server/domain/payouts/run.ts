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
import type { Hash } from "viem";
import { db } from "../../db/client";
import { onChain } from "../../chain/clients";
import type { Environment } from "../../shared/environment";
import { createNextPayout, isShortage } from "./create";
import { toPayoutOutput } from "./list";
import type { PayoutOutput, SkippedPayout } from "./schemas";
import { broadcastPayout, checkPayout, settlePayouts } from "./settle";
import { batchContractFor } from "./batch-call";
import { createNextBatch } from "./batch-create";
import { broadcastBatch, checkBatch } from "./batch-settle";
import { chainGenesisOf, quoteFees, receiptOf, senderFor, type Sender } from "./sender";
import { queueProofAfterPayouts } from "../jobs/proof-schedule";
import { holdOverWhere } from "../rewards/state";
import { answerWithdrawals } from "./withdrawals";

const MAX_PAYOUTS_PER_RUN = 500;

// ───────────── step 0: holds ─────────────

/** Rewards whose holding period is over become PAYABLE. */
export async function releaseHolds(businessId: string, environment: Environment, now = new Date()): Promise<number> {
  const r = await db.reward.updateMany({
    where: { businessId, environment, ...holdOverWhere(now) },
    data: { payoutStatus: "PAYABLE" },
  });
  return r.count;
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
 * payable rewards reach minPayoutEth: in batches through the BatchPayout contract where one is
 * available and cheaper (batch-create.ts), else one transfer each. Answers the payouts it created (FAILED ones included) and
 * the participants it passed over, with why. A wallet that refuses fails only its own payout.
 * Safe to run concurrently, in any number of processes.
 */
export async function runPayouts(businessId: string, environment: Environment): Promise<{ payouts: PayoutOutput[]; skipped: SkippedPayout[] }> {
  const started = new Date();
  const s = await senderFor(businessId, environment);
  // The chain must answer before anything is created: down → 503, nothing written.
  s.chainId = await onChain(s.target, "getChainId", () => s.client.getChainId());
  s.genesis = await chainGenesisOf(s, s.chainId);
  s.fees = await quoteFees(s);
  await settlePayouts(s);
  await releaseHolds(businessId, environment);
  const exclude = new Set<string>();
  const created: string[] = [];
  const skipped: SkippedPayout[] = [];
  // Batches first (those a batch pays cheaper than a transfer of their own), then one transfer each.
  let batching = await batchContractFor(s, s.chainId);
  const plain = new Set<string>();
  for (let i = 0; i < MAX_PAYOUTS_PER_RUN; i++) {
    if (batching) {
      const b = await createNextBatch(s, batching, exclude, plain);
      created.push(...b.created);
      skipped.push(...b.skipped);
      if (b.kind === "created") {
        // Still PENDING: the node did not take it (unreachable); stop here, the next run resends it.
        if ((await broadcastBatch(s, b.batchId)).status === "PENDING") break;
      } else if (b.kind === "none") batching = null;
      continue;
    }
    const step = await createNextPayout(s, exclude);
    if (step.kind === "none") break;
    if (step.kind === "retry") continue;
    if (step.kind === "skipped") {
      skipped.push(step.skipped);
      continue;
    }
    if (step.kind === "created") created.push(step.payout.id);
    // The sending address or the pool is short: every later payout of this run would be refused
    // the same way, each a FAILED row and a payout.failed webhook. One says it.
    if (step.payout.status === "FAILED" && isShortage(step.payout.error)) break;
    if (step.payout.status === "PENDING") {
      const after = await broadcastPayout(s, step.payout.id);
      // Still PENDING: the node did not take it (unreachable); stop here, the next run resends it.
      if (after.status === "PENDING") break;
    }
  }
  // Give a mined transaction the chance to confirm within this call (a local chain mines at once),
  // this run's and those recovered above alike.
  const sent = await db.payout.findMany({ where: { businessId, environment, status: "SENT", batchId: null }, select: { id: true, txHash: true }, take: MAX_PAYOUTS_PER_RUN });
  const batches = await db.payoutBatch.findMany({ where: { businessId, environment, status: "SENT" }, select: { id: true, txHash: true }, take: MAX_PAYOUTS_PER_RUN });
  if (sent.length || batches.length) {
    await waitMined(s, [...sent, ...batches].map((p) => p.txHash as Hash), 5_000);
    for (const b of batches) await checkBatch(s, b.id);
    for (const p of sent) await checkPayout(s, p.id);
  }
  // Requests this run could not pay get their answer; those it did not reach wait for the next.
  await answerWithdrawals(businessId, environment, skipped, started);
  const rows = await db.payout.findMany({ where: { id: { in: created } }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  // Money moved: publish what is still owed (a LIABILITY_PROOF job, docs/trust.md). A payout
  // merely still SENT moved nothing (the schedule runs every interval while one waits for its
  // confirmations); one that reached CONFIRMED or FAILED in this run did.
  const settled = created.length ? 0 : await db.payout.count({ where: { businessId, environment, OR: [{ confirmedAt: { gte: started } }, { failedAt: { gte: started } }] } });
  if (created.length || settled) await queueProofAfterPayouts(businessId, environment);
  return { payouts: rows.map((p) => toPayoutOutput(p, s.asset)), skipped };
}
