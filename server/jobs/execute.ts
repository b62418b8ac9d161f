// Claiming and executing jobs. A claim sets status RUNNING with a lease (lockedUntil) and a
// fresh lock token; the executing transaction first re-locks the row and checks that token, so
// a runner whose lease expired (another runner took the job over) cannot commit its work too.
// A job left RUNNING by a crash is claimable again once its lease has expired.
// Timestamps are compared in UTC (`now() AT TIME ZONE 'UTC'`): Prisma stores DateTime as UTC in
// timestamp(3) columns, whatever the database server's TimeZone.
import { randomUUID } from "node:crypto";
import { db } from "../db/client";
import type { Job, Prisma } from "../db/generated";
import { AppError, toAppError } from "../shared/errors";
import { env } from "../shared/env";
import { handlers } from "./handlers";

export type RunOutcome =
  | { status: "SUCCEEDED"; result: unknown }
  | { status: "FAILED"; error: string }
  /** Will be retried (backoff) */
  | { status: "RETRY"; error: string; runAt: Date }
  /** Another worker holds a live lease, or the job is not due yet */
  | { status: "BUSY" };

class LeaseLost extends Error {}

/** Retry delay after the n-th failed attempt: 1 s, 2 s, 4 s … capped at 5 min, with jitter. */
export function backoffMs(attempt: number): number {
  const base = Math.min(300_000, 1000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** A 4xx AppError is the job's definite answer (e.g. unknown referral code): no retry. */
const isPermanent = (e: AppError) => e.status >= 400 && e.status < 500 && e.code !== "RATE_LIMITED" && e.code !== "CONFLICT";

/**
 * Claims up to `limit` due jobs: QUEUED and due, or RUNNING with an expired lease. Two index
 * scans on (status, runAt), each stopping after `limit` rows, so a backlog of queued jobs does
 * not make every poll sort the whole backlog.
 */
export async function claimDueJobs(limit: number): Promise<Job[]> {
  const token = randomUUID();
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    `WITH queued AS (
        SELECT id FROM "Job" WHERE status = 'QUEUED' AND "runAt" <= (now() AT TIME ZONE 'UTC')
         ORDER BY "runAt" LIMIT $3 FOR UPDATE SKIP LOCKED),
      expired AS (
        SELECT id FROM "Job" WHERE status = 'RUNNING' AND "lockedUntil" < (now() AT TIME ZONE 'UTC')
         ORDER BY "runAt" LIMIT $3 FOR UPDATE SKIP LOCKED)
     UPDATE "Job" SET status = 'RUNNING', attempts = attempts + 1, "lockedUntil" = (now() AT TIME ZONE 'UTC') + ($1::int * interval '1 millisecond'),
        "lockedBy" = $2 || ':' || id, "startedAt" = COALESCE("startedAt", (now() AT TIME ZONE 'UTC')), "updatedAt" = (now() AT TIME ZONE 'UTC')
      WHERE id IN (SELECT id FROM queued UNION ALL SELECT id FROM expired)
      RETURNING id`,
    env.jobLeaseMs,
    token,
    limit,
  );
  if (rows.length === 0) return [];
  return db.job.findMany({ where: { id: { in: rows.map((r) => r.id) } }, orderBy: { runAt: "asc" } });
}

/** Claims one specific job (the Inngest path: the event names the job). */
export async function claimJob(jobId: string): Promise<Job | null> {
  const token = randomUUID();
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    `UPDATE "Job" SET status = 'RUNNING', attempts = attempts + 1, "lockedUntil" = (now() AT TIME ZONE 'UTC') + ($1::int * interval '1 millisecond'),
        "lockedBy" = $2 || ':' || id, "startedAt" = COALESCE("startedAt", (now() AT TIME ZONE 'UTC')), "updatedAt" = (now() AT TIME ZONE 'UTC')
      WHERE id = $3 AND ((status = 'QUEUED') OR (status = 'RUNNING' AND "lockedUntil" < (now() AT TIME ZONE 'UTC')))
      RETURNING id`,
    env.jobLeaseMs,
    token,
    jobId,
  );
  return rows.length ? db.job.findUnique({ where: { id: jobId } }) : null;
}

/** Executes a claimed job: work + SUCCEEDED in one transaction; else retry or FAILED. */
export async function executeClaimedJob(job: Job): Promise<RunOutcome> {
  const handler = handlers[job.type];
  const owns = async (tx: Prisma.TransactionClient) => {
    const [row] = await tx.$queryRawUnsafe<{ lockedBy: string | null; status: string }[]>(`SELECT "lockedBy", status::text AS status FROM "Job" WHERE id = $1 FOR UPDATE`, job.id);
    if (!row || row.status !== "RUNNING" || row.lockedBy !== job.lockedBy) throw new LeaseLost();
  };
  try {
    const result = await db.$transaction(
      async (tx) => {
        await owns(tx);
        const r = await handler.run(tx, job);
        await tx.job.update({ where: { id: job.id }, data: { status: "SUCCEEDED", result: r, lastError: null, lockedUntil: null, lockedBy: null, finishedAt: new Date() } });
        return r;
      },
      { timeout: Math.max(5_000, env.jobLeaseMs) },
    );
    return { status: "SUCCEEDED", result };
  } catch (e) {
    if (e instanceof LeaseLost) return { status: "BUSY" };
    const err = toAppError(e);
    const message = `${err.code}: ${err.message}`.slice(0, 1000);
    const final = isPermanent(err) || job.attempts >= job.maxAttempts;
    try {
      return await db.$transaction(async (tx) => {
        await owns(tx);
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
}

/**
 * The single entry point for executing a job by id (Inngest functions call this). A job that
 * already finished answers its stored outcome, so a redelivered event does nothing twice.
 */
export async function runJob(jobId: string): Promise<RunOutcome> {
  const claimed = await claimJob(jobId);
  if (claimed) return executeClaimedJob(claimed);
  const job = await db.job.findUnique({ where: { id: jobId } });
  if (!job) throw new AppError("NOT_FOUND", `Job ${jobId} not found`);
  if (job.status === "SUCCEEDED") return { status: "SUCCEEDED", result: job.result };
  if (job.status === "FAILED") return { status: "FAILED", error: job.lastError ?? "failed" };
  return { status: "BUSY" };
}
