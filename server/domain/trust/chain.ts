// Hash chains (docs/trust.md): the ledger and the staff audit log are each a chain per business
// (and environment, for the ledger) that the database extends as rows are written (migrations
// 0079, 0080). This file is the one verifier, used by the routes and by `npm run ledger:verify`
// offline; it recomputes each hash with the same canonical encoding as the database's triggers.
import { createHash } from "node:crypto";

/** The previous hash of a chain's first row. */
const GENESIS = "0".repeat(64);

/** One value of the canonical encoding: "<UTF-8 byte length>:<text>", null as "-" (SQL chain_field). */
export function chainField(v: string | null | undefined): string {
  return v === null || v === undefined ? "-" : `${Buffer.byteLength(v, "utf8")}:${v}`;
}

/** sha256(previous hash ‖ canonical body) as lowercase hex (SQL chain_hash). */
function chainHash(prev: string | null, body: string): string {
  return createHash("sha256").update((prev ?? GENESIS) + body, "utf8").digest("hex");
}

/** A row of a chain as exported: its position, id, stored hash and canonical body. */
export interface ChainRow {
  id: string;
  seq: bigint | number | string;
  hash: string;
  canonical: string;
}

export interface ChainVerdict {
  /** Rows read. */
  entries: number;
  /** The stored hash of the last row (null: empty chain). */
  head: string | null;
  ok: boolean;
  /** The first row whose position or hash does not follow from the rows before it. */
  firstBadEntryId: string | null;
}

/**
 * Walks rows in chain order and recomputes every hash. A changed field, a removed, inserted or
 * reordered row breaks the chain at that row. `expected` (the head kept beside the chain) also
 * catches rows removed from the end.
 */
export async function verifyChain(
  rows: Iterable<ChainRow> | AsyncIterable<ChainRow>,
  expected?: { seq: bigint | number | string; head: string | null },
): Promise<ChainVerdict> {
  let prev: string | null = null;
  let entries = 0;
  let firstBadEntryId: string | null = null;
  for await (const row of rows) {
    entries++;
    if (firstBadEntryId === null) {
      const recomputed = chainHash(prev, row.canonical);
      if (BigInt(row.seq) !== BigInt(entries) || recomputed !== row.hash) firstBadEntryId = row.id;
    }
    prev = row.hash;
  }
  const tailOk = !expected || (BigInt(expected.seq) === BigInt(entries) && (expected.head ?? null) === prev);
  return { entries, head: prev, ok: firstBadEntryId === null && tailOk, firstBadEntryId };
}
