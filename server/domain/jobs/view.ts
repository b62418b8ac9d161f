// GET /sdk/jobs/:jobId: a job's status, scoped to the API key's business and environment.
import { db } from "../../db/client";
import { notFound } from "../../shared/errors";
import type { Scope } from "../participants/schemas";

export interface JobView {
  jobId: string;
  jobType: "EVENT_PROCESS" | "SDK_REFERRAL_APPLY" | "WEBHOOK_DELIVER" | "REWARD_PAYOUT";
  status: "QUEUED" | "RUNNING" | "SUCCEEDED" | "FAILED";
  attempts: number;
  maxAttempts: number;
  result: unknown;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  nextAttemptAt: string | null;
}

export async function getJob(scope: Pick<Scope, "businessId" | "environment">, jobId: string): Promise<JobView> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(jobId)) throw notFound("Job");
  const j = await db.job.findFirst({ where: { id: jobId, businessId: scope.businessId, environment: scope.environment } });
  if (!j) throw notFound("Job");
  return {
    jobId: j.id,
    jobType: j.type,
    status: j.status,
    attempts: j.attempts,
    maxAttempts: j.maxAttempts,
    result: j.result ?? null,
    error: j.lastError,
    createdAt: j.createdAt.toISOString(),
    startedAt: j.startedAt?.toISOString() ?? null,
    finishedAt: j.finishedAt?.toISOString() ?? null,
    nextAttemptAt: j.status === "QUEUED" ? j.runAt.toISOString() : null,
  };
}
