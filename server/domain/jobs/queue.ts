// The job table's write side, as the domain sees it: a Job row is inserted in the same
// transaction as the data it processes (so an accepted request is never lost), and announced
// only after that transaction commits, through a port: the process installs the dispatcher at
// start-up (server/runtime.ts: the embedded runner's wake-up, or the Inngest sender). The domain
// never imports the runner, the handlers or Inngest; the jobs layer (server/jobs) calls the domain.
// A failed dispatch leaves the job QUEUED; the runner's poll (or, with Inngest, the re-dispatch
// loop) picks it up later.
import type { Tx } from "../../db/client";
import type { Job, JobType, Prisma } from "../../db/generated";
import { env } from "../../shared/env";
import { newId } from "../../shared/ids";
import type { Scope } from "../../shared/scope";

export type QueuedJob = Pick<Job, "id" | "type">;

/** One job row, in the caller's transaction (queued events use tracking/queue-events.ts, which writes event and job in one statement). */
export async function insertJob(tx: Tx, scope: Scope, type: JobType, payload: Prisma.InputJsonObject, runAt?: Date): Promise<QueuedJob> {
  const now = new Date();
  return tx.job.create({
    data: {
      id: newId(),
      businessId: scope.businessId,
      environment: scope.environment,
      apiKeyId: scope.apiKeyId,
      type,
      payload,
      maxAttempts: env.jobMaxAttempts,
      runAt: runAt ?? now,
      createdAt: now,
    },
    select: { id: true, type: true },
  });
}

type Dispatcher = (jobs: QueuedJob[]) => Promise<void>;
const g = globalThis as unknown as { __rtsJobDispatcher?: Dispatcher };

/** Installed at start-up by server/runtime.ts (Inngest sender or embedded-runner wake-up). */
export function setJobDispatcher(d: Dispatcher | undefined) {
  g.__rtsJobDispatcher = d;
}

/**
 * Call after the enqueuing transaction committed. Never throws and never delays the answer:
 * the job is already durable, and a failed or slow dispatch is retried by the runner/re-dispatch loop.
 */
export function dispatchJobs(jobs: QueuedJob[]): void {
  const d = g.__rtsJobDispatcher;
  if (!d || jobs.length === 0) return;
  d(jobs).catch((e: unknown) => console.warn("[jobs] dispatch failed; the job stays QUEUED and will be picked up again:", (e as Error).message));
}
