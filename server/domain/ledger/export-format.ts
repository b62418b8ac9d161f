// The ledger export's format and its verification, free of any database access so that
// `npm run ledger:verify` runs offline: the canonical fields of an entry (the encoding of the
// database trigger, migration 0079) and the walk of the chain.
import type { Environment } from "../../shared/environment";
import { chainField, verifyChain, type ChainRow, type ChainVerdict } from "../trust/chain";

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

function ledgerCanonical(e: LedgerExportEntry): string {
  return [e.seq, e.ledgerEntryId, e.businessId, e.environment, e.kind, e.amountWei, e.txHash, e.rewardId, e.memo, e.createdAt].map(chainField).join("");
}

function ledgerChainRow(e: LedgerExportEntry): ChainRow {
  return { id: e.ledgerEntryId, seq: e.seq, hash: e.hash, canonical: ledgerCanonical(e) };
}

async function* rowsOf(entries: AsyncIterable<LedgerExportEntry> | Iterable<LedgerExportEntry>) {
  for await (const e of entries) yield ledgerChainRow(e);
}

/** Verifies a ledger chain (from the database or an export) against the head kept beside it. */
export function verifyLedger(header: Pick<LedgerExportHeader, "ledgerSeq" | "ledgerHead"> | null, entries: AsyncIterable<LedgerExportEntry> | Iterable<LedgerExportEntry>): Promise<ChainVerdict> {
  return verifyChain(rowsOf(entries), header ? { seq: header.ledgerSeq, head: header.ledgerHead } : undefined);
}

