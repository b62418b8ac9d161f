// The embedded job runner (default when Inngest is not configured): polls the Job table,
// claims due jobs with a lease, executes them, retries with backoff. It is woken right after
// an enqueue so queued work starts at once; the poll also catches jobs whose dispatch was
// lost and jobs left RUNNING by a crashed process (their lease expired).
import { env } from "../shared/env";
import { claimDueJobs, executeClaimedJob } from "./execute";

const BATCH = 16;

export interface EmbeddedRunner {
  wake(): void;
  stop(): Promise<void>;
}

export function startEmbeddedRunner(): EmbeddedRunner {
  let stopped = false;
  let wakeUp: (() => void) | undefined;
  let woken = false;
  const inFlight = new Set<Promise<unknown>>();

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
      let claimed = 0;
      try {
        const jobs = await claimDueJobs(BATCH);
        claimed = jobs.length;
        await Promise.all(
          jobs.map((job) => {
            const p = executeClaimedJob(job).catch((e) => console.error("[jobs] job", job.id, "crashed the runner step:", e));
            inFlight.add(p);
            return p.finally(() => inFlight.delete(p));
          }),
        );
      } catch (e) {
        console.error("[jobs] poll failed:", (e as Error).message);
        await sleep(Math.max(1000, env.jobPollMs));
        continue;
      }
      // A full batch means more may be waiting: poll again at once.
      if (claimed < BATCH && !stopped) await sleep(env.jobPollMs);
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
    },
  };
}
