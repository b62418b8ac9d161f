// A claim's leases, renewed while its process works on them. A lease is how long a claimed job
// stays its process's before another may take it over (its process presumably died): a live
// process holding a large claim, or a claim waiting behind the one before for its business's pool
// lock, must not lose its jobs to another worker only because the work outlasts one lease.
import { db, dbKind } from "../db/client";
import type { Job } from "../db/generated";
import { env } from "../shared/env";

/**
 * Renews the leases of `jobs` every third of a lease until the returned function is called. On
 * PostgreSQL only: there other processes claim from the same table; PGlite's database belongs to
 * one process, whose claims of events are one at a time.
 */
export function holdLeases(jobs: readonly Job[]): () => void {
  if (dbKind() !== "postgres" || !jobs.length) return () => {};
  const ids = jobs.map((j) => j.id);
  const tokens = jobs.map((j) => j.lockedBy ?? "");
  const timer = setInterval(() => {
    // A renewal that fails (a connection lost) is tried again at the next tick; the lease is the backstop.
    renewLeases(ids, tokens).catch(() => {});
  }, Math.max(100, Math.floor(env.jobLeaseMs / 3)));
  timer.unref();
  return () => clearInterval(timer);
}

/** Extends the leases of the jobs still running under these tokens (a job taken over, or finished, is left alone). */
async function renewLeases(ids: string[], tokens: string[]): Promise<number> {
  return db.$executeRawUnsafe(
    `UPDATE "Job" SET "lockedUntil" = (now() AT TIME ZONE 'UTC') + ($1::int * interval '1 millisecond')
      WHERE id = ANY($2::text[]) AND status = 'RUNNING' AND "lockedBy" = ANY($3::text[])`,
    env.jobLeaseMs,
    ids,
    tokens,
  );
}
