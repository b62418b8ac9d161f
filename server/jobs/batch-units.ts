// How the claimed jobs of one business and environment are cut into batch transactions.
import type { Job } from "../db/generated";

/**
 * Jobs a crashed process left RUNNING are claimed this many at a time (claim.ts), and a batch with
 * jobs on a later attempt (an earlier one failed, or ended with its process: a lease
 * taken over) runs in small transactions: each commits before another crash can undo it, so
 * repeated crashes cannot spend every attempt of a whole batch, and a job that kills its process
 * costs few others an attempt.
 */
export const RECOVERY_TX_SIZE = 25;

const retried = (job: Pick<Job, "attempts">) => job.attempts > 1;

/** `group` (in arrival order) in transactions of at most `txSize` jobs, or RECOVERY_TX_SIZE when any is retried. */
export function batchUnits<J extends Pick<Job, "attempts">>(group: J[], txSize: number): J[][] {
  const size = group.some(retried) ? Math.min(txSize, RECOVERY_TX_SIZE) : txSize;
  const units: J[][] = [];
  for (let i = 0; i < group.length; i += size) units.push(group.slice(i, i + size));
  return units;
}
