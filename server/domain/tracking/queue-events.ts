// The one way queued events are written: `queueEvents` inserts N tracked events, their N
// EVENT_PROCESS jobs and (for events that carry one) their idempotency claims with the final
// answer, in ONE SQL statement. A single statement is atomic on its own, so the job always
// commits with its event, without BEGIN/COMMIT round trips or per-row ORM work. POST /track
// calls it with one event (outside a transaction), POST /track/batch with all of its queued
// events (inside the batch's transaction), and the transactional fall-back path after it has
// claimed a key itself. Ids come from the one generator (shared/ids.newId), so answers name
// their ids before the write.
//
// Per event, nothing is written unless:
// - the business's processing mode (read by the same statement) is one of `modes` (callers that
//   already decided pass every mode), and
// - its idempotency claim, when it asks for one, is new (ON CONFLICT DO NOTHING): a key that
//   exists (replay, conflict, expiry, or a concurrent duplicate that committed first) leaves
//   that event unwritten, and the caller takes the transactional path for it.
import { db, rawRows, type Db, type Tx } from "../../db/client";
import { env } from "../../shared/env";
import { newId } from "../../shared/ids";
import type { Scope } from "../participants/schemas";
import { IDEMPOTENCY_TTL_MS } from "./idempotency";
import { EVENT_QUEUED_MESSAGE, type TrackInput, type TrackQueuedOutput } from "./schemas";

export type ProcessingMode = "AUTO" | "SYNC" | "ASYNC";
export const ALL_MODES: readonly ProcessingMode[] = ["AUTO", "SYNC", "ASYNC"];

export interface QueueItem {
  input: TrackInput;
  /** Stored on the event (the key it was sent with). */
  idempotencyKey?: string;
  /** Claim this key in the same statement, recording the queued answer for replays. */
  claim?: { route: string; hash: string };
}

export interface QueueResult {
  /** Per item, in order: the queued answer, or null when nothing was written for it. */
  bodies: (TrackQueuedOutput | null)[];
  /** The business's processing mode, as read by the statement. */
  mode: ProcessingMode;
}

const STATEMENT = `
  WITH m AS (
    SELECT COALESCE((SELECT "eventProcessing"::text FROM "BusinessConfig" WHERE "businessId" = $1), 'AUTO') AS mode
  ),
  input AS (
    SELECT u.* FROM unnest($6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[],
                           $14::text[], $15::text[], $16::text[], $17::text[])
      AS u(event_id, job_id, name, referrer, metadata, campaign, source, ikey, claim_id, route, hash, body)
     WHERE (SELECT mode FROM m) = ANY($5::text[])
  ),
  claim AS (
    INSERT INTO "IdempotencyRecord" (id, "businessId", environment, key, route, "requestHash", "responseCode", "responseBody", "createdAt", "expiresAt")
    SELECT claim_id, $1, $2::"Environment", ikey, route, hash, 202, body::jsonb, $4::timestamp(3), $18::timestamp(3)
      FROM input WHERE claim_id IS NOT NULL
    ON CONFLICT DO NOTHING
    RETURNING id
  ),
  go AS (
    SELECT * FROM input WHERE claim_id IS NULL OR claim_id IN (SELECT id FROM claim)
  ),
  e AS (
    INSERT INTO "TrackedEvent" (id, "businessId", environment, "apiKeyId", "eventName", referrer, metadata, campaign, source, "idempotencyKey", untrusted, status, "createdAt", "updatedAt")
    SELECT event_id, $1, $2::"Environment", $3, name, referrer, metadata::jsonb, campaign, source, ikey, $20, 'QUEUED', $4::timestamp(3), $4::timestamp(3) FROM go
    RETURNING id
  ),
  j AS (
    INSERT INTO "Job" (id, "businessId", environment, "apiKeyId", type, status, payload, "maxAttempts", "runAt", "createdAt", "updatedAt")
    SELECT job_id, $1, $2::"Environment", $3, 'EVENT_PROCESS', 'QUEUED', jsonb_build_object('eventId', event_id), $19, $4::timestamp(3), $4::timestamp(3), $4::timestamp(3) FROM go
    RETURNING id
  )
  SELECT (SELECT mode FROM m) AS mode, COALESCE((SELECT array_agg(id) FROM e), '{}') AS written`;

/** Writes the items' events + jobs (+ claims) in one statement; see the file header for when an item is skipped. */
export async function queueEvents(client: Db | Tx, scope: Scope, items: QueueItem[], modes: readonly ProcessingMode[] = ALL_MODES): Promise<QueueResult> {
  const now = new Date();
  const rows = items.map((item) => {
    const eventId = newId();
    const jobId = newId();
    const body: TrackQueuedOutput = { success: true, queued: true, jobId, jobType: "EVENT_PROCESS", message: EVENT_QUEUED_MESSAGE, eventId };
    return { item, eventId, jobId, body, claimId: item.claim && item.idempotencyKey ? newId() : null };
  });
  const col = <T>(f: (r: (typeof rows)[number]) => T) => rows.map(f);
  // Outside a transaction (POST /track), straight to the pool on PostgreSQL (db/client.ts rawRows).
  type Row = { mode: ProcessingMode; written: string[] };
  const run = (sql: string, ...values: unknown[]) => (client === db ? rawRows<Row>(sql, ...values) : client.$queryRawUnsafe<Row[]>(sql, ...values));
  const [res] = await run(
    STATEMENT,
    scope.businessId,
    scope.environment,
    scope.apiKeyId,
    now.toISOString(),
    modes,
    col((r) => r.eventId),
    col((r) => r.jobId),
    col((r) => r.item.input.eventName),
    col((r) => r.item.input.referrer ?? null),
    col((r) => JSON.stringify(r.item.input.metadata ?? {})),
    col((r) => r.item.input.metadata?.campaign ?? null),
    col((r) => r.item.input.source ?? null),
    col((r) => r.item.idempotencyKey ?? null),
    col((r) => r.claimId),
    col((r) => r.item.claim?.route ?? null),
    col((r) => r.item.claim?.hash ?? null),
    col((r) => (r.claimId ? JSON.stringify(r.body) : null)),
    new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
    env.jobMaxAttempts,
    scope.untrusted === true,
  );
  const written = new Set(res.written);
  return { mode: res.mode, bodies: rows.map((r) => (written.has(r.eventId) ? r.body : null)) };
}
