// What a process that drains jobs runs: the embedded runner, the retention schedule and the
// schedule of daily proofs of liabilities (with the scheduled emails). The web server starts it in-process by default (server/runtime.ts; JOB_RUNNER=off for a web-only
// instance) and `npm run worker` (scripts/worker.ts) runs it alone. With Inngest configured the
// web server does not start it: Inngest runs the jobs and the retention cron function.
import { sweepRetention } from "./retention";
import { scheduleDailyProofs } from "../domain/jobs/proof-schedule";
import { scheduleEmailDigests } from "../domain/email/schedule";
import { env } from "../shared/env";
import { startEmbeddedRunner, type EmbeddedRunner } from "./runner";

export interface JobWorker {
  runner: EmbeddedRunner;
  stop(): Promise<void>;
}

/** The embedded equivalent of the Inngest retention cron: a sweep at start, then every RETENTION_INTERVAL_MS. */
export function startRetentionSchedule(opts: { firstDelayMs?: number } = {}): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    running = sweepRetention()
      .then((r) => {
        if (r.jobsDeleted || r.idempotencyRecordsDeleted) console.log(`[retention] deleted ${r.jobsDeleted} finished jobs, ${r.idempotencyRecordsDeleted} expired idempotency records`);
      })
      .catch((e) => console.warn("[retention] sweep failed; will retry:", (e as Error).message))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, Math.max(1000, env.retentionIntervalMs)).unref();
      });
  };
  timer = setTimeout(tick, opts.firstDelayMs ?? 5_000).unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/**
 * The embedded equivalent of the Inngest daily-proof cron: every PROOF_SCHEDULE_MS (first after one
 * interval, not at start) queues a proof of liabilities for each pool without one in the last day.
 */
function startProofSchedule(): { stop(): void } {
  const every = env.proofScheduleMs;
  if (every <= 0) return { stop() {} };
  const timer = setInterval(() => {
    scheduleDailyProofs().catch((e) => console.warn("[proofs] daily scheduling failed; will retry:", (e as Error).message));
    // The same hourly beat: WALLET_MISSING and REVIEW_QUEUE emails (email/schedule.ts).
    scheduleEmailDigests().catch((e) => console.warn("[email] scheduling failed; will retry:", (e as Error).message));
  }, every).unref();
  return { stop: () => clearInterval(timer) };
}

export function startJobWorker(): JobWorker {
  const runner = startEmbeddedRunner();
  const retention = startRetentionSchedule();
  const proofs = startProofSchedule();
  return {
    runner,
    async stop() {
      proofs.stop();
      await Promise.all([runner.stop(), retention.stop()]);
    },
  };
}
