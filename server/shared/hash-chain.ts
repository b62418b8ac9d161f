// Hash chains (docs/trust.md): the ledger and the staff audit log are each a chain per business
// (and environment, for the ledger) that the database extends as rows are written (migrations
// 0079, 0080). This file is the one verifier, used by the routes and by `npm run ledger:verify`
// offline; it recomputes each hash with the same canonical encoding as the database's triggers.
// ChainWalk is the rule, row by row and synchronous, so that callers can feed it whole pages of
// rows in a tight loop; verifyChain walks any iterable of rows with it.
import * as crypto from "node:crypto";

/** The previous hash of a chain's first row. */
const GENESIS = "0".repeat(64);

/** One value of the canonical encoding: "<UTF-8 byte length>:<text>", null as "-" (SQL chain_field). */
export function chainField(v: string | null | undefined): string {
  return v === null || v === undefined ? "-" : `${Buffer.byteLength(v, "utf8")}:${v}`;
}

// crypto.hash (one call, no Hash object) where the runtime has it; createHash otherwise.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;
const sha256Hex: (s: string) => string = oneShot ? (s) => oneShot("sha256", s, "hex") : (s) => crypto.createHash("sha256").update(s, "utf8").digest("hex");

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
 * The walk of one chain in order: each row must sit at the next position (1, 2, 3, …) and carry
 * sha256(previous hash ‖ canonical body). A changed field, a removed, inserted or reordered row
 * breaks the chain at that row. `verdict(expected)` with the head kept beside the chain also
 * catches rows removed from the end.
 */
export class ChainWalk {
  private entries = 0;
  private prev: string | null = null;
  private firstBad: string | null = null;

  step(id: string, seq: bigint | number | string, hash: string, canonical: string): void {
    this.entries++;
    if (this.firstBad === null && (Number(seq) !== this.entries || sha256Hex((this.prev ?? GENESIS) + canonical) !== hash)) this.firstBad = id;
    this.prev = hash;
  }

  verdict(expected?: { seq: bigint | number | string; head: string | null }): ChainVerdict {
    const tailOk = !expected || (Number(expected.seq) === this.entries && (expected.head ?? null) === this.prev);
    return { entries: this.entries, head: this.prev, ok: this.firstBad === null && tailOk, firstBadEntryId: this.firstBad };
  }
}

/** Walks rows in chain order (see ChainWalk) and checks the tail against `expected`. */
export async function verifyChain(
  rows: Iterable<ChainRow> | AsyncIterable<ChainRow>,
  expected?: { seq: bigint | number | string; head: string | null },
): Promise<ChainVerdict> {
  const walk = new ChainWalk();
  for await (const row of rows) walk.step(row.id, row.seq, row.hash, row.canonical);
  return walk.verdict(expected);
}
