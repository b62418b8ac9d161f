// Claiming jobs. A claim sets status RUNNING with a lease (lockedUntil) and a fresh lock token
// (lockedBy); the executing transaction checks that token (execute.ts). A job left RUNNING by a
// crash is claimable again once its lease has expired. Timestamps are compared in UTC
// (`now() AT TIME ZONE 'UTC'`): Prisma stores DateTime as UTC in timestamp(3) columns, whatever
// the database server's TimeZone.
import { randomUUID } from "node:crypto";
import { db, rawRows } from "../db/client";
import type { Job, JobType } from "../db/generated";
import { env } from "../shared/env";

const ALL_JOB_TYPES: readonly JobType[] = ["EVENT_PROCESS", "SDK_REFERRAL_APPLY", "WEBHOOK_DELIVER", "REWARD_PAYOUT", "LIABILITY_PROOF"];

/**
 * Claims up to `limit` due jobs of each of the given types: QUEUED and due, or RUNNING with an
 * expired lease. Two index scans per type on (type, status, runAt), each stopping after `limit`
 * rows, so a backlog of queued jobs (of these types or of others) does not make a poll sort it.
 * `dueForMs`: a queued job only once it has been due that long (the webhook pool yielding to a
 * backlog of events, runner.ts).
 */
export async function claimDueJobs(limit: number, types: readonly JobType[] = ALL_JOB_TYPES, dueForMs = 0): Promise<Job[]> {
  const token = randomUUID();
  // $1 lease, $2 token, $3 limit, $4 how long a queued job must have been due (ms), then one parameter per type.
  const scans = types.flatMap((_, i) => [
    `queued${i} AS (SELECT id FROM "Job" WHERE type = $${i + 5}::"JobType" AND status = 'QUEUED' AND "runAt" <= (now() AT TIME ZONE 'UTC') - ($4::int * interval '1 millisecond')
        ORDER BY "runAt" LIMIT $3 FOR UPDATE SKIP LOCKED)`,
    `expired${i} AS (SELECT id FROM "Job" WHERE type = $${i + 5}::"JobType" AND status = 'RUNNING' AND "lockedUntil" < (now() AT TIME ZONE 'UTC')
        ORDER BY "runAt" LIMIT $3 FOR UPDATE SKIP LOCKED)`,
  ]);
  const ids = types.flatMap((_, i) => [`SELECT id FROM queued${i}`, `SELECT id FROM expired${i}`]).join(" UNION ALL ");
  // Up to a thousand rows back: straight to the pool on PostgreSQL (rawRows, db/client.ts).
  const rows = await rawRows<Job>(
    `WITH ${scans.join(",\n      ")}
     UPDATE "Job" SET status = 'RUNNING', attempts = attempts + 1, "lockedUntil" = (now() AT TIME ZONE 'UTC') + ($1::int * interval '1 millisecond'),
        "lockedBy" = $2 || ':' || id, "startedAt" = COALESCE("startedAt", (now() AT TIME ZONE 'UTC')), "updatedAt" = (now() AT TIME ZONE 'UTC')
      WHERE id IN (${ids})
      RETURNING *`,
    env.jobLeaseMs,
    token,
    limit,
    Math.max(0, Math.round(dueForMs)),
    ...types,
  );
  return rows.sort((a, b) => a.runAt.getTime() - b.runAt.getTime());
}

/**
 * Claims one specific job (the Inngest path: the event names the job) when it is due: QUEUED
 * with its backoff over (runAt ≤ now), or RUNNING with an expired lease. A redelivered or early
 * event therefore never runs a job before its time.
 */
export async function claimJob(jobId: string): Promise<Job | null> {
  const token = randomUUID();
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    `UPDATE "Job" SET status = 'RUNNING', attempts = attempts + 1, "lockedUntil" = (now() AT TIME ZONE 'UTC') + ($1::int * interval '1 millisecond'),
        "lockedBy" = $2 || ':' || id, "startedAt" = COALESCE("startedAt", (now() AT TIME ZONE 'UTC')), "updatedAt" = (now() AT TIME ZONE 'UTC')
      WHERE id = $3 AND ((status = 'QUEUED' AND "runAt" <= (now() AT TIME ZONE 'UTC')) OR (status = 'RUNNING' AND "lockedUntil" < (now() AT TIME ZONE 'UTC')))
      RETURNING id`,
    env.jobLeaseMs,
    token,
    jobId,
  );
  return rows.length ? db.job.findUnique({ where: { id: jobId } }) : null;
}
