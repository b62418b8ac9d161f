// The ledger export's format and its verification, free of any database access so that
// `npm run ledger:verify` runs offline: the canonical fields of an entry (the encoding of the
// database trigger, migrations 0079 and 0131) and the walk of the chain.
import type { Environment } from "../../shared/environment";
import { ChainWalk, chainField, type ChainVerdict } from "../../shared/hash-chain";

/** An entry as exported: every field the hash covers, amounts as signed integer wei strings. */
export interface LedgerExportEntry {
  ledgerEntryId: string;
  seq: string;
  businessId: string;
  environment: Environment;
  kind: string;
  amountWei: string;
  txHash: string | null;
  rewardId: string | null;
  memo: string | null;
  createdAt: string;
  hash: string;
}

/** The first line of an export: whose chain it is and its head as the database keeps it. */
export interface LedgerExportHeader {
  ledgerExport: 1;
  businessId: string;
  environment: Environment;
  ledgerSeq: string;
  ledgerHead: string | null;
}

/** The canonical body of an entry: its hashed fields in order (the encoding of the LedgerEntry_chain trigger, migration 0131). */
export function ledgerCanonical(e: LedgerExportEntry): string {
  const f = chainField;
  return f(e.seq) + f(e.ledgerEntryId) + f(e.businessId) + f(e.environment) + f(e.kind) + f(e.amountWei) + f(e.txHash) + f(e.rewardId) + f(e.memo) + f(e.createdAt);
}

type Expected = Pick<LedgerExportHeader, "ledgerSeq" | "ledgerHead"> | null;
const expectedOf = (header: Expected) => (header ? { seq: header.ledgerSeq, head: header.ledgerHead } : undefined);

/** Verifies a ledger chain (from the database or an export) against the head kept beside it. */
export async function verifyLedger(header: Expected, entries: AsyncIterable<LedgerExportEntry> | Iterable<LedgerExportEntry>): Promise<ChainVerdict> {
  const walk = new ChainWalk();
  for await (const e of entries) walk.step(e.ledgerEntryId, e.seq, e.hash, ledgerCanonical(e));
  return walk.verdict(expectedOf(header));
}

/** The same verification over pages of entries (the database's reads), each page walked in one synchronous loop. */
export async function verifyLedgerPages(header: Expected, pages: AsyncIterable<readonly LedgerExportEntry[]>): Promise<ChainVerdict> {
  const walk = new ChainWalk();
  for await (const page of pages) for (const e of page) walk.step(e.ledgerEntryId, e.seq, e.hash, ledgerCanonical(e));
  return walk.verdict(expectedOf(header));
}
