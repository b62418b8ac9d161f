// The ledger as the dashboard reads it: newest entries first, with the current balance and the
// running balance after each entry.
import { db } from "../../db/client";
import { checkCursor, pageArgs, toPage } from "../../shared/list-page";
import { toBigInt } from "../../shared/money";
import { assetTagOf } from "../../shared/asset";
import { amountOf, readAsset } from "../assets/read";
import type { Environment } from "../../shared/environment";
import { getBalanceWei, type LedgerKind } from "./service";

/**
 * The pool's balance right after each of some entries (ids of another pool are ignored): the
 * pool's balance less every entry after it in the chain (seq), read in one statement so that
 * both describe the same moment. It reads the entries from the oldest asked for to the newest,
 * so a page near the top of the ledger costs little whatever its length.
 */
async function balancesAfter(businessId: string, environment: Environment, entries: Array<{ id: string; seq: bigint }>): Promise<Map<string, bigint>> {
  if (!entries.length) return new Map();
  const from = entries.reduce((m, e) => (e.seq < m ? e.seq : m), entries[0].seq);
  const rows = await db.$queryRaw<Array<{ id: string; after: string }>>`
    SELECT w."id", (COALESCE((SELECT "balanceWei" FROM "Pool" WHERE "businessId" = ${businessId} AND "environment" = ${environment}::"Environment"), 0) - w."newer")::text AS "after"
    FROM (SELECT "id", COALESCE(SUM("amountWei") OVER (ORDER BY "seq" DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS "newer"
          FROM "LedgerEntry" WHERE "businessId" = ${businessId} AND "environment" = ${environment}::"Environment" AND "seq" >= ${from}) w
    WHERE w."id" = ANY(${entries.map((e) => e.id)}::text[])`;
  return new Map(rows.map((r) => [r.id, toBigInt(r.after)]));
}

export async function listLedger(businessId: string, q: { environment: Environment; kind?: LedgerKind; limit: number; cursor?: string }) {
  await checkCursor(q.cursor, (id) => db.ledgerEntry.findFirst({ where: { id, businessId, environment: q.environment }, select: { id: true } }));
  const rows = await db.ledgerEntry.findMany({ where: { businessId, environment: q.environment, kind: q.kind }, ...pageArgs(q.limit, q.cursor) });
  const [after, asset] = await Promise.all([balancesAfter(businessId, q.environment, rows), readAsset(db, businessId, q.environment)]);
  const page = toPage(rows, q.limit, (e) => ({
    ledgerEntryId: e.id,
    environment: e.environment,
    kind: e.kind,
    amountEth: amountOf(e.amountWei, asset),
    balanceAfterEth: amountOf(after.get(e.id) ?? 0n, asset),
    txHash: e.txHash,
    rewardId: e.rewardId,
    memo: e.memo,
    createdAt: e.createdAt.toISOString(),
  }));
  return { ...page, environment: q.environment, asset: assetTagOf(asset), balanceEth: amountOf(await getBalanceWei(db, businessId, q.environment), asset) };
}
