// Executing one claimed job: the executing transaction first re-locks the row and checks the
// claim's lock token (claim.ts), so a runner whose lease expired (another runner took the job
// over) cannot commit its work too. Its work and its SUCCEEDED mark commit together; a failure
// schedules a retry with backoff or fails the job for good. runJob is the entry point by id.
import { db, type DirectSql } from "../db/client";
import type { Job, Prisma } from "../db/generated";
import { AppError, toAppError } from "../shared/errors";
import { env } from "../shared/env";
import { PRICE_RETRY_MS } from "../domain/rules/commissions";
import { claimJob } from "./claim";
import { handlers } from "./handlers";

export type RunOutcome =
  | { status: "SUCCEEDED"; result: unknown }
  | { status: "FAILED"; error: string }
  /** Will be retried (backoff) */
  | { status: "RETRY"; error: string; runAt: Date }
  /** Not due yet (its backoff runs until runAt): nothing was done; try again at runAt */
  | { status: "NOT_DUE"; runAt: Date }
  /** Another worker holds a live lease */
  | { status: "BUSY" };

class LeaseLost extends Error {}

/** Retry delay after the n-th failed attempt: 1 s, 2 s, 4 s … capped at 5 min, with jitter. */
export function backoffMs(attempt: number): number {
  const base = Math.min(300_000, 1000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** A 4xx AppError is the job's definite answer (e.g. unknown referral code): no retry. */
const isPermanent = (e: AppError) => e.status >= 400 && e.status < 500 && e.code !== "RATE_LIMITED" && e.code !== "CONFLICT";

/** Locks the job row; throws LeaseLost unless this claim (its lock token) still holds it. */
async function ownsJob(tx: Prisma.TransactionClient, job: Job) {
  const [row] = await tx.$queryRawUnsafe<{ lockedBy: string | null; status: string }[]>(`SELECT "lockedBy", status::text AS status FROM "Job" WHERE id = $1 FOR UPDATE`, job.id);
  if (!row || row.status !== "RUNNING" || row.lockedBy !== job.lockedBy) throw new LeaseLost();
}

/**
 * Executes a claimed job: work + SUCCEEDED in one transaction; else retry or FAILED. `done`: its
 * perform step already ran (the webhook pool's POST, whose bulk record failed): only record it.
 */
export async function executeClaimedJob(job: Job, done?: { performed: unknown }): Promise<RunOutcome> {
  if (leaseExhausted(job)) return failExhausted(job);
  const handler = handlers[job.type];
  try {
    const performed = done ? done.performed : handler.perform ? await handler.perform(job) : undefined;
    const result = await db.$transaction(
      async (tx) => {
        await ownsJob(tx, job);
        // What a job run alone takes first (an event: its business's pool lock, as a batch does).
        await handler.alone?.(tx, job);
        const r = await handler.run(tx, job, performed);
        if (isWaiting(r)) {
          await deferJobs(tx, [job]);
          return r;
        }
        await tx.job.update({ where: { id: job.id }, data: { status: "SUCCEEDED", result: r, lastError: null, lockedUntil: null, lockedBy: null, finishedAt: new Date() } });
        return r;
      },
      { timeout: Math.max(5_000, env.jobLeaseMs) },
    );
    if (isWaiting(result)) return { status: "RETRY", error: String(result.reason), runAt: new Date(Date.now() + WAIT_RETRY_MS) };
    return { status: "SUCCEEDED", result };
  } catch (e) {
    if (e instanceof LeaseLost) return { status: "BUSY" };
    return recordFailure(job, e);
  }
}

/**
 * Marks claimed jobs SUCCEEDED with their results in one statement, in the transaction of their
 * effects (a batch of events, the webhook pool's attempts). The results go as one jsonb
 * parameter: a jsonb[] costs pg an escaping pass per element and the database an array parse
 * before each result's own; the document is parsed once and each result taken out of it as jsonb
 * as it is (json_to_recordset into a jsonb column is several times slower: it re-reads each
 * value as text).
 */
export function markSucceeded(sql: DirectSql, done: { id: string; result: Prisma.InputJsonObject }[]): Promise<number> {
  const now = new Date().toISOString();
  return sql.execute(
    `UPDATE "Job" AS j SET status = 'SUCCEEDED', result = d.result, "lastError" = NULL, "lockedUntil" = NULL, "lockedBy" = NULL,
            "finishedAt" = $2::timestamp(3), "updatedAt" = $2::timestamp(3)
       FROM (SELECT x->>'id' AS id, x->'result' AS result FROM jsonb_array_elements($1::jsonb) AS x) AS d
      WHERE j.id = d.id AND j.id = ANY($3::text[])`,
    JSON.stringify(done),
    now,
    // The ids again as an array, whose length the planner knows (a JSON document's it
    // guesses): the rows are found through the primary key, not a scan of the table.
    done.map((s) => s.id),
  );
}

/** How long an event that waits for a price (PRICE_UNAVAILABLE) waits before its job runs again; setting a price wakes it at once. */
export const WAIT_RETRY_MS = PRICE_RETRY_MS;

/** A handler's result that says "not yet": the event waits (rules/decide.ts `wait`), its job is rescheduled. */
export const isWaiting = (r: unknown): r is { wait: true; reason?: unknown } => typeof r === "object" && r !== null && (r as { wait?: unknown }).wait === true;

/** Reschedules claimed jobs whose event waits: QUEUED again at WAIT_RETRY_MS, the attempt given back (waiting is not failing). */
export async function deferJobs(tx: Prisma.TransactionClient, jobs: Job[]): Promise<void> {
  if (!jobs.length) return;
  await tx.$executeRawUnsafe(
    `UPDATE "Job" SET status = 'QUEUED', attempts = GREATEST(0, attempts - 1), "lastError" = 'PRICE_UNAVAILABLE', "runAt" = $2::timestamp(3), "lockedUntil" = NULL, "lockedBy" = NULL, "updatedAt" = $3::timestamp(3)
      WHERE id = ANY($1::text[])`,
    jobs.map((j) => j.id),
    new Date(Date.now() + WAIT_RETRY_MS).toISOString(),
    new Date().toISOString(),
  );
}

/**
 * True for a job taken again after its lease expired once its attempts are spent: every attempt
 * ended with the process that ran it (killed, out of memory), which recordFailure never saw. Run
 * again it would only take a process down once more, with the jobs claimed beside it.
 */
export const leaseExhausted = (job: Job) => job.attempts > job.maxAttempts;

/** Fails a job whose attempts all ended with their process (leaseExhausted), as a last failed attempt would. */
export function failExhausted(job: Job): Promise<RunOutcome> {
  return recordFailure(job, new AppError("INTERNAL", `LEASE_EXPIRED: each of its ${job.maxAttempts} attempts ended without an outcome (the process running it stopped)`));
}

/** A claimed job's attempt failed (nothing of it committed): schedule the retry, or fail it for good. */
export async function recordFailure(job: Job, e: unknown): Promise<RunOutcome> {
  const handler = handlers[job.type];
  const err = toAppError(e);
  const message = `${err.code}: ${err.message}`.slice(0, 1000);
  const final = isPermanent(err) || job.attempts >= job.maxAttempts;
  try {
    return await db.$transaction(async (tx) => {
      await ownsJob(tx, job);
      if (final) {
        await handler.onFailed?.(tx, job, err);
        await tx.job.update({ where: { id: job.id }, data: { status: "FAILED", lastError: message, lockedUntil: null, lockedBy: null, finishedAt: new Date() } });
        return { status: "FAILED", error: message } as const;
      }
      const runAt = new Date(Date.now() + backoffMs(job.attempts));
      await tx.job.update({ where: { id: job.id }, data: { status: "QUEUED", lastError: message, runAt, lockedUntil: null, lockedBy: null } });
      return { status: "RETRY", error: message, runAt } as const;
    });
  } catch (e2) {
    if (e2 instanceof LeaseLost) return { status: "BUSY" };
    // The database is unreachable: the lease will expire and the job will be taken again.
    console.error("[jobs] could not record the outcome of job", job.id, (e2 as Error).message);
    return { status: "RETRY", error: message, runAt: new Date(Date.now() + env.jobLeaseMs) };
  }
}

/**
 * The single entry point for executing a job by id (Inngest functions call this). A job that
 * already finished answers its stored outcome, so a redelivered event does nothing twice; a
 * job whose backoff is not over answers NOT_DUE with its runAt and is left untouched.
 */
export async function runJob(jobId: string): Promise<RunOutcome> {
  const claimed = await claimJob(jobId);
  if (claimed) return executeClaimedJob(claimed);
  const job = await db.job.findUnique({ where: { id: jobId } });
  if (!job) throw new AppError("NOT_FOUND", `Job ${jobId} not found`);
  if (job.status === "SUCCEEDED") return { status: "SUCCEEDED", result: job.result };
  if (job.status === "FAILED") return { status: "FAILED", error: job.lastError ?? "failed" };
  if (job.status === "QUEUED") return { status: "NOT_DUE", runAt: job.runAt };
  return { status: "BUSY" };
}
