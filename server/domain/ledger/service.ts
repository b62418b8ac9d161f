// The pool ledger: every movement of a business's ETH pool (funding credits, reward debits,
// adjustments) is one signed LedgerEntry, the audit trail. The Pool row holds the running
// balance: the database adds each inserted entry's amount to Pool.balanceWei in the same
// statement (a trigger, whatever the entry's kind: the sign of amountWei decides) and refuses a
// negative balance (CHECK), so overspend is impossible even for buggy code (migration 0010).
// Every credit and debit first locks the business+environment Pool row (SELECT … FOR UPDATE) so
// that the balance read and the write happen under one lock: concurrent rewards serialise and
// see each other's debits; without the lock they would fail on the CHECK instead of being refused.
// The Pool row also carries the "below the low-pool threshold" flag: one alert per crossing.
// Debits apply the rules core's low-pool rule, so they live beside it (rules/debit.ts).
import { randomUUID } from "node:crypto";
import type { Db, Tx } from "../../db/client";
import type { Environment } from "../../shared/environment";
import { newId } from "../../shared/ids";
import { toBigInt, weiToDb } from "../../shared/money";
import { readConfig } from "../effective-config/load";

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
  const { ledgerEntryIds, balanceWei } = await creditLedgerMany(tx, input, [input]);
  return { ledgerEntryId: ledgerEntryIds[0], balanceWei };
}

/** Several credits of one pool in one insert (e.g. the rewards a reversal returns), under creditLedger's rules; ids in the order given. */
export async function creditLedgerMany(
  tx: Tx,
  scope: { businessId: string; environment: Environment },
  credits: Pick<CreditInput, "amountWei" | "kind" | "txHash" | "memo">[],
): Promise<{ ledgerEntryIds: string[]; balanceWei: bigint }> {
  if (credits.some((c) => c.amountWei <= 0n)) throw new Error("creditLedger: amountWei must be positive");
  const pool = await lockPool(tx, scope.businessId, scope.environment);
  const ledgerEntryIds = credits.map(() => newId());
  await tx.ledgerEntry.createMany({
    data: credits.map((c, k) => ({
      id: ledgerEntryIds[k],
      businessId: scope.businessId,
      environment: scope.environment,
      kind: c.kind,
      amountWei: weiToDb(c.amountWei),
      txHash: c.txHash ?? null,
      memo: c.memo ?? null,
    })),
  });
  const balanceWei = await getBalanceWei(tx, scope.businessId, scope.environment);
  pool.balanceWei = balanceWei;
  if (pool.belowThreshold) {
    const threshold = await lowPoolThresholdWei(tx, scope.businessId, scope.environment);
    if (balanceWei >= threshold) await tx.pool.update({ where: { id: pool.poolId }, data: { belowThreshold: false } });
  }
  return { ledgerEntryIds, balanceWei };
}

async function lowPoolThresholdWei(tx: Tx, businessId: string, environment: Environment): Promise<bigint> {
  const c = await readConfig(tx, businessId, environment);
  return c ? toBigInt(c.lowPoolAlertWei) : 0n;
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
