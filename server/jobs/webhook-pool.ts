// The webhook pool's deliveries (runner.ts). A WEBHOOK_DELIVER job carries a group of messages
// to one endpoint (emit.ts) and holds one place of the pool per message (deliveryWeight): the
// messages of a claim are read in one statement, each message POSTs on its own, and the attempts
// that ended meanwhile are recorded together, in one transaction of a few statements
// (recordWebhookAttempts) that also checks the jobs' claims and marks them SUCCEEDED: while one
// record is written, the next attempts gather for the following one. A job gives its places back
// once its POSTs have ended and its attempts are handed to the recorder (which holds at most
// RECORD_MAX unrecorded attempts: beyond that, places wait for it); `webhookAttemptsRecorded`
// settles when none is left unrecorded. Delivery stays at least once: a crash after a POST and
// before its record leaves the job RUNNING, taken again when its lease expires. If a bulk record
// fails, each of its jobs is recorded alone, as a job run alone records it (executeClaimedJob
// without a second POST).
import { db, txSql } from "../db/client";
import type { Job, Prisma } from "../db/generated";
import { deliveryJobResult, deliveryPayloadsOf, readWebhookMessages, recordWebhookAttempts, sendWebhookMessages, type DeliveryPayload, type WebhookAttempt } from "../domain/webhooks/deliver";
import { fanOutEventsOf } from "../domain/webhooks/emit";
import { executeClaimedJob, markSucceeded, type RunOutcome } from "./execute";

/** Attempts recorded per transaction, at most (a job's attempts are recorded together). */
const RECORD_MAX = 500;

interface Ended {
  job: Job;
  /** One per message of the job, in its payload's order. */
  attempts: WebhookAttempt[];
  resolve: (o: RunOutcome) => void;
}

const ended: Ended[] = [];
/** Attempts in `ended`. */
let endedAttempts = 0;
let recording: Promise<void> | null = null;
/** Places waiting for the recorder to have room. */
const waiting: (() => void)[] = [];

/** Settles once every attempt handed to the recorder is recorded (the runner's stop). */
export async function webhookAttemptsRecorded(): Promise<void> {
  while (recording) await recording;
}

/** The places a claimed WEBHOOK_DELIVER job holds in the pool: one per message it POSTs. */
export function deliveryWeight(job: Job): number {
  return deliveriesOf(job)?.length ?? 1;
}

/** A claimed job's deliveries, parsed once per job (its weight, then its start): null for a fan-out job or an unreadable payload. */
const parsed = new WeakMap<Job, DeliveryPayload[] | null>();
function deliveriesOf(job: Job): DeliveryPayload[] | null {
  if (!parsed.has(job)) {
    let p: DeliveryPayload[] | null = null;
    if (!fanOutEventsOf(job.payload)) {
      try {
        p = deliveryPayloadsOf(job.payload);
      } catch {
        p = null;
      }
    }
    parsed.set(job, p);
  }
  return parsed.get(job) ?? null;
}

/**
 * Starts the claimed WEBHOOK_DELIVER jobs (their messages read in one statement, each message
 * POSTed on its own); one promise per job, settled once its places are free: its attempts handed
 * to the recorder (the outcome then answers when they are recorded, `recorded`), with how long
 * its endpoint took to answer (`tookMs`; null for a job that posted nothing, as a fan-out job).
 */
export function deliverClaimed(jobs: Job[]): Promise<{ recorded: Promise<RunOutcome>; tookMs: number | null }>[] {
  const payloads = jobs.map(deliveriesOf); // null: a fan-out job or an unreadable payload, run alone below
  const read = readWebhookMessages(payloads.flatMap((p) => (p ? p.map((d) => d.messageId) : [])));
  read.catch(() => undefined); // answered per job below
  return jobs.map(async (job, i) => {
    const p = payloads[i];
    let attempts: WebhookAttempt[];
    try {
      if (!p) throw new Error("no payload");
      attempts = await sendWebhookMessages(p, new Date(), read);
    } catch {
      // A fan-out job, or nothing sent: the job runs alone, where it fails (or succeeds) as its job does.
      const outcome = await executeClaimedJob(job);
      return { recorded: Promise.resolve(outcome), tookMs: null };
    }
    while (endedAttempts >= RECORD_MAX) await new Promise<void>((r) => waiting.push(r));
    const recorded = new Promise<RunOutcome>((resolve) => {
      ended.push({ job, attempts, resolve });
      endedAttempts += attempts.length;
    });
    startRecorder();
    // How long the endpoint took to answer (the slowest of the job's POSTs): the pool's verdict on
    // its business; none when nothing was posted (messages gone, delivered or disabled meanwhile).
    const answered = attempts.flatMap((a) => (a.sent.sent ? [a.sent.outcome.durationMs] : []));
    return { recorded, tookMs: answered.length ? Math.max(...answered) : null };
  });
}

/** Records the ended attempts, a batch at a time, until none is left; started when an attempt is handed over and none runs. */
function startRecorder() {
  if (recording) return;
  recording = (async () => {
    try {
      // The attempts ending while this turn of the event loop runs join the first record.
      await new Promise((r) => setImmediate(r));
      while (ended.length) {
        // Whole jobs, up to RECORD_MAX attempts (at least one job).
        let take = 0;
        for (let n = 0; take < ended.length && (take === 0 || n + ended[take].attempts.length <= RECORD_MAX); take++) n += ended[take].attempts.length;
        const batch = ended.splice(0, take);
        endedAttempts -= batch.reduce((n, b) => n + b.attempts.length, 0);
        for (const w of waiting.splice(0)) w();
        let out: Map<string, RunOutcome>;
        try {
          out = await recordBatch(batch);
        } catch (e) {
          console.warn(`[jobs] recording ${batch.length} webhook attempts together failed (${(e as Error).message.slice(0, 200)}); recording them one by one`);
          for (const b of batch) b.resolve(await executeClaimedJob(b.job, { performed: b.attempts }));
          continue;
        }
        for (const b of batch) b.resolve(out.get(b.job.id) ?? { status: "BUSY" });
      }
    } finally {
      // In the same step as the last look at `ended`: an attempt handed over later starts a new recorder.
      recording = null;
    }
  })();
}

/** The attempts of jobs this claim still owns (locked, token checked), recorded with their SUCCEEDED marks; the others answer BUSY. */
async function recordBatch(batch: Ended[]): Promise<Map<string, RunOutcome>> {
  return db.$transaction(async (tx) => {
    const sql = await txSql(tx);
    const rows = await sql.query<{ id: string; lockedBy: string | null; status: string }>(
      `SELECT id, "lockedBy", status::text AS status FROM "Job" WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`,
      batch.map((b) => b.job.id),
    );
    const token = new Map(batch.map((b) => [b.job.id, b.job.lockedBy]));
    const owned = new Set(rows.filter((r) => r.status === "RUNNING" && r.lockedBy === token.get(r.id)).map((r) => r.id));
    const mine = batch.filter((b) => owned.has(b.job.id));
    const results: Prisma.InputJsonObject[] = mine.length ? await recordWebhookAttempts(tx, mine.flatMap((b) => b.attempts)) : [];
    let at = 0;
    const done = mine.map((b) => ({ id: b.job.id, result: deliveryJobResult(results.slice(at, (at += b.attempts.length))) }));
    if (done.length) await markSucceeded(sql, done);
    return new Map(done.map((d) => [d.id, { status: "SUCCEEDED", result: d.result }]));
  });
}
