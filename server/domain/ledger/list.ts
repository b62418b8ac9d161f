// The ledger as the dashboard reads it: newest entries first, with the current balance.
import { db } from "../../db/client";
import { checkCursor, pageArgs, toPage } from "../../shared/list-page";
import { weiToEth } from "../../shared/money";
import type { Environment } from "../../shared/environment";
import { getBalanceWei, type LedgerKind } from "./service";

export async function listLedger(businessId: string, q: { environment: Environment; kind?: LedgerKind; limit: number; cursor?: string }) {
  await checkCursor(q.cursor, (id) => db.ledgerEntry.findFirst({ where: { id, businessId, environment: q.environment }, select: { id: true } }));
  const rows = await db.ledgerEntry.findMany({ where: { businessId, environment: q.environment, kind: q.kind }, ...pageArgs(q.limit, q.cursor) });
  const page = toPage(rows, q.limit, (e) => ({
    ledgerEntryId: e.id,
    environment: e.environment,
    kind: e.kind,
    amountEth: weiToEth(e.amountWei),
    txHash: e.txHash,
    rewardId: e.rewardId,
    memo: e.memo,
    createdAt: e.createdAt.toISOString(),
  }));
  return { ...page, environment: q.environment, balanceEth: weiToEth(await getBalanceWei(db, businessId, q.environment)) };
}
