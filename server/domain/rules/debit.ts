// A debit of the pool outside the rules core's batch writes (payouts, their gas, a reward paid
// one at a time): writes the entry under the caller's pool lock, then applies the core's
// low-pool rule (pay.ts lowPoolCrossing): one LOW_POOL alert per crossing, and the refill request
// when auto-refill is on. Lives beside the rule so the ledger below depends on no rule.
import type { Tx } from "../../db/client";
import type { Environment } from "../../shared/environment";
import { newId } from "../../shared/ids";
import { weiToDb } from "../../shared/money";
import { readConfig } from "../effective-config/load";
import { getBalanceWei, lockPool, type LedgerKind, type LedgerResult, type LockedPool } from "../ledger/service";
import { emitWebhookEvent } from "../webhooks/emit";
import { ruleConfigOf } from "./config";
import { readAsset } from "../assets/read";
import { lowPoolCrossing } from "./pay";

export interface DebitInput {
  businessId: string;
  environment: Environment;
  /** Positive amount to take from the pool. */
  amountWei: bigint;
  kind: LedgerKind;
  rewardId?: string | null;
  memo?: string | null;
}

/**
 * Takes amountWei from the pool. The caller must hold the pool lock (lockPool) and must have
 * checked the balance under it; this writes the entry, then raises the low-pool alert (and the
 * refill request when auto-refill is on) if this debit crossed the threshold. A debit beyond the
 * balance is refused by the database (CHECK balanceWei >= 0) and fails the transaction.
 */
export async function debitLedger(tx: Tx, pool: LockedPool, input: DebitInput): Promise<LedgerResult> {
  if (input.amountWei <= 0n) throw new Error("debitLedger: amountWei must be positive");
  const entry = await tx.ledgerEntry.create({
    data: {
      businessId: input.businessId,
      environment: input.environment,
      kind: input.kind,
      amountWei: weiToDb(-input.amountWei),
      rewardId: input.rewardId ?? null,
      memo: input.memo ?? null,
    },
    select: { id: true },
  });
  const balanceWei = await getBalanceWei(tx, input.businessId, input.environment);
  pool.balanceWei = balanceWei;
  await checkLowPool(tx, pool, input.businessId, input.environment, balanceWei);
  return { ledgerEntryId: entry.id, balanceWei };
}

/**
 * One LOW_POOL alert per crossing: raised when the balance drops below the threshold while the
 * pool was above it; the flag stays set (no further alerts) until a credit lifts the balance.
 */
async function checkLowPool(tx: Tx, pool: LockedPool, businessId: string, environment: Environment, balanceWei: bigint, atLeastWei = 0n) {
  if (pool.belowThreshold) return;
  const [c, asset] = await Promise.all([readConfig(tx, businessId, environment), readAsset(tx, businessId, environment)]);
  const rules = c ? ruleConfigOf(c, asset) : { asset, lowPoolWei: 0n, autoRefill: false, autoRefillWei: 0n };
  if (atLeastWei > rules.lowPoolWei) rules.lowPoolWei = atLeastWei;
  const crossed = lowPoolCrossing({ businessId, environment }, rules, balanceWei, false, new Date(), newId);
  if (!crossed) return;
  await tx.pool.update({ where: { id: pool.poolId }, data: { belowThreshold: true } });
  pool.belowThreshold = true;
  await tx.alert.createMany({
    data: crossed.alerts.map((a) => ({ ...a, balanceWei: weiToDb(a.balanceWei), thresholdWei: weiToDb(a.thresholdWei), amountWei: a.amountWei === null ? null : weiToDb(a.amountWei) })),
  });
  await emitWebhookEvent(tx, crossed.webhook); // webhook
}

/**
 * A proof of liabilities found the pool short (on-chain balance below what is owed): the same
 * low-pool rule and alert, with what is owed as the threshold when it is above the configured one.
 * Once per crossing, like every low-pool alert (the pool's flag). Takes the pool lock: call it in
 * the transaction that records the proof, after every chain read.
 */
export async function alertPoolShort(tx: Tx, businessId: string, environment: Environment, poolBalanceWei: bigint, owedWei: bigint) {
  const pool = await lockPool(tx, businessId, environment);
  await checkLowPool(tx, pool, businessId, environment, poolBalanceWei, owedWei);
}
