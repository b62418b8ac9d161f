// The ledger's hash chain read from the database page by page: verified for
// GET /business/ledger/verify, exported as JSON Lines for `npm run ledger:verify`.
import { rawRows } from "../../db/client";
import type { Environment } from "../../shared/environment";
import type { ChainVerdict } from "../../shared/hash-chain";
import { verifyLedgerPages, type LedgerExportEntry, type LedgerExportHeader } from "./export-format";

const PAGE = 20_000;

/**
 * The chain's entries in order up to seq `upTo`, PAGE per query (keyset on seq), in constant
 * memory; the next page is requested before the current one is handed over, so the database
 * reads while the caller hashes.
 */
async function* ledgerPages(businessId: string, environment: Environment, upTo: string): AsyncGenerator<LedgerExportEntry[]> {
  const page = (after: string) => {
    const rows = rawRows<LedgerExportEntry>(
      `SELECT l.id AS "ledgerEntryId", l.seq::text AS seq, l."businessId", l.environment::text AS environment, l.kind::text AS kind,
              l."amountWei"::text AS "amountWei", l."txHash", l."rewardId", l.memo, "chain_time"(l."createdAt") AS "createdAt", l.hash
         FROM "LedgerEntry" l WHERE l."businessId" = $1 AND l.environment = $2::"Environment" AND l.seq > $3::bigint AND l.seq <= $4::bigint
        ORDER BY l.seq LIMIT ${PAGE}`,
      businessId,
      environment,
      after,
      upTo,
    );
    // A page asked for ahead of time may be abandoned by a caller that stops early.
    rows.catch(() => undefined);
    return rows;
  };
  let next = page("0");
  for (;;) {
    const rows = await next;
    const more = rows.length === PAGE;
    if (more) next = page(rows[rows.length - 1].seq);
    yield rows;
    if (!more) return;
  }
}

/** The chain's entries one by one (see ledgerPages). */
export async function* ledgerEntries(businessId: string, environment: Environment, upTo: string): AsyncGenerator<LedgerExportEntry> {
  for await (const rows of ledgerPages(businessId, environment, upTo)) yield* rows;
}

export async function ledgerHeader(businessId: string, environment: Environment): Promise<LedgerExportHeader> {
  const [pool] = await rawRows<{ seq: string; head: string | null }>(
    `SELECT "ledgerSeq"::text AS seq, "ledgerHead" AS head FROM "Pool" WHERE "businessId" = $1 AND environment = $2::"Environment"`,
    businessId,
    environment,
  );
  return { ledgerExport: 1, businessId, environment, ledgerSeq: pool?.seq ?? "0", ledgerHead: pool?.head ?? null };
}

/**
 * GET /business/ledger/verify: the stored chain of one environment, recomputed up to the head
 * read first (entries written meanwhile belong to the next verification).
 */
export async function verifyStoredLedger(businessId: string, environment: Environment): Promise<ChainVerdict> {
  const header = await ledgerHeader(businessId, environment);
  return verifyLedgerPages(header, ledgerPages(businessId, environment, header.ledgerSeq));
}

/** The export that `npm run ledger:verify` reads: a header line, then one JSON line per entry. */
export async function* ledgerExportLines(businessId: string, environment: Environment): AsyncGenerator<string> {
  const header = await ledgerHeader(businessId, environment);
  yield `${JSON.stringify(header)}\n`;
  for await (const e of ledgerEntries(businessId, environment, header.ledgerSeq)) yield `${JSON.stringify(e)}\n`;
}
