// The job table's write side: a Job row is inserted in the same transaction as the data it
// processes (so an accepted request is never lost), and dispatched only after that transaction
// commits: to Inngest when configured, else to the embedded runner. A failed dispatch leaves
// the job QUEUED; the runner (or, with Inngest, the re-dispatch loop) picks it up later.
import type { Tx } from "../db/client";
import type { Job, JobType, Prisma } from "../db/generated";
import { env } from "../shared/env";
import type { Scope } from "../domain/participants/schemas";

export const JOB_TYPES = ["EVENT_PROCESS", "SDK_REFERRAL_APPLY"] as const satisfies readonly JobType[];

export async function enqueueJob(tx: Tx, scope: Scope, type: JobType, payload: Prisma.InputJsonObject): Promise<Job> {
  return tx.job.create({
    data: {
      businessId: scope.businessId,
      environment: scope.environment,
      apiKeyId: scope.apiKeyId,
      type,
      payload,
      maxAttempts: env.jobMaxAttempts,
    },
  });
}

type Dispatcher = (jobs: Pick<Job, "id" | "type">[]) => Promise<void>;
const g = globalThis as unknown as { __rtsJobDispatcher?: Dispatcher };

/**
 * Installed at start-up by server/runtime.ts (Inngest sender or embedded-runner wake-up).
 * Kept as a hook so that domain code that enqueues does not import the runner or Inngest.
 */
export function setJobDispatcher(d: Dispatcher | undefined) {
  g.__rtsJobDispatcher = d;
}

/**
 * Call after the enqueuing transaction committed. Never throws and never delays the answer:
 * the job is already durable, and a failed or slow dispatch is retried by the runner/re-dispatch loop.
 */
export function dispatchJobs(jobs: Pick<Job, "id" | "type">[]): void {
  const d = g.__rtsJobDispatcher;
  if (!d || jobs.length === 0) return;
  d(jobs).catch((e) => console.warn("[jobs] dispatch failed; the job stays QUEUED and will be picked up again:", (e as Error).message));
}
