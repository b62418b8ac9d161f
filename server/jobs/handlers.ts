// One handler per job type. The embedded runner and the Inngest functions both execute jobs
// through runJob (server/jobs/execute.ts; batches: lanes.ts), which calls these inside the transaction that also
// marks the job SUCCEEDED, so a job's effects commit exactly once.
import type { Tx } from "../db/client";
import type { Job, JobType, Prisma } from "../db/generated";
import { AppError } from "../shared/errors";
import type { Scope } from "../shared/scope";
import { processEvent } from "../domain/tracking/service";
import { startEventAlone } from "../domain/tracking/worker-batch";
import { performReferralApply } from "../domain/referrals/service";
import { applyJobOf, applyReferralInput } from "../domain/referrals/schemas";
import { runPayouts } from "../domain/payouts/run";
import { publishLiabilityProof } from "../domain/trust/proofs";
import type { ProofReason } from "../domain/jobs/proof-schedule";
import { fanOutEventsOf, fanOutWebhookEvents } from "../domain/webhooks/emit";
import { emailIdOf, prepareEmail, recordAttemptFailed, recordFailed, recordSent, sendPrepared } from "../domain/email/send";
import { deliveryJobResult, deliveryPayloadsOf, recordWebhookAttempts, sendWebhookMessages, type WebhookAttempt } from "../domain/webhooks/deliver";

export interface JobHandler {
  /**
   * Optional work done before the transaction and outside it (an HTTP call must not hold a
   * transaction open); its result is passed to run. If it throws, the job is retried.
   */
  perform?(job: Job): Promise<unknown>;
  /** Does the job's work; the return value is stored as the job's result. */
  run(tx: Tx, job: Job, performed?: unknown): Promise<Prisma.InputJsonObject>;
  /** Runs first in the job's transaction when the job runs alone, not in a batch (which took the same first). */
  alone?(tx: Tx, job: Job): Promise<void>;
  /** Records a permanent failure on the job's data (runs in the transaction that marks it FAILED). */
  onFailed?(tx: Tx, job: Job, error: AppError): Promise<void>;
}

const scopeOf = (job: Job): Scope => ({ businessId: job.businessId, environment: job.environment, apiKeyId: job.apiKeyId });

const eventIdOf = (job: Job) => {
  const id = (job.payload as { eventId?: unknown })?.eventId;
  if (typeof id !== "string") throw new AppError("VALIDATION_ERROR", "Job payload has no eventId");
  return id;
};

export const handlers: Record<JobType, JobHandler> = {
  EVENT_PROCESS: {
    // The pool lock first, as a batch takes it (domain/tracking/worker-batch.ts).
    alone: (tx, job) => startEventAlone(tx, job),
    async run(tx, job) {
      const scope = scopeOf(job);
      const event = await tx.trackedEvent.findFirst({ where: { id: eventIdOf(job), businessId: job.businessId, environment: job.environment } });
      if (!event) throw new AppError("NOT_FOUND", "The job's event no longer exists");
      if (event.status !== "QUEUED") {
        // Already decided (e.g. a member rejected it meanwhile): nothing to redo.
        return { eventId: event.id, status: event.status, reason: event.reason, skipped: true };
      }
      const o = await processEvent(tx, scope, event);
      return {
        eventId: event.id,
        status: o.status,
        reason: o.reason,
        referralId: o.referral?.id ?? null,
        referredParticipant: o.referred ? { participantId: o.referred.id, referralCode: o.referred.referralCode } : null,
        rewards: o.rewards as unknown as Prisma.InputJsonArray,
        // Waits for a price (PRICE_UNAVAILABLE): executeClaimedJob reschedules the job.
        ...(o.wait ? { wait: true } : {}),
      };
    },
    async onFailed(tx, job, error) {
      // Business-rule refusals reject the event with their code; anything else marks it FAILED.
      const rejected = error.status === 422;
      await tx.trackedEvent.updateMany({
        where: { id: eventIdOf(job), status: "QUEUED" },
        data: { status: rejected ? "REJECTED" : "FAILED", reason: rejected ? error.code : `${error.code}: ${error.message}`.slice(0, 500), processedAt: new Date() },
      });
    },
  },
  SDK_REFERRAL_APPLY: {
    async run(tx, job) {
      const apply = applyJobOf(job.payload);
      const out = await performReferralApply(tx, { ...scopeOf(job), untrusted: apply.untrusted }, applyReferralInput.parse(apply.input));
      const { success: _s, processedSynchronously: _p, queued: _q, ...result } = out;
      return result;
    },
  },
  WEBHOOK_DELIVER: {
    // The POSTs happen outside the transaction; the attempts are recorded inside it.
    perform: async (job) => (fanOutEventsOf(job.payload) ? null : sendWebhookMessages(deliveryPayloadsOf(job.payload))),
    async run(tx, job, performed) {
      // A fan-out job (rules/write.ts): its events become messages and delivery jobs.
      const events = fanOutEventsOf(job.payload);
      if (events) return fanOutWebhookEvents(tx, scopeOf(job), events);
      return deliveryJobResult(await recordWebhookAttempts(tx, performed as WebhookAttempt[]));
    },
  },
  EMAIL_SEND: {
    // Rendered and checked in a transaction of its own, sent outside any (the email pool), marked in the job's.
    async perform(job) {
      const emailId = emailIdOf(job.payload);
      if (!emailId) return null;
      const prepared = await prepareEmail(emailId);
      if (!prepared) return null;
      try {
        return { emailId, status: await sendPrepared(prepared) };
      } catch (e) {
        await recordAttemptFailed(emailId, (e as Error).message);
        throw e;
      }
    },
    async run(tx, _job, performed) {
      const p = performed as { emailId: string; status: "SENT" | "NOT_CONFIGURED" } | null;
      if (p) await recordSent(tx, p.emailId, p.status);
      return p ?? { skipped: true };
    },
    async onFailed(tx, job, error) {
      const emailId = emailIdOf(job.payload);
      if (emailId) await recordFailed(tx, emailId, error.message);
    },
  },
  REWARD_PAYOUT: {
    // Payouts commit step by step (sign and record, then broadcast, then confirm) outside the
    // job's transaction; a crash anywhere is recovered by the next run, never paying twice.
    async perform(job) {
      const out = (await runPayouts(job.businessId, job.environment)).payouts;
      return { payoutIds: out.map((p) => p.payoutId), statuses: out.map((p) => p.status) };
    },
    async run(_tx, _job, prepared) {
      return prepared ?? {};
    },
  },
  LIABILITY_PROOF: {
    // Chain reads and the proof's own transaction happen before the job's transaction.
    async perform(job) {
      const reason = (job.payload as { reason?: ProofReason })?.reason;
      const p = await publishLiabilityProof(job.businessId, job.environment, reason === "PAYOUT" || reason === "DAILY" ? reason : "MANUAL");
      return { proofId: p.proofId, covered: p.covered, participants: p.participants };
    },
    async run(_tx, _job, prepared) {
      return prepared ?? {};
    },
  },
};
