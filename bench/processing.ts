// `npm run bench:processing`: intake and processing side by side, in one run, on this machine.
// Every event runs the full path (a referrer, a new referred user: participant, referral,
// qualification, two rewards, ledger).
//   1. accept (PostgreSQL, web-only instance, EMBEDDED_RUNNER=0): POST /track/batch ×100 and
//      queued POST /track, next to the app's baseline route;
//   2. drain of that backlog by one `npm run worker` process, and the ratio drain / batch accept;
//   3. sustained load: PROC_RATE events/s offered through /track/batch for PROC_SECONDS, with the
//      web instance and one worker running; the backlog sampled every second, and the
//      event-to-reward latency (event createdAt → processedAt) at p50 / p99;
//   4. drain with 1 and 2 workers and 10,000 prior rows, and with PROC_PRIOR_LARGE (1,000,000)
//      prior rows of history per table, the 1-worker runs of both sizes alternating, twice each
//      (bench/drain.ts);
//   5. the embedded default: the same drain on PGlite by the embedded runner, in process, and the
//      longest wait of a 10 ms timer meanwhile (the process's requests wait as long);
//   6. the product's mix (bench/mix.ts: new referred users, later events of known ones, existing
//      pairs, events naming nobody) drained by one worker with two webhook endpoints on a local
//      receiver and without, and the time another business's queued event takes while an
//      endpoint hangs for PROC_HANG_MS, and while one business's backlog of PROC_BACKLOG events
//      drains; and the commission workload (bench/mix.ts commissionDrain:
//      later purchases with USD and ETH amounts under commission rules, one webhook endpoint).
// Knobs: BENCH_PG_URL, PROC_EVENTS (drain size, 30000), PROC_RATE (1000), PROC_SECONDS (30),
// PROC_PRIOR_LARGE (1000000), PROC_ACCEPT_SECONDS (10), PROC_MIX_EVENTS (20000), PROC_HANG_MS (10000), PROC_BACKLOG (50000). Prints a markdown report (append it to
// bench/RESULTS.md). Never run by the tests: speed is measured here only.
import autocannon from "autocannon";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { ensureBuild, ensurePrismaClient } from "../scripts/ensure.mjs";
import { call, signUpWithTestKey } from "./api";
import { ROOT, startBenchApp, UNCAPPED_INTAKE, type BenchApp } from "./app";
import { dbNow, drainOnce, freshDb, waitForDrain } from "./drain";
import { commissionDrain, mixDrain, otherBusinessBehindBacklog, otherBusinessWhileHanging } from "./mix";

const EVENTS = Number(process.env.PROC_EVENTS ?? 30_000);
const RATE = Number(process.env.PROC_RATE ?? 1000);
const SECONDS = Number(process.env.PROC_SECONDS ?? 30);
const PRIOR_LARGE = Number(process.env.PROC_PRIOR_LARGE ?? 1_000_000);
const ACCEPT_SECONDS = Number(process.env.PROC_ACCEPT_SECONDS ?? 10);
const MIX_EVENTS = Number(process.env.PROC_MIX_EVENTS ?? 20_000);
const HANG_MS = Number(process.env.PROC_HANG_MS ?? 10_000);
const BACKLOG = Number(process.env.PROC_BACKLOG ?? 50_000);
const LOAD_AT_START = os.loadavg();
/** Requests answered with anything but 2xx are not counted as accepted: say how many there were. */
const refused = (l: { non2xx: number }) => (l.non2xx ? `; ${l.non2xx} requests refused (not 2xx)` : "");
const fmt = (n: number, d = 0) => n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A business with a TEST key, 50 referrers, rewards configured and a funded TEST pool. */
async function setupBusiness(url: string, c: pg.Client) {
  const headers = { "x-api-key": await signUpWithTestKey(url, "proc") };
  const codes: string[] = [];
  for (let i = 0; i < 50; i++) codes.push(String((await call(url, "POST", "/sdk/participants", { userId: `referrer-${i}` }, headers)).referralCode));
  const { rows } = await c.query(`SELECT "businessId" FROM "Participant" WHERE "externalId" = 'referrer-0'`);
  const businessId = String(rows[0].businessId);
  await c.query(
    `INSERT INTO "BusinessConfig" ("businessId", "referralRewardWei", "bonusWei", "updatedAt") VALUES ($1, 1000, 500, now())
     ON CONFLICT ("businessId") DO UPDATE SET "referralRewardWei" = 1000, "bonusWei" = 500`,
    [businessId],
  );
  await c.query(`INSERT INTO "ReferralSettings" ("businessId", "updatedAt") VALUES ($1, now()) ON CONFLICT DO NOTHING`, [businessId]);
  await c.query(`INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei") VALUES ('fund-' || $1, $1, 'TEST', 'FUNDING', 1000000000000000000)`, [businessId]);
  return { headers, codes, businessId };
}

let seq = 0;
const fullPathEvent = (codes: string[]) => {
  const n = seq++;
  return { eventName: "purchase", referrer: codes[n % codes.length], metadata: { referredUserEmail: `p${process.pid}-${n}@bench.example` } };
};

interface Load {
  reqPerSec: number;
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
}

/** autocannon with a fresh full-path body per request; `overallRate` fixes the offered rate. */
function load(url: string, p: string, headers: Record<string, string>, body: () => unknown, o: { connections: number; seconds: number; rate?: number }): Promise<Load> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${url}${p}`,
        connections: o.connections,
        duration: o.seconds,
        overallRate: o.rate,
        requests: [
          {
            method: "POST",
            setupRequest: (req) => ({ ...req, method: "POST", path: p, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body()) }),
          },
        ],
      },
      (err, r) => {
        if (err) return reject(err);
        resolve({ reqPerSec: r["2xx"] / (r.duration || o.seconds), p50: r.latency.p50, p99: r.latency.p99, ok: r["2xx"], non2xx: r.non2xx });
      },
    );
  });
}

function startWorker(databaseUrl: string): ChildProcess {
  return spawn(path.join(ROOT, "node_modules", ".bin", "tsx"), [path.join(ROOT, "scripts", "worker.ts")], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, JOB_POLL_MS: "100" },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

async function stopWorker(w: ChildProcess) {
  w.kill("SIGTERM");
  if (w.exitCode === null) await new Promise((r) => w.once("exit", r));
}

const queuedJobs = async (c: pg.Client) => Number((await c.query(`SELECT count(*)::int AS n FROM "Job" WHERE status IN ('QUEUED', 'RUNNING')`)).rows[0].n);

/** Runs a worker until no job is left; seconds from the first claim to the last finish. */
async function drainWithWorker(url: string, c: pg.Client) {
  const backlog = await queuedJobs(c);
  const since = await dbNow(c);
  const w = startWorker(url);
  const seconds = await waitForDrain(c, since);
  await stopWorker(w);
  return { backlog, seconds, rate: backlog / seconds };
}

async function acceptAndDrain() {
  const d = await freshDb();
  let web: BenchApp | undefined;
  try {
    web = await startBenchApp({ DATABASE_URL: d.url, BENCH_ROUTES: "1", EMBEDDED_RUNNER: "0", ...UNCAPPED_INTAKE });
    const { headers, codes } = await setupBusiness(web.url, d.c);
    const batchBody = () => ({ events: Array.from({ length: 100 }, () => fullPathEvent(codes)) });
    // Warm-up, then the measured rounds (the backlog they leave is drained below).
    await load(web.url, "/track/batch", headers, batchBody, { connections: 5, seconds: 2 });
    await load(web.url, "/track", headers, () => fullPathEvent(codes), { connections: 10, seconds: 2 });
    await load(web.url, "/bench/baseline", {}, () => fullPathEvent(codes), { connections: 10, seconds: 2 });
    const batch = await load(web.url, "/track/batch", headers, batchBody, { connections: 10, seconds: ACCEPT_SECONDS });
    const single = await load(web.url, "/track", headers, () => fullPathEvent(codes), { connections: 50, seconds: ACCEPT_SECONDS });
    const baseline = await load(web.url, "/bench/baseline", {}, () => fullPathEvent(codes), { connections: 50, seconds: ACCEPT_SECONDS });
    await web.stop();
    web = undefined;
    const drain = await drainWithWorker(d.url, d.c);
    const check = (await d.c.query(`SELECT count(*) FILTER (WHERE status = 'PROCESSED')::int AS processed, count(*)::int AS total FROM "TrackedEvent"`)).rows[0] as { processed: number; total: number };
    return { batchEventsPerSec: batch.reqPerSec * 100, batch, single, baseline, drain, check };
  } finally {
    await web?.stop();
    await d.drop();
  }
}

async function sustained() {
  const d = await freshDb();
  let web: BenchApp | undefined;
  let worker: ChildProcess | undefined;
  try {
    web = await startBenchApp({ DATABASE_URL: d.url, EMBEDDED_RUNNER: "0", ...UNCAPPED_INTAKE });
    const { headers, codes, businessId } = await setupBusiness(web.url, d.c);
    worker = startWorker(d.url);
    await sleep(3000); // worker start-up
    const samples: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        samples.push(await queuedJobs(d.c));
        await sleep(1000);
      }
    })();
    const offered = await load(web.url, "/track/batch", headers, () => ({ events: Array.from({ length: 100 }, () => fullPathEvent(codes)) }), {
      connections: 10,
      seconds: SECONDS,
      rate: RATE / 100,
    });
    const atEnd = await queuedJobs(d.c);
    let waited = 0;
    while ((await queuedJobs(d.c)) > 0 && waited < 120) {
      await sleep(1000);
      waited++;
    }
    sampling = false;
    await sampler;
    const lat = (
      await d.c.query(
        `SELECT count(*)::int AS n,
                percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM "processedAt" - "createdAt")) * 1000 AS p50,
                percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM "processedAt" - "createdAt")) * 1000 AS p99,
                max(extract(epoch FROM "processedAt" - "createdAt")) * 1000 AS max
           FROM "TrackedEvent" WHERE "businessId" = $1 AND "processedAt" IS NOT NULL`,
        [businessId],
      )
    ).rows[0] as { n: number; p50: number; p99: number; max: number };
    const rewards = Number((await d.c.query(`SELECT count(*)::int AS n FROM "Reward" WHERE status = 'PAID'`)).rows[0].n);
    return { offered, samples, atEnd, drainedAfter: waited, lat, rewards };
  } finally {
    if (worker) await stopWorker(worker);
    await web?.stop();
    await d.drop();
  }
}

/** The embedded default: PGlite in process (no server), the same seed and the same runner code. */
function pgliteDrain(events: number): Promise<{ seconds: number; rate: number; ok: number; paid: number; balanceMatches: boolean; maxTimerGapMs: number; p50TimerGapMs: number }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "rts-proc-pglite-"));
  const script = `(async () => {
    const { db, dbReady, closeDb } = await import(${JSON.stringify(path.join(ROOT, "server/db/client.ts"))});
    const { queueEvents } = await import(${JSON.stringify(path.join(ROOT, "server/domain/tracking/queue-events.ts"))});
    const { startEmbeddedRunner } = await import(${JSON.stringify(path.join(ROOT, "server/jobs/runner.ts"))});
    await dbReady();
    await db.$executeRawUnsafe(\`INSERT INTO "Business" (id, name, "ownerId", "updatedAt") VALUES ('bench', 'Bench', 'o-bench', now())\`);
    await db.$executeRawUnsafe(\`INSERT INTO "BusinessConfig" ("businessId", "referralRewardWei", "bonusWei", "updatedAt") VALUES ('bench', 1000, 500, now())\`);
    await db.$executeRawUnsafe(\`INSERT INTO "ReferralSettings" ("businessId", "updatedAt") VALUES ('bench', now())\`);
    await db.$executeRawUnsafe(\`INSERT INTO "Participant" (id, "businessId", environment, "externalId", "referralCode", "updatedAt") SELECT 'ref-' || i, 'bench', 'TEST', 'ref-' || i, 'REFCODE' || i, now() FROM generate_series(0, 49) i\`);
    await db.$executeRawUnsafe(\`INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei") VALUES ('fund', 'bench', 'TEST', 'FUNDING', 1000000000000000)\`);
    const scope = { businessId: "bench", environment: "TEST", apiKeyId: null };
    for (let i = 0; i < ${events}; i += 100) {
      const items = [];
      for (let k = i; k < Math.min(${events}, i + 100); k++) items.push({ input: { eventName: "purchase", referrer: "REFCODE" + (k % 50), metadata: { referredUserEmail: "new-" + k + "@example.com" } } });
      await queueEvents(db, scope, items);
    }
    // The embedded runner drains it, as in \`npm start\`; a 10 ms timer measures how long the
    // process's other work (its HTTP requests) waits meanwhile.
    const gaps = [];
    let last = performance.now();
    const timer = setInterval(() => { const now = performance.now(); gaps.push(now - last); last = now; }, 10);
    const t0 = Date.now();
    const runner = startEmbeddedRunner();
    for (;;) {
      await new Promise((r) => setTimeout(r, 20));
      const [left] = await db.$queryRawUnsafe(\`SELECT count(*)::int AS n FROM "Job" WHERE status IN ('QUEUED', 'RUNNING')\`);
      if (left.n === 0) break;
    }
    const seconds = (Date.now() - t0) / 1000;
    clearInterval(timer);
    await runner.stop();
    gaps.sort((a, b) => a - b);
    const [r] = await db.$queryRawUnsafe(\`SELECT (SELECT count(*)::int FROM "Job" WHERE status = 'SUCCEEDED') AS ok, (SELECT count(*)::int FROM "Reward" WHERE status = 'PAID') AS paid,
      (SELECT "balanceWei"::text FROM "Pool" WHERE "businessId" = 'bench') AS balance, (SELECT SUM("amountWei")::text FROM "LedgerEntry" WHERE "businessId" = 'bench') AS ledger\`);
    await closeDb();
    process.stdout.write("RESULT " + JSON.stringify({ seconds, rate: ${events} / seconds, ok: r.ok, paid: r.paid, balanceMatches: r.balance === r.ledger, maxTimerGapMs: Math.round(gaps[gaps.length - 1] ?? 0), p50TimerGapMs: Math.round(gaps[Math.floor(gaps.length / 2)] ?? 0) }) + "\\n");
  })().catch((e) => { console.error(e); process.exit(1); });`;
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, PGLITE_DIR: dir };
    delete env.DATABASE_URL;
    const p = spawn(path.join(ROOT, "node_modules", ".bin", "tsx"), ["--eval", script], { cwd: ROOT, env, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    p.stdout.on("data", (b) => (out += b));
    p.on("exit", (code) => {
      rmSync(dir, { recursive: true, force: true });
      const line = out.split("\n").find((l) => l.startsWith("RESULT "));
      if (code !== 0 || !line) return reject(new Error(`PGlite drain exited ${code}: ${out.slice(-500)}`));
      resolve(JSON.parse(line.slice(7)) as { seconds: number; rate: number; ok: number; paid: number; balanceMatches: boolean; maxTimerGapMs: number; p50TimerGapMs: number });
    });
  });
}

async function main() {
  ensurePrismaClient();
  ensureBuild();
  const pgVersion = await (async () => {
    const d = await freshDb();
    const v = String((await d.c.query("SHOW server_version")).rows[0].server_version);
    await d.drop();
    return v;
  })();
  console.log("▸ accept, then drain of the accepted backlog");
  const ad = await acceptAndDrain();
  console.log(JSON.stringify({ batch: ad.batchEventsPerSec, single: ad.single.reqPerSec, baseline: ad.baseline.reqPerSec, drain: ad.drain }));
  console.log(`▸ sustained ${RATE} events/s for ${SECONDS} s`);
  const su = await sustained();
  console.log(JSON.stringify({ samples: su.samples, lat: su.lat }));
  console.log("▸ drain with prior history");
  // 10,000 and 1,000,000 prior rows alternate, twice each, so that the ratio of the two is read
  // side by side from their means and not from one pair of runs (±15 % run to run here).
  const drains: Awaited<ReturnType<typeof drainOnce>>[] = [];
  for (const [prior, workers] of [
    [10_000, 1],
    [PRIOR_LARGE, 1],
    [10_000, 2],
    [10_000, 1],
    [PRIOR_LARGE, 1],
  ] as const) {
    const r = await drainOnce(prior, workers, EVENTS);
    console.log(JSON.stringify(r));
    drains.push(r);
  }
  console.log("▸ PGlite (embedded default)");
  const lite = await pgliteDrain(EVENTS);
  console.log(JSON.stringify(lite));
  console.log("▸ the product's mix, with two webhook endpoints and without; another business while an endpoint hangs");
  const mixHooks = await mixDrain(MIX_EVENTS, 10_000, 2);
  console.log(JSON.stringify(mixHooks));
  const mixPlain = await mixDrain(MIX_EVENTS, 10_000, 0);
  console.log(JSON.stringify(mixPlain));
  const hang = await otherBusinessWhileHanging(HANG_MS);
  console.log(JSON.stringify(hang));
  const behind = await otherBusinessBehindBacklog(BACKLOG);
  console.log(JSON.stringify(behind));
  console.log("▸ commissions: later purchases with USD and ETH amounts, two PERCENT rules and one FIXED rule, one webhook endpoint");
  const commission = await commissionDrain(MIX_EVENTS, 10_000);
  console.log(JSON.stringify(commission));

  const [small, large, two] = [drains[0], drains[1], drains[2]];
  const [small2, large2] = [drains[3], drains[4]];
  const smallRate = (small.rate + small2.rate) / 2;
  const largeRate = (large.rate + large2.rate) / 2;
  const ledgerOk = (...rs: typeof drains) => (rs.every((r) => r.balance === r.ledger) ? "yes" : "NO");
  const lines: string[] = [];
  lines.push(`## Processing: intake and drain side by side (\`npm run bench:processing\`, ${new Date().toISOString()})`, "");
  lines.push(
    `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}, PostgreSQL ${pgVersion}; load average (1 / 5 / 15 min) before ${LOAD_AT_START.map((l) => l.toFixed(1)).join(" / ")}, after ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" / ")}. Every event runs the full path (a referrer, a new referred user: participant, referral, qualification, referral reward and bonus, two ledger debits). ` +
      `Workers: \`npm run worker\` (JOB_BATCH_SIZE ${process.env.JOB_BATCH_SIZE ?? 1000}, JOB_BATCH_TX_SIZE ${process.env.JOB_BATCH_TX_SIZE ?? 1000}, JOB_POLL_MS 100 or 50).`,
    "",
  );
  lines.push("| measure | figure |", "|---|---:|");
  lines.push(`| accept: POST /track/batch ×100, 10 connections, ${ACCEPT_SECONDS} s | ${fmt(ad.batchEventsPerSec)} events/s (p99 ${ad.batch.p99} ms${refused(ad.batch)}) |`);
  lines.push(`| accept: queued POST /track, 50 connections | ${fmt(ad.single.reqPerSec)} req/s (p99 ${ad.single.p99} ms${refused(ad.single)}) |`);
  lines.push(`| baseline route, 50 connections | ${fmt(ad.baseline.reqPerSec)} req/s; queued /track = ${fmt(ad.single.reqPerSec / ad.baseline.reqPerSec, 2)} × baseline |`);
  lines.push(`| drain of that backlog (${fmt(ad.drain.backlog)} jobs), 1 worker | ${fmt(ad.drain.rate)} events/s (${fmt(ad.drain.seconds, 1)} s) |`);
  lines.push(`| **drain / batch accept** | **${fmt(ad.drain.rate / ad.batchEventsPerSec, 2)}** |`);
  lines.push(
    `| drain, 10,000 prior rows, 1 worker (two runs) | ${fmt(smallRate)} events/s (${fmt(small.rate)} and ${fmt(small2.rate)}; ${fmt(small.events)} events each, ${small.ok} jobs ok, ${small.paid} rewards paid, pool = ledger: ${ledgerOk(small, small2)}) |`,
  );
  const tenths = (r: (typeof drains)[number]) => `${fmt(r.batchMs[0] ?? 0)} → ${fmt(r.batchMs[r.batchMs.length - 1] ?? 0)} ms`;
  lines.push(
    `| time between batch commits, first → last tenth of each 1-worker drain (flat: cost does not grow as the drain fills the tables) | 10,000 prior: ${tenths(small)}, ${tenths(small2)}; ${fmt(PRIOR_LARGE)} prior: ${tenths(large)}, ${tenths(large2)} |`,
  );
  lines.push(`| drain, 10,000 prior rows, 2 workers | ${fmt(two.rate)} events/s (pool = ledger: ${ledgerOk(two)}) |`);
  lines.push(
    `| drain, ${fmt(PRIOR_LARGE)} prior rows, 1 worker (two runs, alternating with the above) | ${fmt(largeRate)} events/s (${fmt(large.rate)} and ${fmt(large2.rate)}) = ${fmt((largeRate / smallRate) * 100)} % of the 10,000-row figure (pool = ledger: ${ledgerOk(large, large2)}) |`,
  );
  lines.push(`| drain on PGlite (embedded default: the embedded runner, in process) | ${fmt(lite.rate)} events/s (${lite.ok} jobs ok, ${lite.paid} rewards paid, pool = ledger: ${lite.balanceMatches ? "yes" : "NO"}) |`);
  lines.push(`| longest wait of a 10 ms timer in that process during the PGlite drain (its HTTP requests wait as long) | ${fmt(lite.maxTimerGapMs)} ms (median ${fmt(lite.p50TimerGapMs)} ms) |`);
  lines.push(
    `| sustained: ${fmt(RATE)} events/s offered for ${SECONDS} s (web + 1 worker) | ${fmt(su.offered.reqPerSec * 100)} events/s accepted${refused(su.offered)}; backlog sampled each second: max ${fmt(Math.max(...su.samples))}, at the end of the load ${fmt(su.atEnd)}, empty ${su.drainedAfter} s later |`,
  );
  lines.push(
    `| mix (40 % new referred users, 40 % later events of known ones, 10 % existing pairs, 10 % naming nobody; ${fmt(MIX_EVENTS)} events, 10,000 prior referrals), 1 worker, two webhook endpoints | ${fmt(mixHooks.rate)} events/s (${fmt(mixHooks.seconds, 1)} s); ${fmt(mixHooks.messages)} messages, ${fmt(mixHooks.received)} received by the endpoints${mixHooks.deliveriesSeconds === null ? " (deliveries not finished within the cap)" : `, all delivered ${fmt(mixHooks.deliveriesSeconds, 1)} s after the first claim`} |`,
  );
  lines.push(`| the same mix, no endpoint | ${fmt(mixPlain.rate)} events/s; **with endpoints / without = ${fmt(mixHooks.rate / mixPlain.rate, 2)}** |`);
  lines.push(`| another business's queued event while an endpoint hangs ${fmt(HANG_MS / 1000)} s | **${fmt(hang.seconds, 2)} s** from queued to done (${hang.status}; ${hang.hangingWhenDone} deliveries still hanging then) |`);
  lines.push(`| another business's queued event while one business's backlog of ${fmt(BACKLOG)} events drains (1 worker) | **${fmt(behind.seconds, 2)} s** from queued to done (${behind.status}; ${fmt(behind.backlogLeft)} of the backlog still queued then) |`);
  lines.push(
    `| commissions: ${fmt(MIX_EVENTS)} later purchases of known referred users (USD and ETH amounts), two PERCENT rules and one FIXED rule, one webhook endpoint, 1 worker | ${fmt(commission.rate)} events/s (${fmt(commission.seconds, 1)} s, ${fmt(commission.rewards)} rewards); **commission / mix with endpoints = ${fmt(commission.rate / mixHooks.rate, 2)}**; no wei lost or invented (sum of rewards = SQL's sum of each rule's share, rounded down per reward; pool = ledger): ${commission.exact ? "yes" : "NO"} |`,
  );
  lines.push(`| event → reward latency under that load (${fmt(su.lat.n)} events) | p50 ${fmt(su.lat.p50)} ms, p99 ${fmt(su.lat.p99)} ms, max ${fmt(Number(su.lat.max))} ms |`);
  lines.push("");
  lines.push(`Backlog samples (jobs waiting, one per second): ${su.samples.join(", ")}.`, "");
  console.log("\n" + lines.join("\n"));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
