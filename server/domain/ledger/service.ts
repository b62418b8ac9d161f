// The pool ledger: every movement of a business's ETH pool (funding credits, reward debits,
// adjustments) is one signed LedgerEntry, the audit trail. The Pool row holds the running
// balance: the database adds each inserted entry's amount to Pool.balanceWei in the same
// statement (a trigger, whatever the entry's kind: the sign of amountWei decides) and refuses a
// negative balance (CHECK), so overspend is impossible even for buggy code (migration 0010).
// Every credit and debit first locks the business+environment Pool row (SELECT … FOR UPDATE) so
// that the balance read and the write happen under one lock: concurrent rewards serialise and
// see each other's debits; without the lock they would fail on the CHECK instead of being refused.
// The Pool row also carries the "below the low-pool threshold" flag: one alert per crossing.
import { randomUUID } from "node:crypto";
import type { Db, Tx } from "../../db/client";
import type { Environment } from "../../shared/environment";
import { toBigInt, weiToDb } from "../../shared/money";
import { readConfig } from "../config/effective";
import { newId } from "../../shared/ids";
import { lowPoolCrossing } from "../rules/pay";
import { ruleConfigOf } from "../rules/config";
import { emitWebhookEvent } from "../webhooks/emit";

export type LedgerKind = "FUNDING" | "REWARD" | "ADJUSTMENT" | "GAS" | "REVERSAL";
type Client = Tx | Db;

export interface LockedPool {
  poolId: string;
  belowThreshold: boolean;
  /** The balance when the lock was taken (ledger writes made under the lock change it). */
  balanceWei?: bigint;
}

/**
 * Creates the Pool row if missing and locks it until the end of the caller's transaction.
 * Must be called inside a transaction (tx): the lock is what makes balance checks safe.
 */
export async function lockPool(tx: Tx, businessId: string, environment: Environment): Promise<LockedPool> {
  // ON CONFLICT DO NOTHING: two first-ever debits racing to create the row must not fail.
  await tx.$executeRaw`
    INSERT INTO "Pool" ("id", "businessId", "environment", "belowThreshold", "createdAt", "updatedAt")
    VALUES (${randomUUID()}, ${businessId}, ${environment}::"Environment", false, (now() AT TIME ZONE 'UTC'), (now() AT TIME ZONE 'UTC'))
    ON CONFLICT ("businessId", "environment") DO NOTHING`;
  const rows = await tx.$queryRaw<Array<{ id: string; belowThreshold: boolean; balance: string }>>`
    SELECT "id", "belowThreshold", "balanceWei"::text AS "balance" FROM "Pool"
    WHERE "businessId" = ${businessId} AND "environment" = ${environment}::"Environment"
    FOR UPDATE`;
  return { poolId: rows[0].id, belowThreshold: rows[0].belowThreshold, balanceWei: toBigInt(rows[0].balance) };
}

/**
 * The pool balance in wei: the running balance on the Pool row (one indexed row, whatever the
 * size of the ledger). Equal to the ledger sum (getLedgerSumWei) at every commit.
 */
export async function getBalanceWei(client: Client, businessId: string, environment: Environment): Promise<bigint> {
  const rows = await client.$queryRaw<Array<{ balance: string }>>`
    SELECT "balanceWei"::text AS "balance" FROM "Pool"
    WHERE "businessId" = ${businessId} AND "environment" = ${environment}::"Environment"`;
  return toBigInt(rows[0]?.balance ?? "0");
}

/** The audit figure: the sum of the ledger for this business and environment (a scan of its entries). */
export async function getLedgerSumWei(client: Client, businessId: string, environment: Environment): Promise<bigint> {
  const rows = await client.$queryRaw<Array<{ balance: string }>>`
    SELECT COALESCE(SUM("amountWei"), 0)::text AS "balance" FROM "LedgerEntry"
    WHERE "businessId" = ${businessId} AND "environment" = ${environment}::"Environment"`;
  return toBigInt(rows[0]?.balance ?? "0");
}

export interface CreditInput {
  businessId: string;
  environment: Environment;
  /** Positive amount to add to the pool. */
  amountWei: bigint;
  kind: LedgerKind;
  /** On-chain transaction credited; unique per environment (a hash is never credited twice). */
  txHash?: string | null;
  memo?: string | null;
}

export interface LedgerResult {
  ledgerEntryId: string;
  balanceWei: bigint;
}

/**
 * Adds a credit to the pool (funding, positive adjustment) and returns the new balance.
 * When the credit lifts the balance back to or above lowPoolAlertEth the low-pool flag is reset,
 * so that the next crossing raises a new alert. A duplicate txHash fails with Prisma's P2002
 * (unique [environment, txHash]); the caller decides how to answer.
 */
export async function creditLedger(tx: Tx, input: CreditInput): Promise<LedgerResult> {
  if (input.amountWei <= 0n) throw new Error("creditLedger: amountWei must be positive");
  const pool = await lockPool(tx, input.businessId, input.environment);
  const entry = await tx.ledgerEntry.create({
    data: {
      businessId: input.businessId,
      environment: input.environment,
      kind: input.kind,
      amountWei: weiToDb(input.amountWei),
      txHash: input.txHash ?? null,
      memo: input.memo ?? null,
    },
    select: { id: true },
  });
  const balanceWei = await getBalanceWei(tx, input.businessId, input.environment);
  pool.balanceWei = balanceWei;
  if (pool.belowThreshold) {
    const threshold = await lowPoolThresholdWei(tx, input.businessId, input.environment);
    if (balanceWei >= threshold) await tx.pool.update({ where: { id: pool.poolId }, data: { belowThreshold: false } });
  }
  return { ledgerEntryId: entry.id, balanceWei };
}

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

async function lowPoolThresholdWei(tx: Tx, businessId: string, environment: Environment): Promise<bigint> {
  const c = await readConfig(tx, businessId, environment);
  return c ? toBigInt(c.lowPoolAlertWei) : 0n;
}

/**
 * One LOW_POOL alert per crossing: raised when the balance drops below the threshold while the
 * pool was above it; the flag stays set (no further alerts) until a credit lifts the balance.
 */
async function checkLowPool(tx: Tx, pool: LockedPool, businessId: string, environment: Environment, balanceWei: bigint, atLeastWei = 0n) {
  if (pool.belowThreshold) return;
  const c = await readConfig(tx, businessId, environment);
  const rules = c ? ruleConfigOf(c) : { lowPoolWei: 0n, autoRefill: false, autoRefillWei: 0n };
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

/** After a threshold change: pools whose balance is at or above their environment's threshold may alert again. */
export async function rearmLowPoolAlerts(tx: Tx, businessId: string) {
  const pools = await tx.pool.findMany({ where: { businessId, belowThreshold: true }, select: { id: true, environment: true } });
  for (const p of pools) {
    const locked = await lockPool(tx, businessId, p.environment);
    if ((await getBalanceWei(tx, businessId, p.environment)) >= (await lowPoolThresholdWei(tx, businessId, p.environment))) {
      await tx.pool.update({ where: { id: locked.poolId }, data: { belowThreshold: false } });
    }
  }
}
