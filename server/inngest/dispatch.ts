// Sending jobs to Inngest. A job is marked dispatched only after Inngest accepted its event;
// when sending fails the job stays QUEUED with no dispatchedAt, and the re-dispatch loop
// (started by server/runtime.ts) sends it again: nothing accepted is lost.
import { db } from "../db/client";
import type { Job } from "../db/generated";
import { inngest, JOB_EVENTS } from "./client";

/** Jobs still QUEUED this long after their dispatch are sent again; runJob makes a duplicate delivery harmless. */
const STALE_DISPATCH_MS = 5 * 60_000;

export async function sendJobsToInngest(jobs: Pick<Job, "id" | "type">[]): Promise<void> {
  if (jobs.length === 0) return;
  await inngest.send(jobs.map((j) => ({ id: `job-${j.id}-${Date.now()}`, name: JOB_EVENTS[j.type], data: { jobId: j.id } })));
  await db.job.updateMany({ where: { id: { in: jobs.map((j) => j.id) } }, data: { dispatchedAt: new Date() } });
}

/**
 * One pass of the re-dispatch loop: QUEUED jobs never (or long ago) handed to Inngest, and
 * jobs left RUNNING by a run that died after its lease expired (Inngest may have given up).
 */
export async function redispatchPending(limit = 100): Promise<number> {
  const now = new Date();
  const stale = new Date(now.getTime() - STALE_DISPATCH_MS);
  const jobs = await db.job.findMany({
    where: {
      OR: [
        { status: "QUEUED", runAt: { lte: now }, OR: [{ dispatchedAt: null }, { dispatchedAt: { lt: stale } }] },
        { status: "RUNNING", lockedUntil: { lt: now }, OR: [{ dispatchedAt: null }, { dispatchedAt: { lt: stale } }] },
      ],
    },
    select: { id: true, type: true },
    orderBy: { runAt: "asc" },
    take: limit,
  });
  await sendJobsToInngest(jobs);
  return jobs.length;
}
