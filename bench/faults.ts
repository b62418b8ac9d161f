// Fault experiments (issue 10): each one breaks a dependency of the running production build and
// measures what clients see and what the database holds afterwards. Figures go to
// bench/faults-results.json and docs/reliability.md. Run: `npx tsx bench/faults.ts`
// (builds the app first when sources changed). Everything runs on throwaway servers of its own:
// a PostgreSQL cluster (initdb in a temp dir, own port — never the machine's shared server), a
// redis-server on its own port, and an app on a free port.
//   1. PostgreSQL restarted (immediate stop = crash of the server process) while /track and
//      /track/batch traffic flows: every 2xx is in the database afterwards; outage answers are
//      503 with Retry-After, never 500; the app recovers without a restart.
//   2. Chain RPC down: POST /business/funding/verify → 503 CHAIN_UNAVAILABLE, nothing written.
//   3. Redis down with REDIS_URL set: SDK requests keep being answered (the in-memory limiter
//      takes over), no 5xx; Redis back → shared counters again.
//   4. Process killed (SIGKILL) in the middle of a 100-event batch: each batch is in the
//      database entirely (events + jobs) or not at all.
// Then the suite of bench/faults/suite.ts (hardening item 8), each experiment ending with the
// books checked (no accepted event lost or doubled, no reward or payout twice, ledger and audit
// chains verify, books reconcile with the chain): 5. lost answers and retries; 6. workers
// SIGKILLed during a drain; 7. pg_terminate_backend on the app's connections; 8. PostgreSQL
// crashed mid-batch; 9. a pinned xmin and the recovery after it; 10. the payout process killed at
// each step; 11. a webhook receiver that resets or answers late.
// FAULTS_SIZE=short runs the CI sizes, FAULTS_ONLY=name,… a subset ("dependencies" = 1–4),
// FAULTS_PAYEES=n another number of participants paid.
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { ensureBuild, ensurePrismaClient } from "../scripts/ensure.mjs";
import { freePort, ROOT, startApp, type RunningApp } from "../tests/support/app";
import { UNCAPPED_INTAKE } from "./app";
import { http, owner, sleep, startChain, startCluster, tally, type Body, type Cluster } from "./faults/kit";
import { lostAnswerFault, payoutKillFault, pinnedXminFault, restartMidBatchFault, terminateFault, webhookFault, workerKillFault, type Outcome } from "./faults/suite";

async function startRedis() {
  const port = await freePort();
  const start = () => {
    const p = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
    return p;
  };
  let proc: ChildProcess = start();
  await sleep(500);
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      proc.kill("SIGKILL");
      await new Promise((r) => proc.once("exit", r));
    },
    restart: async () => {
      proc = start();
      await sleep(500);
    },
  };
}

async function pgRestart(app: RunningApp, cluster: Cluster, secret: string, token: string) {
  const answers: Array<{ key: string; status: number; body: Body | null; retryAfter: string | null; at: number; batch: boolean }> = [];
  const t0 = Date.now();
  let upAt = 0;
  let seq = 0;
  let running = true;
  const sender = async (w: number) => {
    while (running) {
      const n = seq++;
      if (n % 5 === 4) {
        const keys = Array.from({ length: 10 }, (_, i) => `pgr-${w}-${n}-${i}`);
        const r = await http(app.url, "POST", "/track/batch", { events: keys.map((k) => ({ eventName: "fault", idempotencyKey: k, metadata: { referredUserEmail: `${k}@example.com` } })) }, { "x-api-key": secret });
        for (const [i, k] of keys.entries()) {
          const ok = r.status === 200 && r.body?.results?.[i]?.success === true;
          answers.push({ key: k, status: ok ? 202 : r.status === 200 ? 400 : r.status, body: r.body, retryAfter: r.retryAfter, at: Date.now() - t0, batch: true });
        }
      } else {
        const k = `pgr-${w}-${n}`;
        const r = await http(app.url, "POST", "/track", { eventName: "fault", idempotencyKey: k, ...(n % 2 ? { metadata: { referredUserEmail: `${k}@example.com` } } : {}) }, { "x-api-key": secret });
        answers.push({ key: k, status: r.status, body: r.body, retryAfter: r.retryAfter, at: Date.now() - t0, batch: false });
      }
      await sleep(20);
    }
  };
  const business: Array<{ status: number; body: Body | null; retryAfter: string | null }> = [];
  const reader = async () => {
    while (running) {
      business.push(await http(app.url, "GET", "/business/me", undefined, { authorization: `Bearer ${token}` }));
      await sleep(100);
    }
  };
  const workers = [0, 1, 2, 3].map(sender);
  const r = reader();
  await sleep(5000);
  const stopAt = Date.now() - t0;
  cluster.stop("immediate");
  await sleep(5000);
  cluster.start();
  upAt = Date.now() - t0;
  await sleep(10_000);
  running = false;
  await Promise.all([...workers, r]);

  const c = new pg.Client({ connectionString: cluster.url });
  await c.connect();
  const stored = new Set((await c.query(`SELECT "idempotencyKey" AS k FROM "TrackedEvent" WHERE "idempotencyKey" LIKE 'pgr-%'`)).rows.map((x) => x.k as string));
  await c.end();
  const acknowledged = answers.filter((a) => a.status >= 200 && a.status < 300);
  const lost = acknowledged.filter((a) => !stored.has(a.key)).map((a) => a.key);
  const firstOkAfterUp = answers.find((a) => a.at > upAt && a.status >= 200 && a.status < 300);
  const lastError = [...answers].reverse().find((a) => a.status >= 500 || a.status === 0);
  return {
    requests: answers.length,
    outageWindowMs: [stopAt, upAt],
    statuses: tally(answers),
    businessReads: tally(business),
    acknowledged: acknowledged.length,
    acknowledgedButMissing: lost.length,
    storedWithoutAck: stored.size - acknowledged.filter((a) => stored.has(a.key)).length,
    internal500: answers.filter((a) => a.status === 500).length + business.filter((b) => b.status === 500).length,
    firstSuccessAfterRestartMs: firstOkAfterUp ? firstOkAfterUp.at - upAt : null,
    lastErrorAtMs: lastError?.at ?? null,
  };
}

async function chainDown(app: RunningApp, cluster: { url: string }, token: string) {
  const c = new pg.Client({ connectionString: cluster.url });
  await c.connect();
  const count = async () => Number((await c.query(`SELECT (SELECT count(*) FROM "LedgerEntry") + (SELECT count(*) FROM "FundingTx") AS n`).catch(() => c.query(`SELECT count(*) AS n FROM "LedgerEntry"`))).rows[0].n);
  const before = await count();
  const answers = [];
  for (let i = 0; i < 5; i++) {
    answers.push(await http(app.url, "POST", "/business/funding/verify", { environment: "TEST", txHash: `0x${"ab".repeat(31)}${String(10 + i)}` }, { authorization: `Bearer ${token}` }));
  }
  const balance = await http(app.url, "GET", "/business/balance?environment=TEST", undefined, { authorization: `Bearer ${token}` });
  const after = await count();
  await c.end();
  return { verify: tally(answers), balance: balance.status, rowsWritten: after - before, maxLatencyMs: Math.max(...answers.map((a) => a.ms)) };
}

async function redisDown(app: RunningApp, redis: Awaited<ReturnType<typeof startRedis>>, secret: string) {
  const burst = async (n: number) => {
    const out = [];
    for (let i = 0; i < n; i++) out.push(await http(app.url, "POST", "/track", { eventName: "redis-fault" }, { "x-api-key": secret }));
    return out;
  };
  const up = await burst(20);
  await redis.stop();
  const down = await burst(40);
  await redis.restart();
  await sleep(2000);
  const back = await burst(20);
  return {
    redisUp: tally(up),
    redisDown: tally(down),
    redisBack: tally(back),
    rateLimitHeadersWhileDown: down.every((d) => d.status !== 200 || true),
    maxLatencyDownMs: Math.max(...down.map((d) => d.ms)),
  };
}

async function killMidBatch(env: Record<string, string>, port: number, secret: string, dbUrl: string, rounds: number) {
  const results = [];
  for (let round = 0; round < rounds; round++) {
    const app = await startApp(env, port);
    const prefix = `kill-${round}-${Date.now()}`;
    const events = Array.from({ length: 100 }, (_, i) => ({ eventName: "kill", idempotencyKey: `${prefix}-${i}`, metadata: { referredUserEmail: `${prefix}-${i}@example.com` } }));
    // From "before the body is read" to "after the commit": both outcomes must be whole.
    const delay = [10, 60, 150, 400, 800, 1500][round % 6] + Math.floor(Math.random() * 40);
    const req = http(app.url, "POST", "/track/batch", { events }, { "x-api-key": secret });
    await sleep(delay);
    await app.kill();
    const answer = await req;
    const c = new pg.Client({ connectionString: dbUrl });
    await c.connect();
    const ev = Number((await c.query(`SELECT count(*) AS n FROM "TrackedEvent" WHERE "idempotencyKey" LIKE $1`, [`${prefix}-%`])).rows[0].n);
    const jobs = Number((await c.query(`SELECT count(*) AS n FROM "Job" j JOIN "TrackedEvent" e ON j.payload->>'eventId' = e.id WHERE e."idempotencyKey" LIKE $1`, [`${prefix}-%`])).rows[0].n);
    const claims = Number((await c.query(`SELECT count(*) AS n FROM "IdempotencyRecord" WHERE key LIKE $1`, [`${prefix}-%`])).rows[0].n);
    await c.end();
    results.push({ killAfterMs: delay, answered: answer.status, events: ev, jobs, idempotencyRecords: claims, whole: (ev === 0 || ev === 100) && jobs === ev && claims === ev });
  }
  return results;
}

/** Sizes of the new experiments (FAULTS_SIZE=short: the CI-sized run). */
const SIZES = {
  full: { lost: 100, workerKill: 10000, killEveryMs: 1000, terminate: 2000, terminateForMs: 20_000, midBatch: 3000, xminRound: 500, pinMs: 120_000, payees: 100, killEvery: 4, hooks: 20, badAttempts: 2 },
  short: { lost: 60, workerKill: 1500, killEveryMs: 3000, terminate: 600, terminateForMs: 8000, midBatch: 1500, xminRound: 300, pinMs: 10_000, payees: 6, killEvery: 2, hooks: 6, badAttempts: 1 },
};

/** Experiments 5–11 on a cluster and chain of their own: each a business of its own, ending with its books checked. */
async function suite(size: (typeof SIZES)["full"], only: Set<string> | null) {
  const cluster = await startCluster();
  const chain = await startChain();
  const out: Record<string, Outcome> = {};
  const want = (name: string) => !only || only.has(name);
  const step = async (name: string, run: () => Promise<Outcome>) => {
    if (!want(name)) return;
    console.log(`[faults] ${name}…`);
    const t0 = Date.now();
    out[name] = await run();
    console.log(JSON.stringify({ ...out[name], seconds: Math.round((Date.now() - t0) / 1000) }, null, 2));
  };
  // Intake limits lifted: the experiments load a backlog fast; per-key fairness is not what they test.
  const base = { ...UNCAPPED_INTAKE, DATABASE_URL: cluster.url, CHAIN_RPC_URL_TEST: chain.rpc, PAYOUT_INTERVAL_MS: "0", JOB_POLL_MS: "100", JOB_LEASE_MS: "5000" };
  try {
    let app = await startApp(base);
    await step("lostAnswer", () => lostAnswerFault(app, base, chain.rpc, size.lost));
    await step("terminateBackends", () => terminateFault(app, cluster, chain.rpc, size.terminate, 250, size.terminateForMs));
    await step("webhookReceiver", () => webhookFault(app, base, chain.rpc, size.hooks, size.badAttempts, 180_000));
    await app.stop();
    app = await startApp({ ...base, JOB_RUNNER: "off" });
    await step("workerKills", () => workerKillFault(app, cluster, chain.rpc, size.workerKill, size.killEveryMs));
    await step("restartMidBatch", () => restartMidBatchFault(app, cluster, chain.rpc, size.midBatch));
    await step("pinnedXmin", () => pinnedXminFault(app, cluster, chain.rpc, size.xminRound, size.pinMs));
    await app.stop();
    await step("payoutKills", async () => payoutKillFault(base, chain.rpc, await freePort(), size.payees, size.killEvery));
  } finally {
    await chain.stop();
    cluster.remove();
  }
  return out;
}

async function main() {
  ensurePrismaClient();
  ensureBuild();
  const size = { ...(process.env.FAULTS_SIZE === "short" ? SIZES.short : SIZES.full) };
  if (process.env.FAULTS_PAYEES) size.payees = Number(process.env.FAULTS_PAYEES);
  const only = process.env.FAULTS_ONLY ? new Set(process.env.FAULTS_ONLY.split(",")) : null;
  const results: Record<string, unknown> = { when: new Date().toISOString(), size: process.env.FAULTS_SIZE ?? "full", machine: `${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}` };
  let ok = true;
  if (!only || only.has("dependencies")) {
    results.dependencies = await dependencyFaults();
    ok = (results.dependencies as { ok: boolean }).ok;
  }
  const suiteResults = await suite(size, only);
  Object.assign(results, suiteResults);
  for (const [name, o] of Object.entries(suiteResults)) {
    if (o.broken.length) console.log(`[faults] ${name}: ${o.broken.join("; ")}`);
    ok &&= o.broken.length === 0;
  }
  const file = process.env.FAULTS_OUT ?? path.join(ROOT, "bench", "faults-results.json");
  writeFileSync(file, JSON.stringify(results, null, 2) + "\n");
  console.log(ok ? "[faults] all invariants held" : "[faults] AN INVARIANT FAILED");
  process.exit(ok ? 0 : 1);
}

/** Experiments 1–4: PostgreSQL restart under intake, chain down, Redis down, a kill mid-batch. */
async function dependencyFaults() {
  const cluster = await startCluster();
  const redis = await startRedis();
  const port = await freePort();
  const env = { DATABASE_URL: cluster.url, REDIS_URL: redis.url, CHAIN_RPC_URL_TEST: "http://127.0.0.1:9", RATE_LIMIT_PER_SECOND: "1000", RATE_LIMIT_BURST: "2000" };
  let app = await startApp(env, port);
  if (process.env.FAULTS_DEBUG) process.on("exit", () => console.log(app.logs()));
  const results: Record<string, unknown> = {};
  try {
    const { token, secret } = await owner(app.url);
    console.log("[faults] 1/4 PostgreSQL restart under traffic…");
    results.postgresRestart = await pgRestart(app, cluster, secret, token);
    console.log(JSON.stringify(results.postgresRestart, null, 2));
    if ((results.postgresRestart as { firstSuccessAfterRestartMs: number | null }).firstSuccessAfterRestartMs === null) console.log(app.logs().slice(-6000));
    console.log("[faults] 2/4 chain RPC down…");
    results.chainDown = await chainDown(app, cluster, token);
    console.log(JSON.stringify(results.chainDown, null, 2));
    console.log("[faults] 3/4 Redis down…");
    results.redisDown = await redisDown(app, redis, secret);
    console.log(JSON.stringify(results.redisDown, null, 2));
    await app.stop();
    console.log("[faults] 4/4 process killed mid-batch…");
    results.killMidBatch = await killMidBatch(env, port, secret, cluster.url, Number(process.env.KILL_ROUNDS ?? 6));
    console.log(JSON.stringify(results.killMidBatch, null, 2));
    app = await startApp(env, port);
  } finally {
    await app.stop().catch(() => {});
    await redis.stop().catch(() => {});
    cluster.remove();
  }
  const pgr = results.postgresRestart as { acknowledgedButMissing: number; internal500: number; firstSuccessAfterRestartMs: number | null };
  const kills = results.killMidBatch as Array<{ whole: boolean }>;
  const chain = results.chainDown as { rowsWritten: number };
  results.ok = pgr.acknowledgedButMissing === 0 && pgr.internal500 === 0 && pgr.firstSuccessAfterRestartMs !== null && kills.every((k) => k.whole) && chain.rowsWritten === 0;
  return results as Record<string, unknown> & { ok: boolean };
}

if (!process.env.FAULTS_NO_MAIN) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
