// The webhook pool's deliveries (runner.ts): the messages of a claim are read in one statement,
// each delivery POSTs on its own (a slow endpoint holds only its own place), and the attempts
// that ended meanwhile are recorded together, in one transaction of a few statements
// (recordWebhookAttempts) that also checks the jobs' claims and marks them SUCCEEDED: while one
// record is written, the next attempts gather for the following one. A delivery gives its place
// back once its POST has ended and its attempt is handed to the recorder (which holds at most
// RECORD_MAX unrecorded attempts: beyond that, places wait for it); `webhookAttemptsRecorded`
// settles when none is left unrecorded. Delivery stays at least
// once: a crash after a POST and before its record leaves the job RUNNING, taken again when its
// lease expires. If a bulk record fails, each of its attempts is recorded alone, as a job run
// alone records it (executeClaimedJob without a second POST).
import { db, txSql } from "../db/client";
import type { Job, Prisma } from "../db/generated";
import { deliveryPayloadOf, readWebhookMessages, recordWebhookAttempts, sendWebhookMessage, type DeliveryPayload, type WebhookAttempt } from "../domain/webhooks/deliver";
import { executeClaimedJob, markSucceeded, type RunOutcome } from "./execute";

/** Attempts recorded per transaction, at most. */
const RECORD_MAX = 500;

interface Ended {
  job: Job;
  attempt: WebhookAttempt;
  resolve: (o: RunOutcome) => void;
}

const ended: Ended[] = [];
let recording: Promise<void> | null = null;
/** Places waiting for the recorder to have room. */
const waiting: (() => void)[] = [];

/** Settles once every attempt handed to the recorder is recorded (the runner's stop). */
export async function webhookAttemptsRecorded(): Promise<void> {
  while (recording) await recording;
}

/**
 * Starts the claimed WEBHOOK_DELIVER jobs; one promise per job, settled once its place is free:
 * its attempt handed to the recorder (the outcome then answers when it is recorded, `recorded`).
 */
export function deliverClaimed(jobs: Job[]): Promise<{ recorded: Promise<RunOutcome> }>[] {
  const payloads = jobs.map((j): DeliveryPayload | null => {
    try {
      return deliveryPayloadOf(j.payload);
    } catch {
      return null;
    }
  });
  const read = readWebhookMessages(payloads.flatMap((p) => (p ? [p.messageId] : [])));
  read.catch(() => undefined); // answered per job below
  return jobs.map(async (job, i) => {
    const p = payloads[i];
    let attempt: WebhookAttempt;
    try {
      if (!p) throw new Error("no payload");
      attempt = { payload: p, sent: await sendWebhookMessage(p, new Date(), (await read).get(p.messageId) ?? null) };
    } catch {
      // Nothing was sent: the job runs alone, where it fails (or succeeds) as its job does.
      const outcome = await executeClaimedJob(job);
      return { recorded: Promise.resolve(outcome) };
    }
    while (ended.length >= RECORD_MAX) await new Promise<void>((r) => waiting.push(r));
    const recorded = new Promise<RunOutcome>((resolve) => ended.push({ job, attempt, resolve }));
    startRecorder();
    return { recorded };
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
        const batch = ended.splice(0, RECORD_MAX);
        for (const w of waiting.splice(0)) w();
        let out: Map<string, RunOutcome>;
        try {
          out = await recordBatch(batch);
        } catch (e) {
          console.warn(`[jobs] recording ${batch.length} webhook attempts together failed (${(e as Error).message.slice(0, 200)}); recording them one by one`);
          for (const b of batch) b.resolve(await executeClaimedJob(b.job, { performed: b.attempt.sent }));
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
    const results: Prisma.InputJsonObject[] = mine.length ? await recordWebhookAttempts(tx, mine.map((b) => b.attempt)) : [];
    if (mine.length) await markSucceeded(sql, mine.map((b, k) => ({ id: b.job.id, result: results[k] })));
    return new Map(mine.map((b, k) => [b.job.id, { status: "SUCCEEDED", result: results[k] }]));
  });
}
