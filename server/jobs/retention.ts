// Retention (docs/operations.md, "Retention"): finished jobs (SUCCEEDED or FAILED) are deleted
// JOB_RETENTION_DAYS after they finished, and idempotency records once they expired (24 h after
// the request: the contract keeps a key that long), and raw link clicks CLICK_RETENTION_DAYS after
// the click, once rolled up per day (links/retention.ts), and the portal's expired wallet
// challenges and ended sessions (portal/retention.ts). Deletion runs in bounded batches, each its
// own short statement that skips rows another transaction holds (FOR UPDATE SKIP LOCKED), so a
// sweep never blocks intake nor the runners, and a huge backlog is worked off a batch at a time.
// Called by the embedded schedule (server/jobs/worker.ts) and the Inngest cron function.
import { db, pgliteTurn } from "../db/client";
import { env } from "../shared/env";
import { DELETE_EXPIRED_CLICKS, rollUpClickDays } from "../domain/links/retention";
import { DELETE_ENDED_PORTAL_SESSIONS, DELETE_EXPIRED_WALLET_CHALLENGES } from "../domain/portal/retention";

export interface RetentionOptions {
  now?: Date;
  /** Raw link clicks older than this many days are deleted, after their day's rollup (default CLICK_RETENTION_DAYS). */
  clickRetentionDays?: number;
  /** Finished jobs older than this many days are deleted (default JOB_RETENTION_DAYS). */
  jobRetentionDays?: number;
  /** Rows per DELETE statement (default RETENTION_BATCH_SIZE). */
  batchSize?: number;
  /** Upper bound on statements per table in one sweep; the next sweep continues. */
  maxBatches?: number;
}

export interface RetentionResult {
  jobsDeleted: number;
  idempotencyRecordsDeleted: number;
  /** Raw link clicks deleted (their days stay in the daily rollups). */
  clicksDeleted: number;
  /** Portal sessions a day after they ended (with a device's visitor hash: once raw clicks of that age are gone). */
  portalSessionsDeleted: number;
  /** Portal wallet challenges once expired. */
  walletChallengesDeleted: number;
  /** True when a table still had rows to delete after maxBatches statements. */
  more: boolean;
}

const DAY_MS = 86_400_000;

/** Runs `sql` ($1 cutoff, $2 batch size, then `more`) until a batch deletes fewer rows than it may, or maxBatches. */
async function deleteInBatches(sql: string, cutoff: Date, batchSize: number, maxBatches: number, ...more: unknown[]) {
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const n = await db.$executeRawUnsafe(sql, cutoff.toISOString(), batchSize, ...more);
    total += n;
    if (n < batchSize) return { total, more: false };
    await pgliteTurn(); // the process's requests between batches, not after the whole sweep
  }
  return { total, more: true };
}

export async function sweepRetention(opts: RetentionOptions = {}): Promise<RetentionResult> {
  const now = opts.now ?? new Date();
  const days = opts.jobRetentionDays ?? env.jobRetentionDays;
  const batchSize = opts.batchSize ?? env.retentionBatchSize;
  const maxBatches = opts.maxBatches ?? 1000;
  const jobs = await deleteInBatches(
    `DELETE FROM "Job" WHERE id IN (
       SELECT id FROM "Job" WHERE status IN ('SUCCEEDED', 'FAILED') AND "finishedAt" < $1::timestamp(3)
        ORDER BY "finishedAt" LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    new Date(now.getTime() - days * DAY_MS),
    batchSize,
    maxBatches,
  );
  const idem = await deleteInBatches(
    `DELETE FROM "IdempotencyRecord" WHERE id IN (
       SELECT id FROM "IdempotencyRecord" WHERE "expiresAt" < $1::timestamp(3)
        ORDER BY "expiresAt" LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    now,
    batchSize,
    maxBatches,
  );
  await rollUpClickDays(now);
  const clickCutoff = new Date(now.getTime() - (opts.clickRetentionDays ?? env.clickRetentionDays) * DAY_MS);
  const clicks = await deleteInBatches(DELETE_EXPIRED_CLICKS, clickCutoff, batchSize, maxBatches);
  const challenges = await deleteInBatches(DELETE_EXPIRED_WALLET_CHALLENGES, now, batchSize, maxBatches);
  const sessions = await deleteInBatches(DELETE_ENDED_PORTAL_SESSIONS, new Date(now.getTime() - DAY_MS), batchSize, maxBatches, clickCutoff.toISOString());
  return {
    jobsDeleted: jobs.total,
    idempotencyRecordsDeleted: idem.total,
    clicksDeleted: clicks.total,
    portalSessionsDeleted: sessions.total,
    walletChallengesDeleted: challenges.total,
    more: jobs.more || idem.more || clicks.more || challenges.more || sessions.more,
  };
}
