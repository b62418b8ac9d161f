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
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { applyMigrations } from "../server/db/migrate";
import { ensureBuild, ensurePrismaClient } from "../scripts/ensure.mjs";
import { freePort, ROOT, startApp, type RunningApp } from "../tests/support/app";

const PG_BIN = path.join("/usr/lib/postgresql", readdirSync("/usr/lib/postgresql").sort().at(-1)!, "bin");
/** The parts of answers these experiments read. */
interface Body {
  error?: { code?: string; message?: string };
  results?: Array<{ success?: boolean }>;
  token?: string;
  secret?: string;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function asPostgres(cmd: string, args: string[]) {
  const full = path.join(PG_BIN, cmd);
  const r = os.userInfo().uid === 0 ? spawnSync("runuser", ["-u", "postgres", "--", full, ...args], { encoding: "utf8" }) : spawnSync(full, args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr || r.stdout}`);
  return r.stdout;
}

export async function startCluster() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "rts-faultpg-"));
  if (os.userInfo().uid === 0) {
    const { uid, gid } = { uid: Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout), gid: Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout) };
    chownSync(dir, uid, gid);
  }
  const data = path.join(dir, "data");
  const port = await freePort();
  asPostgres("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8"]);
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=60`;
  const start = () => asPostgres("pg_ctl", ["-D", data, "-l", path.join(dir, "log"), "-o", opts, "-w", "start"]);
  const stop = (mode: "fast" | "immediate") => asPostgres("pg_ctl", ["-D", data, "-m", mode, "-w", "stop"]);
  start();
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query("CREATE DATABASE rts");
  await admin.end();
  // PostgreSQL databases are migrated before the app starts (npm run db:migrate does the same).
  const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/rts`, max: 1 });
  await applyMigrations({ query: (q, p) => pool.query(q, p), exec: async (q) => void (await pool.query(q)) });
  await pool.end();
  return { url: `postgres://postgres@127.0.0.1:${port}/rts`, start, stop, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

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

export async function http(url: string, method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
  const t0 = Date.now();
  try {
    const res = await fetch(`${url}${p}`, {
      method,
      headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let json: Body | null = null;
    try {
      json = JSON.parse(text) as Body;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: json, retryAfter: res.headers.get("retry-after"), ms: Date.now() - t0 };
  } catch (e) {
    return { status: 0, body: { error: { code: "NETWORK", message: (e as Error).message } }, retryAfter: null, ms: Date.now() - t0 };
  }
}

export async function owner(url: string) {
  const email = `fault-${Date.now()}@example.com`;
  const r = await http(url, "POST", "/api/auth/sign-up/email", { email, password: "correct-horse-battery", name: "F", businessName: "Faults" }, { origin: url });
  if (r.status !== 200) throw new Error(`sign-up ${r.status} ${JSON.stringify(r.body)}`);
  const token = r.body?.token ?? "";
  const key = await http(url, "POST", "/business/api-keys", { environment: "TEST" }, { authorization: `Bearer ${token}` });
  return { token, secret: key.body?.secret ?? "" };
}

const tally = (xs: Array<{ status: number; body: Body | null; retryAfter: string | null }>) => {
  const out: Record<string, number> = {};
  for (const x of xs) {
    const k = x.status >= 400 || x.status === 0 ? `${x.status} ${x.body?.error?.code ?? "?"}${x.status === 503 ? (x.retryAfter ? " +Retry-After" : " (no Retry-After)") : ""}` : String(x.status);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
};

async function pgRestart(app: RunningApp, cluster: Awaited<ReturnType<typeof startCluster>>, secret: string, token: string) {
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

async function main() {
  ensurePrismaClient();
  ensureBuild();
  const cluster = await startCluster();
  const redis = await startRedis();
  const port = await freePort();
  const env = { DATABASE_URL: cluster.url, REDIS_URL: redis.url, CHAIN_RPC_URL_TEST: "http://127.0.0.1:9", RATE_LIMIT_PER_SECOND: "1000", RATE_LIMIT_BURST: "2000" };
  let app = await startApp(env, port);
  if (process.env.FAULTS_DEBUG) process.on("exit", () => console.log(app.logs()));
  const results: Record<string, unknown> = { when: new Date().toISOString(), machine: `${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}` };
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
    try {
      cluster.stop("fast");
    } catch {
      /* already down */
    }
    cluster.remove();
  }
  writeFileSync(path.join(ROOT, "bench", "faults-results.json"), JSON.stringify(results, null, 2) + "\n");
  const pgr = results.postgresRestart as { acknowledgedButMissing: number; internal500: number; firstSuccessAfterRestartMs: number | null };
  const kills = results.killMidBatch as Array<{ whole: boolean }>;
  const chain = results.chainDown as { rowsWritten: number };
  const ok = pgr.acknowledgedButMissing === 0 && pgr.internal500 === 0 && pgr.firstSuccessAfterRestartMs !== null && kills.every((k) => k.whole) && chain.rowsWritten === 0;
  console.log(ok ? "[faults] all invariants held" : "[faults] AN INVARIANT FAILED");
  process.exit(ok ? 0 : 1);
}

if (!process.env.FAULTS_NO_MAIN) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
