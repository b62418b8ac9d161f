// The embedded job runner (default when Inngest is not configured; also the loop of
// `npm run worker`): polls the Job table, claims up to JOB_BATCH_SIZE due jobs with a lease,
// executes them (events of one business+environment as one batch: execute.ts
// executeClaimedJobs), retries with backoff. It is woken right after an enqueue so queued work
// starts at once; the poll also catches jobs whose dispatch was lost, jobs enqueued by other
// processes (web instances with JOB_RUNNER=off) and jobs left RUNNING by a crashed process
// (their lease expired). Several runners share one database safely: claims skip locked rows.
import { dbKind } from "../db/client";
import { keepTableStats } from "../db/table-stats";
import { env } from "../shared/env";
import { claimDueJobs, executeClaimedJobs } from "./execute";

export interface EmbeddedRunner {
  wake(): void;
  stop(): Promise<void>;
}

/** Claims a runner executes at once (PostgreSQL, with a backlog): one running, the next one claimed. */
const CLAIMS_IN_FLIGHT = 2;

export function startEmbeddedRunner(): EmbeddedRunner {
  let stopped = false;
  let wakeUp: (() => void) | undefined;
  let woken = false;
  const inFlight = new Set<Promise<unknown>>();
  let stats: Promise<void> = Promise.resolve();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken) {
        woken = false;
        return resolve();
      }
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        wakeUp = undefined;
        woken = false;
        resolve();
      }
      wakeUp = done;
    });

  const loop = (async () => {
    while (!stopped) {
      let claimed: number;
      const batch = env.jobBatchSize;
      try {
        const jobs = await claimDueJobs(batch);
        claimed = jobs.length;
        if (jobs.length) {
          // With work arriving, the tables it grows keep their planner statistics
          // (db/table-stats.ts), checked beside the claims, not in their way.
          if (env.tableStatsCheckMs > 0) stats = stats.then(() => keepTableStats(env.tableStatsCheckMs));
          const p: Promise<unknown> = executeClaimedJobs(jobs)
            .catch((e) => console.error("[jobs] a runner step crashed:", e))
            .finally(() => inFlight.delete(p));
          inFlight.add(p);
        }
        // A full claim means more is waiting: on PostgreSQL the next claim is made while this one
        // runs (its batches then wait for the pool lock behind this one's, in order), so the
        // database never idles between claims; at most CLAIMS_IN_FLIGHT claims in hand.
        const limit = claimed === batch && dbKind() === "postgres" ? CLAIMS_IN_FLIGHT : 1;
        while (inFlight.size >= limit) await Promise.race(inFlight);
      } catch (e) {
        console.error("[jobs] poll failed:", (e as Error).message);
        await sleep(Math.max(1000, env.jobPollMs));
        continue;
      }
      // A full batch means more may be waiting: poll again at once.
      if (claimed < batch && !stopped) await sleep(env.jobPollMs);
    }
  })();

  return {
    wake() {
      if (wakeUp) wakeUp();
      else woken = true;
    },
    async stop() {
      stopped = true;
      wakeUp?.();
      await loop;
      await Promise.all(inFlight);
      await stats;
    },
  };
}
