// The event pipeline. acceptEvent records an event for a business + environment and either
// processes it now or queues an EVENT_PROCESS job, per BusinessConfig.eventProcessing:
//   SYNC → now; ASYNC → queued; AUTO (default) → queued when metadata.referredUserEmail is
//   present (the event may create a referred user and rewards), now otherwise.
// processEvent is the one piece of processing code: the synchronous path and the job handler
// both run it, inside the transaction that also records its outcome.
import { db, dbKind, pgliteTurn, rawRows, txSql, type Tx } from "../../db/client";
import { coalescer } from "../../db/coalesce";
import { transactionRetried } from "../../db/retry";
import type { Participant, Referral, TrackedEvent } from "../../db/generated";
import { AppError, toAppError } from "../../shared/errors";
import { FifoGate } from "../../shared/concurrency";
import { env } from "../../shared/env";
import { assertCleanJson, inspectJson, invalidInput, MAX_JSON_DEPTH } from "../../shared/json-guard";
import { newId } from "../../shared/ids";
import { toRewardSummary, type RewardSummary } from "../rewards/engine";
import { readAsset } from "../assets/read";
import type { Scope } from "../../shared/scope";
import { runOne } from "../rules/run";
import { eventItem } from "../rules/state";
import { dispatchJobs, insertJob, type QueuedJob } from "../jobs/queue";
import { PRICE_RETRY_MS } from "../rules/commissions";
import { ALL_MODES, queueEvents, type ProcessingMode } from "./queue-events";
import { processEventRun, type BatchItem, type RunInputs } from "./event-batch";
import { claimIdempotencyKey, completeIdempotencyKey, pickIdempotencyKey, releaseIdempotencyKey, requestHash } from "../../shared/idempotency";
import { readConfig } from "../effective-config/load";
import { amountProblem, type Currency } from "../../shared/money";
import { EVENT_QUEUED_MESSAGE, trackInput, type TrackInput, type TrackOutput, type TrackQueuedOutput, type TrackSyncOutput } from "./schemas";
import { fillVisitorClicks, type Visitor } from "../links/visitor-click";

const ROUTE = "POST /track";

// Concurrent requests read their businesses' processing modes in one statement (db/coalesce.ts).
const readModes = coalescer<string, ProcessingMode>(
  async (businessIds) => {
    const rows = await rawRows<{ businessId: string; mode: ProcessingMode }>(
      `SELECT "businessId", "eventProcessing"::text AS mode FROM "BusinessConfig" WHERE "businessId" = ANY($1::text[])`,
      [...new Set(businessIds)],
    );
    const byId = new Map(rows.map((r) => [r.businessId, r.mode]));
    return businessIds.map((id) => byId.get(id) ?? "AUTO");
  },
  { maxInFlight: 2, maxWeight: 500 },
);

const getEventProcessing = (businessId: string): Promise<ProcessingMode> => readModes(businessId);

function shouldQueue(mode: ProcessingMode, input: Pick<TrackInput, "metadata">): boolean {
  if (mode === "SYNC") return false;
  if (mode === "ASYNC") return true;
  return typeof input.metadata?.referredUserEmail === "string";
}

export interface ProcessOutcome {
  event: TrackedEvent;
  referral: Referral | null;
  referred: Participant | null;
  status: "PROCESSED" | "FLAGGED" | "REJECTED" | "QUEUED";
  reason: string | null;
  rewards: RewardSummary[];
  /** Waits for a price (PRICE_UNAVAILABLE): still QUEUED, to be processed again later. */
  wait?: boolean;
}

/**
 * Processes a recorded event through the rules core (a batch of one: server/domain/rules):
 * referred participant, referral, reversal or settlement, rewards; the outcome is stored on the
 * event. A refusal (an unknown referrer code) throws its AppError.
 */
export async function processEvent(tx: Tx, scope: Scope, event: TrackedEvent): Promise<ProcessOutcome> {
  const o = await runOne(tx, scope, eventItem("event", event, scope.apiKeyId ?? null));
  if (o.kind === "error") throw o.error;
  if (o.kind !== "event") throw new Error("processEvent: not an event outcome");
  const now = new Date();
  const done: TrackedEvent = o.skipped ? event : { ...event, referralId: o.referral?.id ?? null, status: o.status, reason: o.reason, processedAt: now, updatedAt: now };
  const asset = o.rewards.length ? await readAsset(tx, scope.businessId, scope.environment) : null;
  return { event: done, referral: o.referral, referred: o.referred, status: o.status as ProcessOutcome["status"], reason: o.reason, rewards: o.rewards.map((r) => toRewardSummary(r, asset!)), wait: o.wait === true };
}

/** One event processed now in the caller's transaction: its row written, decided, answered (a refusal throws). */
async function processNow(tx: Tx, scope: Scope, input: TrackInput, idempotencyKey: string | undefined): Promise<AcceptResult> {
  const [event] = await insertEvents(tx, [{ scope, input, idempotencyKey }]);
  return syncAnswer(tx, scope, await processEvent(tx, scope, event));
}

/**
 * One event recorded and processed now in the caller's transaction, which also holds what the
 * caller records of it (the Stripe connection's delivery): the same checks and core as /track's
 * synchronous path; a refusal of the core throws. The body's idempotencyKey is stored on the event.
 */
export async function trackInTransaction(tx: Tx, scope: Scope, rawInput: unknown): Promise<AcceptResult> {
  assertCleanJson(rawInput);
  const input = trackInput.parse(rawInput);
  return processNow(tx, scope, input, input.idempotencyKey);
}

function syncOutput(o: ProcessOutcome): TrackSyncOutput {
  const out: TrackSyncOutput = {
    success: true,
    processedSynchronously: true,
    queued: false,
    eventId: o.event.id,
    status: o.status as TrackSyncOutput["status"], // never QUEUED: a waiting event is answered by syncAnswer
    reason: o.reason,
    referralId: o.referral?.id ?? null,
    referredParticipant: o.referred ? { participantId: o.referred.id, referralCode: o.referred.referralCode } : null,
  };
  if (o.rewards.length > 0) out.rewards = o.rewards;
  return out;
}

/**
 * The answer of a synchronously processed event. One that waits for a price (PRICE_UNAVAILABLE)
 * is queued instead: 202 with its EVENT_PROCESS job, due after PRICE_RETRY_MS (or as soon as a
 * price is set: commissions/pricing.ts wakes waiting jobs).
 */
async function syncAnswer(tx: Tx, scope: Scope, o: ProcessOutcome): Promise<AcceptResult> {
  return o.wait ? waitAnswer(tx, scope, o.event.id) : { status: 200, body: syncOutput(o) };
}

async function waitAnswer(tx: Tx, scope: Scope, eventId: string): Promise<AcceptResult> {
  const job = await insertJob(tx, scope, "EVENT_PROCESS", { eventId }, new Date(Date.now() + PRICE_RETRY_MS));
  return { status: 202, body: { success: true, queued: true, jobId: job.id, jobType: "EVENT_PROCESS", message: EVENT_QUEUED_MESSAGE, eventId } };
}

const eventJob = (body: TrackQueuedOutput): QueuedJob => ({ id: body.jobId, type: "EVENT_PROCESS" });

export interface AcceptOptions {
  /** The Idempotency-Key header, if any; reconciled here with the body's idempotencyKey. */
  idempotencyKeyHeader?: string | null;
  /** Overrides the business setting (e.g. the dashboard forcing synchronous processing). */
  mode?: ProcessingMode;
  /** Who sent the request: an event naming no click id gets this visitor's click (links/visitor-click.ts). */
  visitor?: Visitor;
}

export interface AcceptResult {
  /** 200 processed now, 202 queued. A replay answers the first response's status. */
  status: number;
  body: TrackOutput;
}

/**
 * Records an event for business X / environment Y and processes it per the AUTO/SYNC/ASYNC
 * rule. Works without an API key (scope.apiKeyId null). Input is validated here too, so every
 * caller gets the same rules.
 */
export async function acceptEvent(scope: Scope, rawInput: unknown, opts: AcceptOptions = {}): Promise<AcceptResult> {
  assertCleanJson(rawInput);
  const one = { index: 0, input: trackInput.parse(rawInput) };
  // The body as sent, before the business's defaults fill it in (as /track/batch hashes it): a
  // retry matches its first request whatever the settings became meanwhile, through either route.
  const key = pickIdempotencyKey(one.input.idempotencyKey, opts.idempotencyKeyHeader ?? null);
  const hash = key ? requestHash(ROUTE, one.input) : "";
  await fillVisitorClicks(scope, opts.visitor, [one.input], (i) => i.referrer);
  await applyDefaultCurrency(scope, [one], (_, e) => {
    throw e;
  });
  const input = one.input;
  let mode = opts.mode;
  // Fast path: when this event is queued in the likely case (AUTO with a referred user, or a
  // forced ASYNC), one statement reads the mode and writes event + job (+ idempotency claim).
  // With a forced mode the business setting is irrelevant: every stored mode lets the write through.
  const queueingModes: readonly ProcessingMode[] = mode ? (shouldQueue(mode, input) ? ALL_MODES : []) : shouldQueue("AUTO", input) ? ["AUTO", "ASYNC"] : [];
  if (queueingModes.length > 0) {
    const fast = await queueEvents(db, scope, [{ input, idempotencyKey: key, claim: key ? { route: ROUTE, hash } : undefined }], queueingModes);
    const body = fast.bodies[0];
    if (body) {
      dispatchJobs([eventJob(body)]);
      return { status: 202, body };
    }
    // Not written: the business processes this event synchronously, or the key is in use.
    mode ??= fast.mode ?? undefined;
  }
  mode ??= await getEventProcessing(scope.businessId);
  const queue = shouldQueue(mode, input);
  // Processed now, no idempotency key: decided together with the concurrent requests' events.
  if (!queue && !key) return processTogether(scope, input);
  let job: QueuedJob | undefined;
  const res = await transactionRetried(async (tx): Promise<AcceptResult> => {
    job = undefined;
    const claim = key ? await claimIdempotencyKey(tx, scope, key, ROUTE, hash) : undefined;
    if (claim?.replay) return claim.replay as AcceptResult;
    let out: AcceptResult;
    if (queue) {
      const body = (await queueEvents(tx, scope, [{ input, idempotencyKey: key }])).bodies[0]!;
      job = eventJob(body);
      out = { status: 202, body };
    } else {
      // A refusal of the core (an unknown referrer code) throws: the transaction, event row and
      // idempotency claim included, rolls back.
      out = await processNow(tx, scope, input, key);
    }
    if (claim?.recordId) await completeIdempotencyKey(tx, claim.recordId, out.status, out.body);
    return out;
  });
  if (job) dispatchJobs([job]);
  return res;
}

/** One event processed now, alone, in a transaction of its own (the event row rolls back with a refusal). */
function processAlone(scope: Scope, input: TrackInput): Promise<AcceptResult> {
  return transactionRetried((tx) => processNow(tx, scope, input, undefined));
}

interface SyncCall {
  scope: Scope;
  input: TrackInput;
}
type SyncResult = { ok: AcceptResult } | { error: unknown };

/**
 * Events processed now by concurrent requests (synchronous /track, the dashboard's event),
 * decided together: the calls of one business and environment are one transaction, their event
 * rows one statement, their decisions one run of the rules core (event-batch.ts, the worker's
 * set-based path), so a request costs a share of a few round trips instead of a dozen. An event
 * the run stops at (a refusal such as an unknown referrer code) goes through processEvent alone,
 * in a savepoint, and its refusal answers its request only, its event row removed as the single
 * path's rollback would. A group whose transaction fails runs its calls alone.
 */
async function processGroup(calls: SyncCall[]): Promise<SyncResult[]> {
  const { businessId, environment } = calls[0].scope;
  const results: SyncResult[] = new Array(calls.length);
  const decided = new Set<number>();
  await db.$transaction(async (tx) => {
    const events = await insertEvents(tx, calls);
    const items: BatchItem[] = events.map((e, k) => ({ key: String(k), eventId: e.id, apiKeyId: calls[k].scope.apiKeyId ?? null }));
    let inputs: RunInputs | undefined = { rules: null, events: new Map(events.map((e) => [e.id, e])) };
    let written: Promise<void> = Promise.resolve();
    for (let i = 0; i < items.length; ) {
      await written;
      const run = await processEventRun(tx, businessId, environment, items.slice(i), inputs, false);
      inputs = undefined; // later runs read again: a lone event may have changed the rules' rows
      written = run.written;
      for (const d of run.done) {
        results[Number(d.key)] = { ok: { status: 200, body: d.result as unknown as TrackSyncOutput } };
        decided.add(Number(d.key));
      }
      i += run.next;
      if (!run.slow || i >= items.length) continue;
      await written;
      const k = i++;
      await tx.$executeRawUnsafe(`SAVEPOINT rts_sync`);
      try {
        const answer = await syncAnswer(tx, calls[k].scope, await processEvent(tx, calls[k].scope, events[k]));
        await tx.$executeRawUnsafe(`RELEASE SAVEPOINT rts_sync`);
        results[k] = { ok: answer };
      } catch (e) {
        await tx.$executeRawUnsafe(`ROLLBACK TO SAVEPOINT rts_sync`);
        await tx.$executeRawUnsafe(`DELETE FROM "TrackedEvent" WHERE id = $1`, events[k].id);
        results[k] = { error: e };
      }
    }
    await written;
    // Decided in a run: the answer as the single path gives it (a wait for a price queues its job).
    for (let k = 0; k < results.length; k++) {
      const r = results[k];
      if ("ok" in r && decided.has(k)) results[k] = { ok: await groupAnswer(tx, calls[k].scope, r.ok.body as RunResult) };
    }
  });
  return results;
}

/** A run's result of an event as POST /track answers it (processEventRun's result has the same fields). */
type RunResult = TrackSyncOutput & { wait?: boolean };

async function groupAnswer(tx: Tx, scope: Scope, r: RunResult): Promise<AcceptResult> {
  if (r.wait) return waitAnswer(tx, scope, r.eventId);
  const out: TrackSyncOutput = {
    success: true,
    processedSynchronously: true,
    queued: false,
    eventId: r.eventId,
    status: r.status,
    reason: r.reason,
    referralId: r.referralId ?? null,
    referredParticipant: r.referredParticipant ?? null,
  };
  if (r.rewards && r.rewards.length > 0) out.rewards = r.rewards;
  return { status: 200, body: out };
}

/** Runs each call alone (a group of one, or the calls of a group whose transaction failed). */
async function eachAlone(calls: SyncCall[]): Promise<SyncResult[]> {
  const out: SyncResult[] = [];
  for (const c of calls) out.push(await processAlone(c.scope, c.input).then((ok) => ({ ok }), (error: unknown) => ({ error })));
  return out;
}

const syncCalls = coalescer<SyncCall, SyncResult>(
  async (calls) => {
    const out: SyncResult[] = new Array(calls.length);
    const groups = new Map<string, number[]>();
    calls.forEach((c, i) => {
      const g = `${c.scope.businessId}\u0000${c.scope.environment}`;
      groups.set(g, [...(groups.get(g) ?? []), i]);
    });
    await Promise.all(
      [...groups.values()].map(async (idx) => {
        const mine = idx.map((i) => calls[i]);
        const res = mine.length === 1 ? await eachAlone(mine) : await processGroup(mine).catch((e: unknown) => {
                console.warn(`[track] ${mine.length} synchronous events failed together (${String((e as Error)?.message ?? e).replace(/\s+/g, " ").slice(-300)}); running them one by one`);
                return eachAlone(mine);
              });
        res.forEach((r, k) => (out[idx[k]] = r));
      }),
    );
    return out;
  },
  { maxInFlight: 2, maxWeight: 200 },
);

async function processTogether(scope: Scope, input: TrackInput): Promise<AcceptResult> {
  const r = await syncCalls({ scope, input });
  if ("error" in r) throw r.error;
  return r.ok;
}

/**
 * The rows of events processed now (queued events are written by queueEvents), in order, in one
 * statement for any number of events of one business and environment: Prisma's nested create
 * would check the key and the business with a query each and read each row back.
 */
async function insertEvents(tx: Tx, calls: (SyncCall & { idempotencyKey?: string })[]): Promise<TrackedEvent[]> {
  const now = new Date().toISOString();
  const rows = calls.map(({ scope, input, idempotencyKey }) => ({
    id: newId(),
    key: scope.apiKeyId ?? null,
    name: input.eventName,
    ref: input.referrer ?? null,
    meta: input.metadata ?? {},
    cmp: input.metadata?.campaign ?? null,
    src: input.source ?? null,
    idem: idempotencyKey ?? null,
    unt: scope.untrusted === true,
    click: input.clickId ?? null,
    amt: input.amount ?? null,
    cur: input.amount !== undefined ? (input.currency ?? null) : null,
  }));
  const written = await (await txSql(tx)).query<TrackedEvent>(
    `INSERT INTO "TrackedEvent" (id, "businessId", environment, "apiKeyId", "eventName", referrer, metadata, campaign, source, "idempotencyKey", untrusted, status, "createdAt", "updatedAt", "clickId", amount, currency)
     SELECT t.id, $1, $2::"Environment", t.key, t.name, t.ref, t.meta, t.cmp, t.src, t.idem, t.unt, 'QUEUED', $3::timestamp(3), $3::timestamp(3), t.click, t.amt::numeric, t.cur
       FROM jsonb_to_recordset($4::jsonb) AS t(id text, key text, name text, ref text, meta jsonb, cmp text, src text, idem text, unt boolean, click text, amt text, cur text)
     RETURNING *`,
    calls[0].scope.businessId,
    calls[0].scope.environment,
    now,
    JSON.stringify(rows),
  );
  const byId = new Map(written.map((e) => [e.id, e]));
  return rows.map((r) => byId.get(r.id)!);
}

/**
 * Events with an amount and no currency take the environment's defaultCurrency (read once, only
 * when such an event comes); the amount must then fit that currency's decimals. `fail` answers
 * an event whose amount does not (400 VALIDATION_ERROR); the others get the currency.
 */
async function applyDefaultCurrency<T extends { index: number; input: TrackInput }>(scope: Scope, items: T[], fail: (index: number, e: AppError) => void): Promise<void> {
  const lacking = items.filter((p) => p.input.amount !== undefined && p.input.currency === undefined);
  if (!lacking.length) return;
  const cfg = await readConfig(db, scope.businessId, scope.environment);
  const currency = (cfg?.defaultCurrency ?? "USD") as Currency;
  for (const p of lacking) {
    const problem = amountProblem(p.input.amount!, currency);
    if (problem) fail(p.index, new AppError("VALIDATION_ERROR", "Request validation failed", [{ path: "amount", message: `${problem} (the environment's defaultCurrency is ${currency})` }]));
    else p.input = { ...p.input, currency };
  }
}

// ───────────── Batch ─────────────

// PGlite (the embedded default) has one connection, which every other request waits for while a
// transaction holds it, and runs in this thread: there a batch is written a few events per
// transaction, one batch at a time, yielding to the event loop between two transactions, so
// that other requests (other businesses, /api/health) get in between. PostgreSQL writes a
// batch in one transaction. TRACK_BATCH_TX_EVENTS and TRACK_BATCH_CONCURRENCY override both.
const batchGate = new FifoGate(() => env.batchConcurrencyGlobal ?? (dbKind() === "pglite" ? 1 : Infinity));
export const batchTxEvents = () => env.batchTxEvents ?? (dbKind() === "pglite" ? 5 : 100);
/** Batches writing now and batches waiting their turn (process-wide). */
export const batchAdmission = () => ({ running: batchGate.running, queued: batchGate.queued });

export type BatchItemResult = ({ index: number } & TrackOutput) | { index: number; success: false; error: { code: string; message: string; details?: unknown } };

/**
 * POST /track/batch: up to 100 events, each validated, deduplicated and processed like a single
 * /track, in transactions of batchTxEvents() events; one result per event, in order. An event
 * refused by a business rule (or invalid) gets its error and writes nothing; the others proceed.
 */
export async function acceptEventBatch(scope: Scope, rawEvents: unknown[], visitor?: Visitor): Promise<{ results: BatchItemResult[]; accepted: number; failed: number }> {
  const mode = await getEventProcessing(scope.businessId);
  const results: BatchItemResult[] = new Array(rawEvents.length);
  const parsed: { index: number; input: TrackInput; hash: string }[] = [];
  rawEvents.forEach((raw, index) => {
    const problem = inspectJson(raw, { maxDepth: MAX_JSON_DEPTH - 2 });
    if (problem) {
      results[index] = { index, success: false, error: invalidInput(problem).toBody().error };
      return;
    }
    const r = trackInput.safeParse(raw);
    if (!r.success) {
      const e = toAppError(r.error);
      results[index] = { index, success: false, error: e.toBody().error };
    } else parsed.push({ index, input: r.data, hash: r.data.idempotencyKey ? requestHash(ROUTE, r.data) : "" });
  });
  await fillVisitorClicks(scope, visitor, parsed.map((p) => p.input), (i) => i.referrer);
  await applyDefaultCurrency(scope, parsed, (index, e) => (results[index] = { index, success: false, error: e.toBody().error }));
  const keysSeen = new Map<string, number>();
  for (const p of parsed) {
    const k = p.input.idempotencyKey;
    if (k && keysSeen.has(k)) {
      results[p.index] = { index: p.index, success: false, error: { code: "VALIDATION_ERROR", message: `idempotencyKey repeats the key of event ${keysSeen.get(k)} in this batch` } };
    } else if (k) keysSeen.set(k, p.index);
  }
  const todo = parsed.filter((p) => !results[p.index]);
  const fail = (index: number, e: unknown) => (results[index] = { index, success: false, error: toAppError(e).toBody().error });

  const writeChunk = async (chunk: typeof todo) => {
    let jobs: QueuedJob[] = [];
    await transactionRetried(
      async (tx) => {
        // An attempt aborted as a deadlock victim queued nothing; every event of the chunk gets its result again below.
        jobs = [];
        // Queued events: one statement for all of them, their jobs and their idempotency claims.
        const queued = chunk.filter((p) => shouldQueue(mode, p.input));
        const claimOf = (p: (typeof todo)[number]) => (p.input.idempotencyKey ? { route: ROUTE, hash: p.hash } : undefined);
        const written = await queueEvents(tx, scope, queued.map((p) => ({ input: p.input, idempotencyKey: p.input.idempotencyKey, claim: claimOf(p) })));
        const keyInUse: typeof todo = [];
        queued.forEach((p, i) => {
          const body = written.bodies[i];
          if (!body) return keyInUse.push(p);
          results[p.index] = { index: p.index, ...body };
          jobs.push(eventJob(body));
        });
        // Keys that exist already: a replay, a 409, or an expired record that frees the key.
        for (const p of keyInUse) {
          try {
            const claim = await claimIdempotencyKey(tx, scope, p.input.idempotencyKey!, ROUTE, p.hash);
            if (claim.replay) {
              results[p.index] = { index: p.index, ...(claim.replay.body as TrackOutput) };
              continue;
            }
            const body = (await queueEvents(tx, scope, [{ input: p.input, idempotencyKey: p.input.idempotencyKey }])).bodies[0]!;
            await completeIdempotencyKey(tx, claim.recordId, 202, body);
            results[p.index] = { index: p.index, ...body };
            jobs.push(eventJob(body));
          } catch (e) {
            fail(p.index, e);
          }
        }
        // Synchronous events: each through the full pipeline, in order.
        for (const p of chunk.filter((x) => !shouldQueue(mode, x.input))) {
          const key = p.input.idempotencyKey;
          let recordId: string | undefined;
          try {
            if (key) {
              const claim = await claimIdempotencyKey(tx, scope, key, ROUTE, p.hash);
              if (claim.replay) {
                results[p.index] = { index: p.index, ...(claim.replay.body as TrackOutput) };
                continue;
              }
              recordId = claim.recordId;
            }
          } catch (e) {
            fail(p.index, e);
            continue;
          }
          // The core's refusal (an unknown referrer code) fails this event only: its row and
          // claim are undone, the chunk's other events go on. Any other error fails the chunk.
          await tx.$executeRawUnsafe(`SAVEPOINT rts_track_item`);
          let answer: AcceptResult;
          try {
            answer = await processNow(tx, scope, p.input, key);
            await tx.$executeRawUnsafe(`RELEASE SAVEPOINT rts_track_item`);
          } catch (e) {
            if (!(e instanceof AppError)) throw e;
            await tx.$executeRawUnsafe(`ROLLBACK TO SAVEPOINT rts_track_item`);
            if (recordId) await releaseIdempotencyKey(tx, recordId);
            fail(p.index, e);
            continue;
          }
          const body = answer.body;
          if (answer.status === 202) jobs.push(eventJob(body as TrackQueuedOutput));
          if (recordId) await completeIdempotencyKey(tx, recordId, answer.status, body);
          results[p.index] = { index: p.index, ...body };
        }
      },
      { timeout: 30_000 },
    );
    dispatchJobs(jobs);
  };
  // Each chunk commits (and queues its jobs) on its own: results are per event, idempotency too.
  await batchGate.run(async () => {
    const size = batchTxEvents();
    for (let i = 0; i < todo.length; i += size) {
      // Requests arrived meanwhile are read and queue their statements ahead of the next chunk.
      await pgliteTurn();
      await writeChunk(todo.slice(i, i + size));
    }
  });
  const failed = results.filter((r) => r.success === false).length;
  return { results, accepted: results.length - failed, failed };
}
