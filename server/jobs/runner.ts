// The embedded job runner (default when Inngest is not configured; also the loop of
// `npm run worker`): polls the Job table, claims due jobs with a lease, executes them, retries
// with backoff. Three loops share one database connection pool and nothing else:
// - the event loop claims EVENT_PROCESS and SDK_REFERRAL_APPLY jobs, up to JOB_BATCH_SIZE at a
//   time, and executes them (events of one business+environment as one batch: lanes.ts
//   executeClaimedJobs);
// - the webhook, payout, proof and email pools each claim their own kind of job, as many as they have
//   free places (WEBHOOK_CONCURRENCY, PAYOUT_CONCURRENCY), and run each job on its own (a
//   delivery's attempt is recorded with the others that ended meanwhile: webhook-pool.ts). A
//   delivery can wait up to 10 s for an endpoint and a payout run for the chain: in their own
//   bounded pools they hold up neither the events nor each other.
// The runner is woken right after an enqueue so queued work starts at once; the poll also
// catches jobs whose dispatch was lost, jobs enqueued by other processes (web instances with
// JOB_RUNNER=off) or deep in the event path (webhook messages), and jobs left RUNNING by a
// crashed process (their lease expired). Several runners share one database safely: claims skip
// locked rows. Each loop's claims take turns among the businesses with queued jobs (claim.ts
// ClaimTurns), so one business's backlog holds no other business's jobs back.
import { dbKind, pgliteTurn } from "../db/client";
import type { Job, JobType } from "../db/generated";
import { keepTableStats } from "../db/table-stats";
import { env } from "../shared/env";
import { claimDueJobs, type ClaimTurns } from "./claim";
import { executeClaimedJob } from "./execute";
import { executeClaimedJobs } from "./lanes";
import { holdLeases } from "./lease";
import { deliverClaimed, deliveryWeight, webhookAttemptsRecorded } from "./webhook-pool";
import { deliveryGroupSize } from "../domain/webhooks/deliver";
import { SLOW_ENDPOINT_MS } from "../domain/webhooks/destination";
import { PoolRoom } from "./pool-room";

export interface EmbeddedRunner {
  wake(): void;
  stop(): Promise<void>;
}

/** The job types of the event path, claimed by the event loop. */
const EVENT_JOB_TYPES: readonly JobType[] = ["EVENT_PROCESS", "SDK_REFERRAL_APPLY"];

/**
 * Starts claimed jobs; one promise per job, settled when it is done (its places are free then),
 * with `tookMs` when part of that time does not count for its business's verdict (pool-room.ts):
 * a delivery's verdict is how long its endpoint took to answer (null: it posted nothing).
 */
type Start = (jobs: Job[]) => Promise<unknown>[];
const tookOf = (v: unknown): number | null | undefined =>
  typeof v === "object" && v !== null && "tookMs" in v && (typeof v.tookMs === "number" || v.tookMs === null) ? v.tookMs : undefined;
/** The places a claimed job holds (`of`), and how many a job usually holds (`usual`: claims are sized by it). Default: one each. */
type Weight = { of: (job: Job) => number; usual: () => number };
const alone: Start = (jobs) => jobs.map((job) => executeClaimedJob(job));

/**
 * The slow kinds of job, each in a pool of its own. Deliveries record their attempts together
 * (webhook-pool.ts). `yieldMs`: while the runner has a backlog of events, the pool takes a
 * business's jobs only once due for that long if that business is in a burst of events (queued,
 * or of a full claim still being decided), so its burst is decided first (writing a burst's
 * messages and posting them would take the cores its events need) and no job waits longer than
 * that for it; other businesses' jobs do not wait. `slowMs`: a business whose jobs take that long
 * runs one at a time, and such businesses together hold at most half of the pool (pool-room.ts).
 */
const POOLS: { name: string; types: readonly JobType[]; size: () => number; start: Start; weight?: Weight; yieldMs?: () => number; slowMs?: number }[] = [
  { name: "webhooks", types: ["WEBHOOK_DELIVER"], size: () => env.webhookConcurrency, start: deliverClaimed, weight: { of: deliveryWeight, usual: deliveryGroupSize }, yieldMs: () => env.webhookYieldMs, slowMs: SLOW_ENDPOINT_MS },
  { name: "payouts", types: ["REWARD_PAYOUT"], size: () => env.payoutConcurrency, start: alone },
  { name: "proofs", types: ["LIABILITY_PROOF"], size: () => 1, start: alone },
  // An SMTP server that hangs holds its attempts here only, each ended by the transport's timeouts.
  { name: "emails", types: ["EMAIL_SEND"], size: () => env.emailConcurrency, start: alone },
];

/** Claims a runner executes at once (PostgreSQL, with a backlog): one running, the next one claimed. */
const CLAIMS_IN_FLIGHT = 2;

/**
 * The pause after a claim: JOB_POLL_MS while claims find work. On PGlite, after claims that found
 * nothing, it doubles up to JOB_IDLE_POLL_MS: there every job is queued by this process, and
 * queueing wakes the runner (the dispatcher; a batch's webhook messages wake the pools), so the
 * longer pauses delay only jobs due later (retries, schedules) and messages written beside a
 * staff action, by at most that cap, and an idle instance stops spending its CPU on polls. On
 * PostgreSQL other processes (web-only instances, other workers) queue jobs: the poll stays.
 */
export function pollPause(kind: () => "pglite" | "postgres" = dbKind) {
  let empty = 0;
  return (found: number) => {
    if (found > 0 || kind() !== "pglite") {
      empty = 0;
      return env.jobPollMs;
    }
    empty = Math.min(empty + 1, 16);
    return Math.max(env.jobPollMs, Math.min(env.jobIdlePollMs, env.jobPollMs * 2 ** (empty - 1)));
  };
}

/** A sleep that a wake-up ends early (a wake-up while awake makes the next sleep return at once). */
function alarm() {
  let wakeUp: (() => void) | undefined;
  let woken = false;
  return {
    sleep: (ms: number) =>
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
      }),
    wake: () => {
      if (wakeUp) wakeUp();
      else woken = true;
    },
  };
}

interface Loop {
  wake(): void;
  /** Ends once the loop stopped and its work in flight finished. */
  done: Promise<void>;
}

/**
 * The event loop's backlog, read by the pools that yield to it: `lastFull` its last claim was
 * full; `deciding` counts, per business, the full claims with its jobs still being decided (its
 * burst is not over though none of its events is queued). It has a backlog while either holds.
 */
interface Backlog {
  lastFull: boolean;
  deciding: Map<string, number>;
}
const inBacklog = (b: Backlog) => b.lastFull || b.deciding.size > 0;

/** The event loop: batches of claimed event-path jobs, at most CLAIMS_IN_FLIGHT claims in hand. */
function eventLoop(isStopped: () => boolean, afterClaim: () => void, backlog: Backlog): Loop {
  const a = alarm();
  const pause = pollPause();
  const inFlight = new Set<Promise<unknown>>();
  const turns: ClaimTurns = { after: "" };
  let stats: Promise<void> = Promise.resolve();
  const loop = (async () => {
    while (!isStopped()) {
      let claimed: number;
      const batch = env.jobBatchSize;
      try {
        const jobs = await claimDueJobs(batch, EVENT_JOB_TYPES, 0, turns);
        claimed = jobs.length;
        const full = claimed === batch;
        const businesses = full ? [...new Set(jobs.map((j) => j.businessId))] : [];
        for (const b of businesses) backlog.deciding.set(b, (backlog.deciding.get(b) ?? 0) + 1);
        backlog.lastFull = full;
        if (jobs.length) {
          // With work arriving, the tables it grows keep their planner statistics
          // (db/table-stats.ts), checked beside the claims, not in their way.
          if (env.tableStatsCheckMs > 0) stats = stats.then(() => keepTableStats(env.tableStatsCheckMs));
          const release = holdLeases(jobs);
          const p: Promise<unknown> = executeClaimedJobs(jobs)
            .catch((e) => console.error("[jobs] a runner step crashed:", e))
            .finally(() => {
              release();
              inFlight.delete(p);
              for (const b of businesses) {
                const n = (backlog.deciding.get(b) ?? 1) - 1;
                if (n > 0) backlog.deciding.set(b, n);
                else backlog.deciding.delete(b);
              }
              afterClaim();
            });
          inFlight.add(p);
        }
        // A full claim means more is waiting: on PostgreSQL the next claim is made while this one
        // runs (its batches then wait for the pool lock behind this one's, in order), so the
        // database never idles between claims; at most CLAIMS_IN_FLIGHT claims in hand.
        const limit = claimed === batch && dbKind() === "postgres" ? CLAIMS_IN_FLIGHT : 1;
        while (inFlight.size >= limit) await Promise.race(inFlight);
      } catch (e) {
        backlog.lastFull = false;
        console.error("[jobs] poll failed:", (e as Error).message);
        await a.sleep(Math.max(1000, env.jobPollMs));
        continue;
      }
      // A full batch means more may be waiting: poll again at once (on PGlite after a turn of the
      // event loop, so that the process's requests are served during a backlog).
      if (claimed < batch && !isStopped()) await a.sleep(pause(claimed));
      else await pgliteTurn();
    }
    await Promise.all(inFlight);
    await stats;
  })();
  return { wake: a.wake, done: loop };
}

/**
 * A bounded pool for one kind of slow job: claims jobs while it has free places, each job holding
 * its places (one, or its weight) until it is done. One business holds at most half the places
 * (at least one): a business whose endpoint hangs, or whose chain is slow, leaves the other half
 * to the others, and a business alone still has the half it may hold. With `slowMs`, businesses
 * whose endpoints hang hold one job each and at most half of the places between them (pool-room.ts).
 */
function jobPool(types: readonly JobType[], size: () => number, start: Start, isStopped: () => boolean, weight?: Weight, dueFor: () => number = () => 0, yieldTo?: ClaimTurns["yieldTo"], slowMs?: number): Loop {
  const a = alarm();
  const pause = pollPause();
  const inFlight = new Set<Promise<unknown>>();
  const usual = () => (weight ? Math.max(1, weight.usual()) : 1);
  // The jobs (of the usual weight) a business may still start (pool-room.ts). A business's jobs
  // wait (dueFor) only while it is in a burst of events of its own.
  const places = new PoolRoom({ size, usual, slowMs });
  const turns: ClaimTurns = { after: "", room: (b) => places.room(b), yieldTo };
  const hold = (job: Job, done: Promise<unknown>) => {
    const release = places.hold(job.businessId, weight ? Math.max(1, weight.of(job)) : 1);
    let took: number | null | undefined;
    const p: Promise<unknown> = done
      .then((v) => {
        took = tookOf(v);
      })
      .catch((e) => console.error(`[jobs] job ${job.id} crashed:`, e))
      .finally(() => {
        inFlight.delete(p);
        release(took);
        a.wake(); // places are free: claim again
      });
    inFlight.add(p);
  };
  const loop = (async () => {
    while (!isStopped()) {
      const free = size() - places.used;
      if (free <= 0) {
        await a.sleep(env.jobPollMs); // a job that ends wakes the loop
        continue;
      }
      try {
        const limit = Math.max(1, Math.ceil(free / usual()));
        places.beginClaim();
        const jobs = await claimDueJobs(limit, types, dueFor(), turns);
        if (jobs.length) start(jobs).forEach((done, i) => hold(jobs[i], done));
        // Fewer than asked for: nothing else is due; else claim again at once for the free places left.
        if (jobs.length < limit && !isStopped()) await a.sleep(pause(jobs.length));
      } catch (e) {
        console.error("[jobs] poll failed:", (e as Error).message);
        await a.sleep(Math.max(1000, env.jobPollMs));
      }
    }
    await Promise.all(inFlight);
    await webhookAttemptsRecorded();
  })();
  return { wake: a.wake, done: loop };
}

export function startEmbeddedRunner(): EmbeddedRunner {
  let stopped = false;
  const isStopped = () => stopped;
  const backlog: Backlog = { lastFull: false, deciding: new Map() };
  const burst = { types: EVENT_JOB_TYPES, busy: () => backlog.deciding.keys() };
  const pools = POOLS.map((p) => jobPool(p.types, p.size, p.start, isStopped, p.weight, () => (inBacklog(backlog) && p.yieldMs ? p.yieldMs() : 0), burst, p.slowMs));
  // A batch of events may have written webhook messages (and low-pool alerts, payouts): the pools look at once.
  const events = eventLoop(isStopped, () => pools.forEach((p) => p.wake()), backlog);
  const loops = [events, ...pools];
  return {
    wake() {
      for (const l of loops) l.wake();
    },
    async stop() {
      stopped = true;
      for (const l of loops) l.wake();
      await Promise.all(loops.map((l) => l.done));
    },
  };
}
