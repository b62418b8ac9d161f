// GET /sdk/jobs/:jobId: a job's status, scoped to the API key's business and environment.
import { z } from "zod";
import { db } from "../../db/client";
import { JobStatus, JobType } from "../../db/generated";
import { notFound } from "../../shared/errors";
import type { Scope } from "../../shared/scope";

/** The answer's schema: the route's OpenAPI document (and so the SDK's types) is generated from it. */
export const jobView = z.object({
  jobId: z.string(),
  jobType: z.enum(JobType),
  status: z.enum(JobStatus),
  attempts: z.number().int(),
  maxAttempts: z.number().int(),
  result: z.unknown(),
  error: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
});
export type JobView = z.infer<typeof jobView>;

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
