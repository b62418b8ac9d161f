// The hot path of POST /track when the event is queued: the event row, its EVENT_PROCESS job
// and (with an idempotency key) the idempotency record with its final answer are written by
// ONE SQL statement. A single statement is atomic on its own, so it keeps the guarantee of the
// transactional path (the job commits with the event) without BEGIN/COMMIT round trips or
// per-query ORM work. Ids are generated here so the answer is known before the write.
// Anything unusual (the key exists already, replay, conflict, expiry) is left to the
// transactional path by returning null.
import { randomBytes } from "node:crypto";
import { db, type Tx } from "../../db/client";
import { env } from "../../shared/env";
import type { Scope } from "../participants/schemas";
import { IDEMPOTENCY_TTL_MS } from "./idempotency";
import { EVENT_QUEUED_MESSAGE, type TrackInput, type TrackQueuedOutput } from "./schemas";

export type ProcessingMode = "AUTO" | "SYNC" | "ASYNC";

let counter = randomBytes(2).readUInt16BE(0);

/** A 25-character, time-ordered, collision-resistant id in the shape of Prisma's cuid(). */
export function newId(): string {
  counter = (counter + 1) % 1_679_616; // 36^4
  const rand = randomBytes(8).readBigUInt64BE(0).toString(36).padStart(12, "0").slice(-12);
  return `c${Date.now().toString(36).padStart(8, "0").slice(-8)}${counter.toString(36).padStart(4, "0")}${rand}`;
}

const EVENT_AND_JOB = `
  e AS (
    INSERT INTO "TrackedEvent" (id, "businessId", environment, "apiKeyId", "eventName", referrer, metadata, campaign, source, "idempotencyKey", status, "createdAt", "updatedAt")
    SELECT $1, $2, $3::"Environment", $4, $5, $6, $7::jsonb, $8, $9, $10, 'QUEUED', $12::timestamp(3), $12::timestamp(3) FROM go
    RETURNING id
  ),
  j AS (
    INSERT INTO "Job" (id, "businessId", environment, "apiKeyId", type, status, payload, "maxAttempts", "runAt", "createdAt", "updatedAt")
    SELECT $11, $2, $3::"Environment", $4, 'EVENT_PROCESS', 'QUEUED', jsonb_build_object('eventId', e.id), $13, $12::timestamp(3), $12::timestamp(3), $12::timestamp(3) FROM e
    RETURNING id
  )
  SELECT (SELECT count(*) FROM j)::int AS inserted`;

// The business's processing mode is read by the same statement: nothing is written unless it
// is one of the modes that queue this event (the last parameter), and the mode is returned.
const MODE = `m AS (SELECT COALESCE((SELECT "eventProcessing"::text FROM "BusinessConfig" WHERE "businessId" = $2), 'AUTO') AS mode)`;
const queues = (param: number) => `(SELECT mode FROM m) = ANY($${param}::text[])`;

const WITHOUT_KEY = `WITH ${MODE}, go AS (SELECT 1 WHERE ${queues(14)}), ${EVENT_AND_JOB}, (SELECT mode FROM m) AS mode`;

const WITH_KEY = `WITH ${MODE}, claim AS (
    INSERT INTO "IdempotencyRecord" (id, "businessId", environment, key, route, "requestHash", "responseCode", "responseBody", "createdAt", "expiresAt")
    SELECT $14, $2, $3::"Environment", $10, $15, $16, 202, $17::jsonb, $12::timestamp(3), $18::timestamp(3) WHERE ${queues(19)}
    ON CONFLICT DO NOTHING
    RETURNING id
  ),
  go AS (SELECT 1 FROM claim), ${EVENT_AND_JOB}, (SELECT mode FROM m) AS mode`;

export type QueuedInsert = { body: TrackQueuedOutput; mode?: undefined } | { body?: undefined; mode: ProcessingMode };

/**
 * Writes a queued event + job (+ idempotency record) in one statement when the business's mode
 * is one of `queueingModes`. Else answers the mode it read, and the caller takes the
 * transactional path (synchronous processing, or an idempotency key already in use).
 */
export async function insertQueuedEvent(scope: Scope, input: TrackInput, key: string | undefined, route: string, hash: string, queueingModes: ProcessingMode[]): Promise<QueuedInsert> {
  const eventId = newId();
  const jobId = newId();
  const now = new Date();
  const body: TrackQueuedOutput = { success: true, queued: true, jobId, jobType: "EVENT_PROCESS", message: EVENT_QUEUED_MESSAGE, eventId };
  const params: unknown[] = [
    eventId,
    scope.businessId,
    scope.environment,
    scope.apiKeyId,
    input.eventName,
    input.referrer ?? null,
    JSON.stringify(input.metadata ?? {}),
    input.metadata?.campaign ?? null,
    input.source ?? null,
    key ?? null,
    jobId,
    now.toISOString(),
    env.jobMaxAttempts,
  ];
  if (key) params.push(newId(), route, hash, JSON.stringify(body), new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString());
  params.push(queueingModes);
  const [row] = await db.$queryRawUnsafe<{ inserted: number; mode: ProcessingMode }[]>(key ? WITH_KEY : WITHOUT_KEY, ...params);
  return row.inserted === 1 ? { body } : { mode: row.mode };
}

const BULK = `WITH e AS (
    INSERT INTO "TrackedEvent" (id, "businessId", environment, "apiKeyId", "eventName", referrer, metadata, campaign, source, "idempotencyKey", status, "createdAt", "updatedAt")
    SELECT u.id, $1, $2::"Environment", $3, u.name, u.referrer, u.metadata::jsonb, u.campaign, u.source, u.ikey, 'QUEUED', $4::timestamp(3), $4::timestamp(3)
      FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[]) AS u(id, name, referrer, metadata, campaign, source, ikey)
    RETURNING id
  )
  INSERT INTO "Job" (id, "businessId", environment, "apiKeyId", type, status, payload, "maxAttempts", "runAt", "createdAt", "updatedAt")
  SELECT j.id, $1, $2::"Environment", $3, 'EVENT_PROCESS', 'QUEUED', jsonb_build_object('eventId', j.event_id), $14, $4::timestamp(3), $4::timestamp(3), $4::timestamp(3)
    FROM unnest($12::text[], $13::text[]) AS j(id, event_id)
   WHERE (SELECT count(*) FROM e) = cardinality($5::text[])`;

/** /track/batch: every queued event of the batch and its job in one statement, inside the batch's transaction. */
export async function insertQueuedEvents(tx: Tx, scope: Scope, items: { input: TrackInput; key?: string }[]): Promise<{ eventId: string; jobId: string }[]> {
  if (items.length === 0) return [];
  const ids = items.map(() => ({ eventId: newId(), jobId: newId() }));
  await tx.$executeRawUnsafe(
    BULK,
    scope.businessId,
    scope.environment,
    scope.apiKeyId,
    new Date().toISOString(),
    ids.map((i) => i.eventId),
    items.map((i) => i.input.eventName),
    items.map((i) => i.input.referrer ?? null),
    items.map((i) => JSON.stringify(i.input.metadata ?? {})),
    items.map((i) => i.input.metadata?.campaign ?? null),
    items.map((i) => i.input.source ?? null),
    items.map((i) => i.key ?? null),
    ids.map((i) => i.jobId),
    ids.map((i) => i.eventId),
    env.jobMaxAttempts,
  );
  return ids;
}
