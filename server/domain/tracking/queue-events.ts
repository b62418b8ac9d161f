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
import { db, rawRows, txSql, type Db, type Tx } from "../../db/client";
import { coalescer } from "../../db/coalesce";
import { env } from "../../shared/env";
import { newId } from "../../shared/ids";
import type { Scope } from "../../shared/scope";
import { IDEMPOTENCY_TTL_MS, idempotencyRecordKey } from "../../shared/idempotency";
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
  /** The business's processing mode, as read by the statement (null when there were no items: no statement ran). */
  mode: ProcessingMode | null;
}

// One row per item; every column is per row (business, environment, key and time included), so
// one statement can carry the items of many concurrent calls (see queueEvents).
const STATEMENT = `
  WITH input AS (
    SELECT u.*, COALESCE(c."eventProcessing"::text, 'AUTO') AS mode
      FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[], $5::text[], $6::text[], $7::text[],
                  $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[],
                  $15::text[], $16::text[], $17::text[], $18::text[], $19::text[], $21::text[], $22::text[], $23::text[], $24::text[])
        AS u(business_id, env, api_key_id, untrusted, at, expires, modes, event_id, job_id, name, referrer, metadata,
             campaign, source, ikey, claim_id, route, hash, body, click_id, amount, currency, claim_key)
      LEFT JOIN "BusinessConfig" c ON c."businessId" = u.business_id
  ),
  ok AS (
    SELECT * FROM input WHERE mode = ANY(modes::text[])
  ),
  claim AS (
    INSERT INTO "IdempotencyRecord" (id, "businessId", environment, key, route, "requestHash", "responseCode", "responseBody", "createdAt", "expiresAt")
    SELECT claim_id, business_id, env::"Environment", claim_key, route, hash, 202, body::jsonb, at::timestamp(3), expires::timestamp(3)
      FROM ok WHERE claim_id IS NOT NULL
    ON CONFLICT DO NOTHING
    RETURNING id
  ),
  go AS (
    SELECT * FROM ok WHERE claim_id IS NULL OR claim_id IN (SELECT id FROM claim)
  ),
  e AS (
    INSERT INTO "TrackedEvent" (id, "businessId", environment, "apiKeyId", "eventName", referrer, metadata, campaign, source, "idempotencyKey", untrusted, status, "createdAt", "updatedAt", "clickId", amount, currency)
    SELECT event_id, business_id, env::"Environment", api_key_id, name, referrer, metadata::jsonb, campaign, source, ikey, untrusted, 'QUEUED', at::timestamp(3), at::timestamp(3), click_id, amount::numeric, currency FROM go
    RETURNING id
  ),
  j AS (
    INSERT INTO "Job" (id, "businessId", environment, "apiKeyId", type, status, payload, "maxAttempts", "runAt", "createdAt", "updatedAt")
    SELECT job_id, business_id, env::"Environment", api_key_id, 'EVENT_PROCESS', 'QUEUED', jsonb_build_object('eventId', event_id), $20, at::timestamp(3), at::timestamp(3), at::timestamp(3) FROM go
    RETURNING id
  )
  SELECT i.event_id AS "eventId", i.mode, i.event_id IN (SELECT id FROM e) AS written FROM input i`;

interface Call {
  scope: Scope;
  items: QueueItem[];
  modes: readonly ProcessingMode[];
}

interface Prepared {
  call: Call;
  now: Date;
  rows: { item: QueueItem; eventId: string; jobId: string; body: TrackQueuedOutput; claimId: string | null }[];
}

function prepare(call: Call): Prepared {
  const rows = call.items.map((item) => {
    const eventId = newId();
    const jobId = newId();
    const body: TrackQueuedOutput = { success: true, queued: true, jobId, jobType: "EVENT_PROCESS", message: EVENT_QUEUED_MESSAGE, eventId };
    return { item, eventId, jobId, body, claimId: item.claim && item.idempotencyKey ? newId() : null };
  });
  return { call, now: new Date(), rows };
}

type Row = { eventId: string; mode: ProcessingMode; written: boolean };

/** Runs the statement for the calls' items; one result per call, in order. */
async function write(client: Db | Tx, calls: Call[]): Promise<QueueResult[]> {
  const prepared = calls.map(prepare);
  const all = prepared.flatMap((p) => p.rows.map((r) => ({ p, r })));
  const col = <T>(f: (x: (typeof all)[number]) => T) => all.map(f);
  const values = [
    col(({ p }) => p.call.scope.businessId),
    col(({ p }) => p.call.scope.environment),
    col(({ p }) => p.call.scope.apiKeyId ?? null),
    col(({ p }) => p.call.scope.untrusted === true),
    col(({ p }) => p.now.toISOString()),
    col(({ p }) => new Date(p.now.getTime() + IDEMPOTENCY_TTL_MS).toISOString()),
    col(({ p }) => `{${p.call.modes.join(",")}}`),
    col(({ r }) => r.eventId),
    col(({ r }) => r.jobId),
    col(({ r }) => r.item.input.eventName),
    col(({ r }) => r.item.input.referrer ?? null),
    col(({ r }) => JSON.stringify(r.item.input.metadata ?? {})),
    col(({ r }) => r.item.input.metadata?.campaign ?? null),
    col(({ r }) => r.item.input.source ?? null),
    col(({ r }) => r.item.idempotencyKey ?? null),
    col(({ r }) => r.claimId),
    col(({ r }) => r.item.claim?.route ?? null),
    col(({ r }) => r.item.claim?.hash ?? null),
    col(({ r }) => (r.claimId ? JSON.stringify(r.body) : null)),
    env.jobMaxAttempts,
    col(({ r }) => r.item.input.clickId ?? null),
    col(({ r }) => r.item.input.amount ?? null),
    col(({ r }) => (r.item.input.amount !== undefined ? (r.item.input.currency ?? null) : null)),
    col(({ p, r }) => (r.claimId && r.item.idempotencyKey ? idempotencyRecordKey(p.call.scope, r.item.idempotencyKey) : null)),
  ];
  // Straight to PostgreSQL where it can (db/client.ts): outside a transaction (POST /track) on the
  // pool, inside one (/track/batch) on the transaction's own connection.
  const rows = client === db ? await rawRows<Row>(STATEMENT, ...values) : await (await txSql(client)).query<Row>(STATEMENT, ...values);
  const byEvent = new Map(rows.map((r) => [r.eventId, r]));
  return prepared.map((p) => {
    const mode = p.rows.length > 0 ? byEvent.get(p.rows[0].eventId)!.mode : null;
    return { mode, bodies: p.rows.map((r) => (byEvent.get(r.eventId)?.written ? r.body : null)) };
  });
}

// Outside a transaction, concurrent calls (POST /track requests) share one statement
// (db/coalesce.ts): each call's rows still commit atomically with its answer, and a failed
// batch is retried call by call.
const coalesced = coalescer<Call, QueueResult>((calls) => write(db, calls), {
  maxInFlight: 2,
  maxWeight: 1000,
  weight: (call) => call.items.length,
});

/** Writes the items' events + jobs (+ claims) in one statement; see the file header for when an item is skipped. */
export async function queueEvents(client: Db | Tx, scope: Scope, items: QueueItem[], modes: readonly ProcessingMode[] = ALL_MODES): Promise<QueueResult> {
  if (items.length === 0) return { mode: null, bodies: [] };
  const call = { scope, items, modes };
  return client === db ? coalesced(call) : (await write(client, [call]))[0];
}
