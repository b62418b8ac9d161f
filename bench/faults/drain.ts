// Faults during a drain of queued events on PostgreSQL (a private cluster): worker processes
// killed (SIGKILL) every few seconds; the app's connections terminated (pg_terminate_backend)
// several times a second; PostgreSQL restarted while a worker is in the middle of a batch; a
// transaction left idle (a pinned xmin) and the time the drain takes to recover once it ends.
import { spawn, type ChildProcess } from "node:child_process";
import pg from "pg";
import { ROOT } from "../../tests/support/app";
import { query, referredEvent, sleep, type Cluster, type Shop } from "./kit";

/** Queues `n` events (new referred users) through /track/batch, retrying each batch with its keys until accepted; returns the keys. */
export async function queueBacklog(s: Shop, n: number, tag: string, batch = 100) {
  const keys: string[] = [];
  let answers503 = 0;
  for (let at = 0; at < n; at += batch) {
    const part = Array.from({ length: Math.min(batch, n - at) }, (_, i) => `${tag}-${at + i}`);
    const body = { events: part.map((k, i) => referredEvent(s, k, at + i)) };
    for (let attempt = 0; ; attempt++) {
      const r = await s.sdk("POST", "/track/batch", body);
      if (r.status === 200 && r.body?.results?.every((x) => x.success)) break;
      // A client that honours the service: a 429 (the key's rate) waits and resends, like a 503.
      if (r.status !== 0 && r.status !== 503 && r.status !== 429) throw new Error(`batch ${r.status} ${JSON.stringify(r.body)}`);
      if (r.status !== 429) answers503++;
      if (attempt > 50) throw new Error("batch never accepted");
      await sleep(r.status === 429 ? 1000 : 200);
    }
    keys.push(...part);
  }
  return { keys, answers503 };
}

/** Jobs of the business not finished yet. */
const pendingJobs = async (url: string, businessId: string) =>
  Number((await query<{ n: number }>(url, `SELECT count(*)::int AS n FROM "Job" WHERE "businessId" = $1 AND status IN ('QUEUED', 'RUNNING')`, [businessId]))[0].n);

/** Jobs that ran more than once: taken over after the process running them died (or lost its connection). */
const takenOver = async (url: string, businessId: string) =>
  Number((await query<{ n: number }>(url, `SELECT count(*)::int AS n FROM "Job" WHERE "businessId" = $1 AND attempts > 1`, [businessId]))[0].n);

/** Polls until the business has no unfinished job (true) or `timeoutMs` passes (false). */
async function drained(url: string, businessId: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await pendingJobs(url, businessId)) === 0) return true;
    } catch {
      /* the server is restarting */
    }
    if (Date.now() > deadline) return false;
    await sleep(250);
  }
}

/** `npm run worker` processes on `env`'s database; `kill` SIGKILLs one, `start` adds one. */
function workers(env: Record<string, string>) {
  const procs: ChildProcess[] = [];
  /** Workers that said they drain (a kill before that tests start-up, not a drain). */
  const ready = new Set<ChildProcess>();
  const start = () => {
    // Node itself with tsx's loader: the tsx CLI would run the worker in a child process that a SIGKILL of the CLI leaves running.
    const p = spawn(process.execPath, ["--import", "tsx", "scripts/worker.ts"], { cwd: ROOT, env: { ...process.env, NODE_ENV: "production", ...env }, stdio: ["ignore", "pipe", "ignore"] });
    p.stdout?.on("data", (d: Buffer) => {
      if (d.toString("utf8").includes("draining jobs")) ready.add(p);
    });
    procs.push(p);
    return p;
  };
  const kill = async (p: ChildProcess) => {
    const exited = new Promise((r) => (p.exitCode !== null || p.signalCode !== null ? r(null) : p.once("exit", r)));
    p.kill("SIGKILL");
    await exited;
  };
  return { procs, ready, start, kill, stopAll: async () => Promise.all(procs.map(kill)) };
}

/** Worker env for a drain: short leases, so jobs a killed worker held are taken again soon. */
const drainEnv = (url: string, rpc: string) => ({ DATABASE_URL: url, CHAIN_RPC_URL_TEST: rpc, JOB_LEASE_MS: "5000", JOB_POLL_MS: "100", PAYOUT_INTERVAL_MS: "0", MIGRATE_ON_START: "0" });

/** Three workers drain the backlog; every `everyMs` (±50 %) the oldest draining one is SIGKILLed and replaced, until it is drained. */
export async function killWorkers(s: Shop, c: Cluster, rpc: string, everyMs: number, timeoutMs: number) {
  const w = workers(drainEnv(c.url, rpc));
  for (let i = 0; i < 3; i++) w.start();
  const t0 = Date.now();
  let kills = 0;
  try {
    const draining = () => w.procs.filter((p) => p.exitCode === null && p.signalCode === null && w.ready.has(p));
    while (Date.now() - t0 < timeoutMs && (await pendingJobs(c.url, s.businessId)) > 0) {
      // The clock of a kill starts once a worker drains (start-up is not what is tested); the
      // first drainer dies at once, in the middle of its first batches, whatever the machine's speed.
      if (!draining().length) {
        await sleep(20);
        continue;
      }
      if (kills > 0) await sleep(everyMs * (0.5 + Math.random()));
      const alive = draining();
      if (alive.length) {
        await w.kill(alive[0]);
        kills++;
        w.start();
      }
    }
    // Drained with the kills stopped, or leases still to expire: a last worker finishes.
    const done = await drained(c.url, s.businessId, 60_000);
    return { kills, drainMs: Date.now() - t0, drained: done, jobsTakenOver: await takenOver(c.url, s.businessId) };
  } finally {
    await w.stopAll();
  }
}

/** Terminates every backend of the app's database except the caller's, every `everyMs`, while `running()`. */
async function terminator(c: Cluster, everyMs: number, running: () => boolean) {
  const admin = new pg.Client({ connectionString: c.url.replace(/\/rts$/, "/postgres") });
  admin.on("error", () => {});
  await admin.connect();
  let terminated = 0;
  let rounds = 0;
  while (running()) {
    const r = await admin.query(`SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = 'rts' AND pid <> pg_backend_pid() AND backend_type = 'client backend'`);
    terminated += Number(r.rows[0].n);
    rounds++;
    await sleep(everyMs);
  }
  await admin.end();
  return { terminated, rounds };
}

/** The app drains (its embedded runner) while intake continues and its connections are terminated every `everyMs` for `forMs`. */
export async function terminateBackends(s: Shop, c: Cluster, n: number, everyMs: number, forMs: number) {
  let on = true;
  const t0 = Date.now();
  const killing = terminator(c, everyMs, () => on && Date.now() - t0 < forMs);
  const intake = await queueBacklog(s, n, `term-${Date.now()}`, 50);
  const stats = await killing;
  on = false;
  const done = await drained(c.url, s.businessId, 120_000);
  return { keys: intake.keys, retriedBatches: intake.answers503, ...stats, drainMs: Date.now() - t0, drained: done, jobsTakenOver: await takenOver(c.url, s.businessId) };
}

/** A worker is in the middle of a batch when PostgreSQL crashes (immediate stop) and comes back `downMs` later. */
export async function restartMidBatch(s: Shop, c: Cluster, rpc: string, downMs: number) {
  const w = workers(drainEnv(c.url, rpc));
  w.start();
  try {
    const t0 = Date.now();
    let running = 0;
    while (running === 0 && Date.now() - t0 < 60_000) {
      running = Number((await query<{ n: number }>(c.url, `SELECT count(*)::int AS n FROM "Job" WHERE "businessId" = $1 AND status = 'RUNNING'`, [s.businessId]))[0].n);
      if (!running) await sleep(20);
    }
    c.stop("immediate");
    await sleep(downMs);
    c.start();
    const done = await drained(c.url, s.businessId, 120_000);
    return { runningJobsAtCrash: running, drainMs: Date.now() - t0, drained: done, jobsTakenOver: await takenOver(c.url, s.businessId) };
  } finally {
    await w.stopAll();
  }
}

/** Queues `n` events and times their drain by the running worker(s). */
async function round(s: Shop, c: Cluster, n: number, tag: string) {
  const { keys } = await queueBacklog(s, n, tag);
  const t0 = Date.now();
  await drained(c.url, s.businessId, 300_000);
  return { keys, ms: Date.now() - t0 };
}

/**
 * A session holds a snapshot (REPEATABLE READ, idle in its transaction: xmin pinned) for `pinMs`
 * while rounds of `n` events are queued and drained; then it ends, and rounds continue until one
 * drains within 1.5 × the baseline. Recovery time: from the end of the pin to that round's end.
 */
export async function pinnedXmin(s: Shop, c: Cluster, rpc: string, n: number, pinMs: number) {
  const w = workers(drainEnv(c.url, rpc));
  w.start();
  const keys: string[] = [];
  const tag = `xmin-${Date.now()}`;
  let r = 0;
  const dead = async () => Number((await query<{ n: number }>(c.url, `SELECT COALESCE(sum(n_dead_tup), 0)::int AS n FROM pg_stat_user_tables WHERE relname IN ('Job', 'TrackedEvent', 'IdempotencyRecord')`))[0].n);
  try {
    const warm = await round(s, c, n, `${tag}-${r++}`);
    keys.push(...warm.keys);
    const base = await round(s, c, n, `${tag}-${r++}`);
    keys.push(...base.keys);
    const pin = new pg.Client({ connectionString: c.url });
    pin.on("error", () => {});
    await pin.connect();
    await pin.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
    await pin.query(`SELECT count(*) FROM "Job"`);
    const pinnedAt = Date.now();
    const during: number[] = [];
    while (Date.now() - pinnedAt < pinMs) {
      const x = await round(s, c, n, `${tag}-${r++}`);
      keys.push(...x.keys);
      during.push(x.ms);
    }
    const deadAtRelease = await dead();
    await pin.query("COMMIT");
    await pin.end();
    const releasedAt = Date.now();
    const after: number[] = [];
    let recoveredMs: number | null = null;
    while (Date.now() - releasedAt < Math.max(60_000, pinMs)) {
      const x = await round(s, c, n, `${tag}-${r++}`);
      keys.push(...x.keys);
      after.push(x.ms);
      if (x.ms <= base.ms * 1.5) {
        recoveredMs = Date.now() - releasedAt;
        break;
      }
    }
    return { events: n, pinMs, baselineMs: base.ms, duringMs: during, afterMs: after, recoveredMs, deadTuplesAtRelease: deadAtRelease, deadTuplesAfter: await dead(), keys };
  } finally {
    await w.stopAll();
  }
}
