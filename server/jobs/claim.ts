// Claiming jobs. A claim sets status RUNNING with a lease (lockedUntil) and a fresh lock token
// (lockedBy); the executing transaction checks that token (execute.ts). A job left RUNNING by a
// crash is claimable again once its lease has expired. Timestamps are compared in UTC
// (`now() AT TIME ZONE 'UTC'`): Prisma stores DateTime as UTC in timestamp(3) columns, whatever
// the database server's TimeZone.
import { randomUUID } from "node:crypto";
import { db, rawRows } from "../db/client";
import type { Job, JobType } from "../db/generated";
import { env } from "../shared/env";
import { RECOVERY_TX_SIZE } from "./batch-units";

const ALL_JOB_TYPES: readonly JobType[] = ["EVENT_PROCESS", "SDK_REFERRAL_APPLY", "WEBHOOK_DELIVER", "REWARD_PAYOUT", "LIABILITY_PROOF", "EMAIL_SEND"];

/**
 * Where a loop's claims take turns among businesses (claimDueJobs' `turns`): the last business
 * served, so that the next claim starts after it.
 */
export interface ClaimTurns {
  after: string;
  /**
   * How many jobs of a business the claim may take at most (the runner's pools: the places it
   * holds). With it, a claim is the businesses' shares only, each within its room.
   */
  room?: (businessId: string) => number;
  /**
   * With `room`: the claim's `dueForMs` holds only for the businesses in a burst (the webhook pool
   * yields to a business's own backlog of events, runner.ts): those with queued jobs of these
   * `types`, and those `busy` names (their last claimed jobs are still running). The other
   * businesses' jobs are taken once due.
   */
  yieldTo?: { types: readonly JobType[]; busy?: () => Iterable<string> };
}

/** Businesses with queued jobs a claim looks at, at most: beyond them, the next claims do (turns). */
const FAIR_BUSINESSES = 64;

// The claim statements' common parameters: $4 how long a queued job must have been due (ms),
// from $5 one parameter per type.
const DUE = `(now() AT TIME ZONE 'UTC') - ($4::int * interval '1 millisecond')`;
const typeParam = (i: number) => `$${i + 5}::"JobType"`;
/** A job a crashed process left RUNNING: its lease has expired. */
const EXPIRED = `status = 'RUNNING' AND "lockedUntil" < (now() AT TIME ZONE 'UTC')`;

/**
 * Businesses with due queued jobs of these types, in id order from the one after `after` (around
 * to the first again), at most FAIR_BUSINESSES: a skip scan of the index on (type, businessId,
 * runAt) of queued jobs (migration 0167), a probe or two per business with queued jobs, whatever
 * the backlog. `dueMs` as claimDueJobs' `dueForMs`.
 */
async function queuedBusinesses(types: readonly JobType[], after: string, dueMs: number): Promise<string[]> {
  // Businesses in (start, upTo], upTo null: to the end.
  const between = async (start: string, upTo: string | null, limit: number) => {
    if (limit <= 0) return [];
    const t = typeParam;
    const scans = types.map(
      (_, i) => `s${i} AS (
        (SELECT "businessId" AS b FROM "Job" WHERE type = ${t(i)} AND status = 'QUEUED' AND "businessId" > $1 ORDER BY "businessId" LIMIT 1)
        UNION ALL
        SELECT (SELECT j."businessId" FROM "Job" j WHERE j.type = ${t(i)} AND j.status = 'QUEUED' AND j."businessId" > s${i}.b ORDER BY j."businessId" LIMIT 1)
          FROM s${i} WHERE s${i}.b IS NOT NULL AND ($3::text IS NULL OR s${i}.b < $3::text))`,
    );
    // One probe per business (a scalar subquery, run for each row found): as EXISTS, the planner
    // may instead hash every due queued job of the type, each claim reading through a backlog.
    const due = (i: number) =>
      `(SELECT true FROM "Job" d WHERE d.type = ${t(i)} AND d.status = 'QUEUED' AND d."businessId" = s${i}.b AND d."runAt" <= ${DUE} LIMIT 1)`;
    const rows = await rawRows<{ b: string }>(
      `WITH RECURSIVE ${scans.join(",\n      ")}
       SELECT b FROM (${types.map((_, i) => `(SELECT b FROM s${i} WHERE b IS NOT NULL AND ($3::text IS NULL OR b <= $3::text) AND ${due(i)} LIMIT $2)`).join(" UNION ")}) u ORDER BY b LIMIT $2`,
      start,
      limit,
      upTo,
      dueMs,
      ...types,
    );
    return rows.map((r) => r.b);
  };
  const later = await between(after, null, FAIR_BUSINESSES);
  const earlier = after ? await between("", after, FAIR_BUSINESSES - later.length) : [];
  return [...later, ...earlier];
}

/**
 * Businesses with jobs of these types a crashed process left RUNNING (lease expired), at most
 * FAIR_BUSINESSES: an index range over the running jobs only (a pool's few in flight).
 */
async function expiredBusinesses(types: readonly JobType[]): Promise<string[]> {
  const rows = await rawRows<{ b: string }>(
    `SELECT DISTINCT "businessId" AS b FROM "Job" WHERE type = ANY($1::"JobType"[]) AND ${EXPIRED} LIMIT $2`,
    [...types],
    FAIR_BUSINESSES,
  );
  return rows.map((r) => r.b);
}

/**
 * Claims up to `limit` due jobs of each of the given types: QUEUED and due, or RUNNING with an
 * expired lease. Two index scans per type on (type, status, runAt), each stopping after `limit`
 * rows, so a backlog of queued jobs (of these types or of others) does not make a poll sort it.
 * `dueForMs`: a queued job only once it has been due that long (the webhook pool yielding to a
 * backlog of events, runner.ts).
 *
 * With `turns` (the runner's loops), no business's backlog holds another's jobs back: when
 * several businesses have queued jobs, each one's oldest due jobs, up to an equal share of the
 * claim, come first, the businesses taken in turn from the one after the last served; what the
 * shares leave of `limit` goes to the oldest due jobs of any business. A business alone gets
 * the whole claim. `turns.room`: how many jobs of each business the claim may take (a pool's
 * places); the claim is then the shares only, each within its room, expired leases included;
 * `turns.yieldTo` then limits `dueForMs` to the businesses in a burst.
 */
export async function claimDueJobs(limit: number, types: readonly JobType[] = ALL_JOB_TYPES, dueForMs = 0, turns?: ClaimTurns): Promise<Job[]> {
  const token = randomUUID();
  const dueMs = Math.max(0, Math.round(dueForMs));
  // With rooms, only the businesses' shares within them (no oldest-first fill, which could take
  // more of one business, and would read through a backlog of those that have no room).
  const roomOf = turns?.room;
  const sharesOnly = roomOf !== undefined;
  // With `yieldTo` the wait applies per business (in the shares, below): the businesses are found whatever it is.
  const yieldTo = sharesOnly && dueMs > 0 && turns?.yieldTo ? turns.yieldTo : null;
  const queued = turns ? await queuedBusinesses(types, turns.after, yieldTo ? 0 : dueMs) : [];
  // With rooms, a job a crashed process left RUNNING is taken within its business's room too (a
  // restart must not fill a pool with one business's hanging deliveries): its business has a turn
  // even with nothing queued.
  if (sharesOnly) for (const b of await expiredBusinesses(types)) if (!queued.includes(b)) queued.push(b);
  const share = Math.ceil(limit / Math.max(1, queued.length));
  // The businesses in turn with how many of their jobs this claim may take (those that may take some).
  const turnsOf = queued.map((id) => ({ id, most: Math.min(share, roomOf ? Math.max(0, Math.floor(roomOf(id))) : share) })).filter((b) => b.most > 0);
  const businesses = turnsOf.map((b) => b.id);
  if (sharesOnly && businesses.length === 0) return [];
  const fair = businesses.length > 0 && (sharesOnly || businesses.length > 1);
  // $1 lease, $2 token, $3 limit, $4 how long a queued job must have been due (ms), one parameter
  // per type, then (in turns) the businesses in turn and how many jobs of each at most.
  const params: unknown[] = [env.jobLeaseMs, token, limit, dueMs, ...types];
  const param = (v: unknown) => `$${params.push(v)}`;
  const inTurn = fair ? `unnest(${param(businesses)}::text[], ${param(turnsOf.map((b) => b.most))}::int[]) WITH ORDINALITY AS b(id, most, n)` : "";
  // With `yieldTo`, each business's wait in ms (w.ms): $4 while it is in a burst, else none; without, DUE.
  const burstWait =
    fair && yieldTo
      ? `CROSS JOIN LATERAL (SELECT CASE WHEN b.id = ANY(${param([...(yieldTo.busy?.() ?? [])])}::text[])
           OR EXISTS (SELECT 1 FROM "Job" e WHERE e.type = ANY(${param(yieldTo.types)}::"JobType"[]) AND e.status = 'QUEUED' AND e."businessId" = b.id)
           THEN $4::int ELSE 0 END AS ms) w`
      : "";
  const sharesDue = burstWait ? `(now() AT TIME ZONE 'UTC') - (w.ms * interval '1 millisecond')` : DUE;
  const t = typeParam;
  // Each business's share (in turn): its jobs of type i matching `which`, oldest first, at most
  // b.most of them; `k` orders them within the business: with rooms, its expired jobs (k 0) come
  // before its queued due ones (k 1) within the same b.most (below). `join`: the burst's wait.
  const shareOf = (i: number, which: string, k: number, join = "") =>
    `SELECT j.id, b.n AS turn, j."runAt", b.id AS biz, b.most, ${k} AS k FROM ${inTurn} ${join}
      CROSS JOIN LATERAL (SELECT id, "runAt" FROM "Job" WHERE type = ${t(i)} AND ${which} AND "businessId" = b.id
                           ORDER BY "runAt" LIMIT b.most FOR UPDATE SKIP LOCKED) j`;
  const scans = types.flatMap((_, i) => [
    ...(fair ? [`shares${i} AS (${shareOf(i, `status = 'QUEUED' AND "runAt" <= ${sharesDue}`, 1, burstWait)})`] : []),
    ...(sharesOnly
      ? [`expiredShares${i} AS (${shareOf(i, EXPIRED, 0)})`]
      : [
          `queued${i} AS (SELECT id, "runAt" FROM "Job" WHERE type = ${t(i)} AND status = 'QUEUED' AND "runAt" <= ${DUE}
            ORDER BY "runAt" LIMIT $3 FOR UPDATE SKIP LOCKED)`,
          // Jobs a crashed process left RUNNING, taken again first (with rooms: in the shares).
          // ($4 is named here too: a claim of expired jobs only still types every parameter.)
          // A few at a time (RECOVERY_TX_SIZE): after a crash, the jobs it held spread over the
          // processes left instead of all going to the first that claims, where one more crash
          // would cost every one of them another attempt.
          `expired${i} AS (SELECT id, "runAt" FROM "Job" WHERE type = ${t(i)} AND ${EXPIRED} AND $4::int >= 0
            ORDER BY "runAt" LIMIT LEAST($3, ${RECOVERY_TX_SIZE}) FOR UPDATE SKIP LOCKED)`,
        ]),
  ]);
  // Expired leases first, then the shares (in turn), then the oldest; each job once, `limit` in
  // all. With rooms, the shares only, at most b.most jobs of each business over all types,
  // its expired ones first: a restart cannot fill a pool with one business's jobs.
  const candidates = sharesOnly
    ? `SELECT id, turn, "runAt" FROM (SELECT id, turn, "runAt", most, row_number() OVER (PARTITION BY biz ORDER BY k, "runAt") AS r
         FROM (${types.flatMap((_, i) => [`SELECT * FROM expiredShares${i}`, `SELECT * FROM shares${i}`]).join(" UNION ALL ")}) x) y WHERE r <= most`
    : types
        .flatMap((_, i) => [
          `SELECT id, 0::bigint AS turn, "runAt" FROM expired${i}`,
          ...(fair ? [`SELECT id, turn, "runAt" FROM shares${i}`] : []),
          `SELECT id, ${FAIR_BUSINESSES + 1}::bigint AS turn, "runAt" FROM queued${i}`,
        ])
        .join(" UNION ALL ");
  // Up to a thousand rows back: straight to the pool on PostgreSQL (rawRows, db/client.ts).
  const rows = await rawRows<Job>(
    `WITH ${scans.join(",\n      ")},
      chosen AS (SELECT id FROM (SELECT DISTINCT ON (id) id, turn, "runAt" FROM (${candidates}) c ORDER BY id, turn) d ORDER BY turn, "runAt" LIMIT $3)
     UPDATE "Job" SET status = 'RUNNING', attempts = attempts + 1, "lockedUntil" = (now() AT TIME ZONE 'UTC') + ($1::int * interval '1 millisecond'),
        "lockedBy" = $2 || ':' || id, "startedAt" = COALESCE("startedAt", (now() AT TIME ZONE 'UTC')), "updatedAt" = (now() AT TIME ZONE 'UTC')
      WHERE id IN (SELECT id FROM chosen)
      RETURNING *`,
    ...params,
  );
  if (turns && fair) {
    // The next claim starts after the last business served here, in this claim's turn order.
    const served = new Set(rows.map((r) => r.businessId));
    const last = [...businesses].reverse().find((b) => served.has(b));
    if (last) turns.after = last;
  }
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
      WHERE id = $3 AND ((status = 'QUEUED' AND "runAt" <= (now() AT TIME ZONE 'UTC')) OR (${EXPIRED}))
      RETURNING id`,
    env.jobLeaseMs,
    token,
    jobId,
  );
  return rows.length ? db.job.findUnique({ where: { id: jobId } }) : null;
}
