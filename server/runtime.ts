// Process start-up for the Next.js server: database first, then background work.
import { dbReady } from "./db/client";
import { env } from "./shared/env";

const g = globalThis as unknown as { __rtsRuntime?: Promise<void> };

export function startServerRuntime() {
  g.__rtsRuntime ??= start();
  return g.__rtsRuntime;
}

async function start() {
  await dbReady();
  await startJobs();
  startPayoutSchedule();
  await startClickWriter();
  deployLocalContracts();
}

/** The local TEST chain's contracts (the test stablecoin): deployed once when missing, in the background. */
function deployLocalContracts() {
  void (async () => {
    const { chainTarget } = await import("./chain/clients");
    const { ensureLocalDeployments } = await import("./chain/local-deploy");
    const target = chainTarget("TEST");
    if (!("problem" in target)) await ensureLocalDeployments(target.rpcUrl);
  })().catch((e: unknown) => console.warn("[chain] local contracts not deployed:", (e as Error).message.split("\n")[0]));
}

/** Link clicks are buffered in memory and written in batches: the buffer is flushed before exit. */
async function startClickWriter() {
  const { flushClicks } = await import("./domain/links/clicks");
  const { onShutdown } = await import("./shutdown");
  onShutdown(flushClicks);
}

/** Scheduled payouts (autoPayoutEnabled) and follow-up of unfinished ones: enqueues REWARD_PAYOUT jobs. */
function startPayoutSchedule() {
  const every = env.payoutIntervalMs;
  if (every <= 0) return;
  const tick = async () => {
    try {
      const { schedulePayoutJobs } = await import("./domain/payouts/schedule");
      await schedulePayoutJobs();
    } catch (e) {
      console.warn("[payouts] scheduling failed; will retry:", (e as Error).message);
    }
    setTimeout(() => void tick(), every).unref();
  };
  setTimeout(() => void tick(), every).unref();
}

/**
 * Jobs: with Inngest configured, queued jobs are sent as Inngest events and a re-dispatch loop
 * resends those whose sending failed; otherwise the embedded runner executes them here.
 */
async function startJobs() {
  const { setJobDispatcher } = await import("./domain/jobs/queue");
  if (env.inngestEnabled) {
    const { sendJobsToInngest, redispatchPending } = await import("./inngest/dispatch");
    setJobDispatcher(sendJobsToInngest);
    const every = Math.max(1000, env.jobPollMs * 20);
    const tick = async () => {
      try {
        while ((await redispatchPending()) === 100);
      } catch (e) {
        console.warn("[jobs] re-dispatch to Inngest failed; will retry:", (e as Error).message);
      }
      setTimeout(() => void tick(), every).unref();
    };
    setTimeout(() => void tick(), 0).unref();
    return;
  }
  // JOB_RUNNER=off: a web-only instance; jobs wait in the table for `npm run worker` processes.
  if (!env.embeddedRunner) return;
  const { startJobWorker } = await import("./jobs/worker");
  const { runner } = startJobWorker();
  // No signal handlers: a job interrupted by shutdown keeps its lease and is taken over later.
  setJobDispatcher(async () => runner.wake());
}
