// A transaction that runs again when the database aborted it only to break a lock cycle or a
// serialization conflict. Two paths take the same row locks in different orders by design (the
// worker's batches take the pool lock, then the referral rows; a synchronous event locks its
// referral rows first and the pool only when a decision pays), so PostgreSQL may pick one of
// them as a deadlock victim. Such a transaction left nothing behind: running it again is
// the answer, not a 500.
import { db, type Prisma, type Tx } from "./client";
import { sqlState } from "./unique-violation";

/** SQLSTATEs of a transaction aborted to let another one through: deadlock_detected, serialization_failure. */
const RETRYABLE = new Set(["40P01", "40001"]);

/** Prisma's own code for the same (a model query that lost a deadlock or a write conflict). */
const PRISMA_CONFLICT = "P2034";

export function isRetryableConflict(e: unknown): boolean {
  const code = sqlState(e);
  return (code !== null && RETRYABLE.has(code)) || (e as { code?: unknown } | null)?.code === PRISMA_CONFLICT;
}

/** Attempts in all: a cycle broken twice in a row is rare; three means something keeps colliding. */
const ATTEMPTS = 3;

/**
 * db.$transaction(fn, options), run again (up to three attempts) when it was aborted as a
 * deadlock victim or by a serialization failure. `fn` must not keep effects outside the
 * transaction between attempts (it runs from the start each time).
 */
export async function transactionRetried<T>(fn: (tx: Tx) => Promise<T>, options?: { timeout?: number; maxWait?: number; isolationLevel?: Prisma.TransactionIsolationLevel }): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.$transaction(fn, options);
    } catch (e) {
      if (attempt >= ATTEMPTS || !isRetryableConflict(e)) throw e;
    }
  }
}
