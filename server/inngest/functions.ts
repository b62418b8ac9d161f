// Inngest functions, one per job type. Each calls runJob, the same code path the embedded
// runner uses, so both executors do identical work with the same exactly-once guarantees.
//
// One retry policy: the job's own (server/jobs/execute.ts: attempts, exponential backoff in
// Job.runAt, maxAttempts). Inngest's retries are off; when an attempt ends in RETRY, or the event
// arrives before the job is due (a redelivery during its backoff), the function sleeps until
// the job's runAt with a durable step.sleepUntil and tries again. An infrastructure failure (the
// database unreachable) ends the run; the job keeps its row and lease, and the re-dispatch loop
// (server/inngest/dispatch.ts) sends it again once the lease has expired.
import { scheduleEmailDigests } from "../domain/email/schedule";
import { NonRetriableError } from "inngest";
import { env } from "../shared/env";
import { runJob, type RunOutcome } from "../jobs/execute";
import { runJobs } from "../jobs/lanes";
import { sweepRetention } from "../jobs/retention";
import { scheduleDailyProofs } from "../domain/jobs/proof-schedule";
import { inngest, JOB_EVENTS } from "./client";

type Step = { run: <T>(id: string, fn: () => Promise<T>) => Promise<unknown>; sleepUntil: (id: string, until: string | Date) => Promise<unknown> };

/** Serialisable outcome of one attempt (step outputs are JSON). */
type Attempt = { status: "SUCCEEDED"; result: unknown } | { status: "FAILED"; error: string } | { status: "RETRY" | "NOT_DUE"; error?: string; runAt: string } | { status: "BUSY" };

function toAttempt(o: RunOutcome): Attempt {
  if (o.status === "RETRY") return { status: "RETRY", error: o.error, runAt: o.runAt.toISOString() };
  if (o.status === "NOT_DUE") return { status: "NOT_DUE", runAt: o.runAt.toISOString() };
  return o;
}

const attempt = async (jobId: string): Promise<Attempt> => toAttempt(await runJob(jobId));

/** Attempts, sleeping until runAt between them; bounded so that a run never loops forever. */
async function executeJob(jobId: unknown, step: Step): Promise<Attempt> {
  if (typeof jobId !== "string" || !jobId) throw new NonRetriableError("event.data.jobId is required");
  const bound = 2 * env.jobMaxAttempts + 2;
  let outcome = (await step.run("attempt-1", () => attempt(jobId))) as Attempt;
  for (let n = 2; n <= bound && (outcome.status === "RETRY" || outcome.status === "NOT_DUE"); n++) {
    await step.sleepUntil(`wait-${n - 1}`, outcome.runAt);
    outcome = (await step.run(`attempt-${n}`, () => attempt(jobId))) as Attempt;
  }
  // BUSY: another executor holds a live lease and will finish the job (or its lease expires and
  // the re-dispatch loop sends it again).
  return outcome;
}

/** Attempts of several jobs (a batch of events), sleeping until the earliest runAt of those left. */
async function executeJobs(jobIds: unknown[], step: Step): Promise<Attempt | { jobs: Record<string, Attempt> }> {
  const ids = [...new Set(jobIds.filter((id): id is string => typeof id === "string" && id.length > 0))];
  if (ids.length === 0) throw new NonRetriableError("event.data.jobId is required");
  if (ids.length === 1) return executeJob(ids[0], step);
  const jobs: Record<string, Attempt> = {};
  const bound = 2 * env.jobMaxAttempts + 2;
  let left = ids;
  for (let n = 1; n <= bound && left.length > 0; n++) {
    if (n > 1) {
      const due = left.map((id) => (jobs[id] as { runAt: string }).runAt).sort()[0];
      await step.sleepUntil(`batch-wait-${n - 1}`, due);
    }
    const pending = left;
    const r = (await step.run(`batch-attempt-${n}`, async () => {
      const o: Record<string, Attempt> = {};
      for (const [id, x] of await runJobs(pending)) o[id] = toAttempt(x);
      return o;
    })) as Record<string, Attempt>;
    Object.assign(jobs, r);
    left = pending.filter((id) => r[id]?.status === "RETRY" || r[id]?.status === "NOT_DUE");
  }
  return { jobs };
}

/**
 * EVENT_PROCESS with Inngest batching: up to 100 events (1 s window) per run, executed together
 * through runJobs, so events of one business go through the same batched, set-based execution
 * as the embedded runner's (server/jobs/lanes.ts executeEventBatch). A run of one event answers
 * exactly as before (its outcome); several answer `{ jobs: { [jobId]: outcome } }`.
 */
export const eventProcessFunction = inngest.createFunction(
  { id: "event-process", name: "EVENT_PROCESS", retries: 0, batchEvents: { maxSize: 100, timeout: "1s" }, triggers: [{ event: JOB_EVENTS.EVENT_PROCESS }] },
  async ({ events, step }) => executeJobs((events ?? []).map((e) => (e.data as { jobId?: unknown } | undefined)?.jobId), step as unknown as Step),
);

export const sdkReferralApplyFunction = inngest.createFunction(
  { id: "sdk-referral-apply", name: "SDK_REFERRAL_APPLY", retries: 0, triggers: [{ event: JOB_EVENTS.SDK_REFERRAL_APPLY }] },
  async ({ event, step }) => executeJob(event.data?.jobId, step as unknown as Step),
);

const rewardPayoutFunction = inngest.createFunction(
  { id: "reward-payout", name: "REWARD_PAYOUT", retries: 0, triggers: [{ event: JOB_EVENTS.REWARD_PAYOUT }] },
  async ({ event, step }) => executeJob(event.data?.jobId, step as unknown as Step),
);

/**
 * Retention (the Inngest equivalent of the embedded schedule in server/jobs/worker.ts): hourly,
 * deletes finished jobs past JOB_RETENTION_DAYS and expired idempotency records, in bounded batches.
 */
export const retentionFunction = inngest.createFunction(
  { id: "retention-sweep", name: "Retention sweep", retries: 2, triggers: [{ cron: "TZ=UTC 17 * * * *" }] },
  async ({ step }) => step.run("sweep", () => sweepRetention()),
);

const webhookDeliverFunction = inngest.createFunction(
  { id: "webhook-deliver", name: "WEBHOOK_DELIVER", retries: 0, triggers: [{ event: JOB_EVENTS.WEBHOOK_DELIVER }] },
  async ({ event, step }) => executeJob(event.data?.jobId, step as unknown as Step),
);

const liabilityProofFunction = inngest.createFunction(
  { id: "liability-proof", name: "LIABILITY_PROOF", retries: 0, triggers: [{ event: JOB_EVENTS.LIABILITY_PROOF }] },
  async ({ event, step }) => executeJob(event.data?.jobId, step as unknown as Step),
);

/** WALLET_MISSING and REVIEW_QUEUE emails (the embedded schedule runs it with the daily proofs): hourly. */
const emailScheduleFunction = inngest.createFunction(
  { id: "email-schedule", name: "Scheduled emails", retries: 2, triggers: [{ cron: "TZ=UTC 23 * * * *" }] },
  async ({ step }) => step.run("queue", () => scheduleEmailDigests()),
);

const emailSendFunction = inngest.createFunction(
  { id: "email-send", name: "EMAIL_SEND", retries: 0, triggers: [{ event: JOB_EVENTS.EMAIL_SEND }] },
  async ({ event, step }) => executeJob(event.data?.jobId, step as unknown as Step),
);

/** Daily proofs of liabilities (the embedded schedule runs it with the retention sweep): queues the due ones hourly. */
const dailyProofsFunction = inngest.createFunction(
  { id: "liability-proofs-daily", name: "Daily proofs of liabilities", retries: 2, triggers: [{ cron: "TZ=UTC 47 * * * *" }] },
  async ({ step }) => step.run("queue", async () => (await scheduleDailyProofs()).length),
);

export const functions = [eventProcessFunction, sdkReferralApplyFunction, webhookDeliverFunction, rewardPayoutFunction, retentionFunction, liabilityProofFunction, dailyProofsFunction, emailSendFunction, emailScheduleFunction];
