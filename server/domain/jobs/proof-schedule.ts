// When proofs of liabilities are built without being asked: after a payout run that moved money
// (runPayouts) and at least daily for every pool (scheduleDailyProofs, called by the embedded
// retention schedule and by an Inngest cron function). Both queue a LIABILITY_PROOF job; the job
// handler calls publishLiabilityProof (trust/proofs.ts). It lives with the job queue, below both
// payouts and the proofs, so neither folder imports the other to queue one. One queued job at a
// time per business and environment.
import { chainTarget } from "../../chain/clients";
import { db, rawRows } from "../../db/client";
import type { Environment } from "../../shared/environment";
import { dispatchJobs, insertJob, type QueuedJob } from "./queue";

/** Why a proof was built: POST /business/proofs, after a payout run, or the daily schedule. */
export type ProofReason = "MANUAL" | "PAYOUT" | "DAILY";

const DAY_MS = 86_400_000;

async function queueProof(businessId: string, environment: Environment, reason: ProofReason): Promise<QueuedJob | null> {
  if ("problem" in chainTarget(environment)) return null;
  // One waiting or in progress is enough: a proof reads the books when it runs.
  const busy = await db.job.findFirst({ where: { businessId, environment, type: "LIABILITY_PROOF", status: { in: ["QUEUED", "RUNNING"] } }, select: { id: true } });
  if (busy) return null;
  return db.$transaction((tx) => insertJob(tx, { businessId, environment, apiKeyId: null }, "LIABILITY_PROOF", { reason }));
}

/** After a payout run that created or settled payouts: a fresh proof of what is still owed. */
export async function queueProofAfterPayouts(businessId: string, environment: Environment): Promise<void> {
  const job = await queueProof(businessId, environment, "PAYOUT");
  if (job) dispatchJobs([job]);
}

/** Every pool without a proof in the last day gets one queued. */
export async function scheduleDailyProofs(now = new Date()): Promise<QueuedJob[]> {
  const due = await rawRows<{ businessId: string; environment: Environment }>(
    `SELECT p."businessId", p.environment::text AS environment FROM "Pool" p
      WHERE NOT EXISTS (SELECT 1 FROM "LiabilityProof" x WHERE x."businessId" = p."businessId" AND x.environment = p.environment AND x."createdAt" > $1::timestamp(3))`,
    new Date(now.getTime() - DAY_MS).toISOString(),
  );
  const jobs: QueuedJob[] = [];
  for (const d of due) {
    const job = await queueProof(d.businessId, d.environment, "DAILY");
    if (job) jobs.push(job);
  }
  dispatchJobs(jobs);
  return jobs;
}
