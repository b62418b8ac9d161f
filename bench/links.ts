// Referral links and the portal under load (`npm run bench:links`; also part of `npm run bench`):
//   1. PostgreSQL: GET /r/:code (302; its click buffered and written in batches) and
//      GET /portal/api/me (a referrer with 1,000 referrals and rewards) beside the baseline route,
//      rounds taking turns; exact p95 of sequential portal reads beside sequential baseline calls;
//      the clicks written, counted after a graceful stop.
//   2. The funnel (GET /business/analytics/funnel, 30-day range) with 1,000,000 clicks seeded over
//      90 days (the retention window), closed days rolled up as the daily sweep leaves them.
//   3. PGlite (the embedded default): GET /r/:code beside the baseline route, the same way.
//
//   BENCH_DURATION, BENCH_ROUNDS, BENCH_CONNECTIONS as for bench/run.ts (defaults 5, 3, "10,50");
//   BENCH_FUNNEL_CLICKS (default 1000000), BENCH_SEQUENTIAL (requests per sequential series, default 300).
import { PGlite } from "@electric-sql/pglite";
import os from "node:os";
import pg from "pg";
import { ensureBuild, ensurePrismaClient } from "../scripts/ensure.mjs";
import { tempPgliteDir } from "../tests/support/database";
import { signUp } from "./analytics";
import { call, signUpWithToken } from "./api";
import { startBenchApp, type BenchApp } from "./app";
import { seedPortal } from "./portal";
import { createDatabase, fmt, median, run, sequential, type Measured, type Scenario } from "./measure";

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? "10,50").split(",").map(Number);
const FUNNEL_CLICKS = Number(process.env.BENCH_FUNNEL_CLICKS ?? 1_000_000);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 300);
const DESTINATION = "https://bench.example/welcome";
const WEB_ONLY = {
  BENCH_ROUTES: "1",
  EMBEDDED_RUNNER: "0",
  RATE_LIMIT_PER_SECOND: "100000000",
  RATE_LIMIT_BURST: "200000000",
  // Portal sessions are limited like publishable keys.
  RATE_LIMIT_PUBLISHABLE_PER_SECOND: "100000000",
  RATE_LIMIT_PUBLISHABLE_BURST: "200000000",
  // Every click of the load comes from this machine: each one recorded, as from many visitors.
  LINK_CLICKS_PER_NETWORK_HOUR: "100000000",
};

const baseline: Scenario = { name: "baseline (parse body, constant JSON)", method: "POST", path: "/bench/baseline", body: { eventName: "signup", metadata: { campaign: "bench" } }, auth: false };
const redirect = (code: string): Scenario => ({ name: "GET /r/:code (302, click recorded)", method: "GET", path: `/r/${code}?utm_source=bench&utm_campaign=load`, auth: false, redirect: true });

/** A program with a link destination and one referrer: the code to follow. */
async function linkProgram(url: string) {
  const { secret, token } = await signUpWithToken(url, "bench-links");
  await call(url, "PATCH", "/business/config/general", { environment: "TEST", linkDestinationUrl: DESTINATION }, { authorization: `Bearer ${token}` });
  const p = await call(url, "POST", "/sdk/participants", { userId: "bench-linker", handle: "benchlinker" }, { "x-api-key": secret });
  return { secret, code: String(p.referralCode) };
}

/** The scenarios in turn, round after round, per connection count; each keeps its median round. */
async function rounds(url: string, scenarios: Scenario[], secret: string, label: string) {
  for (const s of scenarios) await run(url, s, 10, 2, secret); // warm-up
  const out: Measured[] = [];
  for (const c of CONNECTIONS) {
    const per: Measured[][] = scenarios.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, s] of scenarios.entries()) {
        const m = await run(url, s, c, DURATION, secret);
        console.log(`  ${label} [${r + 1}/${ROUNDS}] ${s.name} @${c}: ${fmt(m.reqPerSec)} req/s p50 ${m.p50} ms p99 ${m.p99} ms (non-2xx ${m.non2xx}, errors ${m.errors})`);
        per[i].push(m);
      }
    }
    out.push(...per.map(median));
  }
  return out;
}

/** Redirects answered over all rounds (warm-up included), for the written-clicks check. */
const answered = (ms: Measured[]) => ms.filter((m) => m.scenario.redirect).reduce((n, m) => n + m.ok, 0);

interface LinkFigures {
  engine: "PostgreSQL" | "PGlite";
  results: Measured[];
  clicksWritten: number;
  portalSequential?: { portal: Awaited<ReturnType<typeof sequential>>; baseline: Awaited<ReturnType<typeof sequential>> };
}

/** 1. On PostgreSQL: redirect and portal read beside the baseline; then the clicks written. */
async function linksOnPostgres(): Promise<{ figures: LinkFigures; funnel: FunnelFigures }> {
  const pgdb = await createDatabase();
  let app: BenchApp | undefined;
  try {
    app = await startBenchApp({ DATABASE_URL: pgdb.url, ...WEB_ONLY });
    const { secret, code } = await linkProgram(app.url);
    const portal = await seedPortal(app.url, pgdb.url, secret);
    const me: Scenario = { name: "GET /portal/api/me (1,000 referrals and rewards)", method: "GET", path: "/portal/api/me", auth: false, headers: { authorization: `Bearer ${portal.token}` } };
    const results = await rounds(app.url, [baseline, redirect(code), me], secret, "PostgreSQL");
    const portalSequential = {
      baseline: await sequential(`${app.url}${baseline.path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(baseline.body) }, SEQUENTIAL),
      portal: await sequential(`${app.url}/portal/api/me`, { headers: me.headers }, SEQUENTIAL),
    };
    const f = (x: { p50: number; p95: number; p99: number }) => `p50 ${x.p50.toFixed(1)} ms p95 ${x.p95.toFixed(1)} ms p99 ${x.p99.toFixed(1)} ms`;
    console.log(`  sequential: baseline ${f(portalSequential.baseline)}; GET /portal/api/me ${f(portalSequential.portal)}`);
    await app.stop(); // SIGTERM: the buffer is flushed
    app = undefined;
    const client = new pg.Client({ connectionString: pgdb.url });
    await client.connect();
    const clicksWritten = Number((await client.query(`SELECT count(*) FROM "LinkClick" WHERE code = $1`, [code])).rows[0].count);
    await client.end();
    console.log(`  PostgreSQL: ${fmt(clicksWritten)} clicks written`);
    app = await startBenchApp({ DATABASE_URL: pgdb.url, ...WEB_ONLY });
    const funnel = await benchFunnel(app.url, pgdb.url);
    return { figures: { engine: "PostgreSQL", results, clicksWritten, portalSequential }, funnel };
  } finally {
    await app?.stop();
    await pgdb.drop();
  }
}

/** 3. On PGlite (embedded, one process): redirect beside the baseline; the clicks written, read after the stop. */
export async function linksOnPglite(): Promise<LinkFigures> {
  const dir = tempPgliteDir();
  const app = await startBenchApp({ PGLITE_DIR: dir, ...WEB_ONLY });
  let results: Measured[];
  let code: string;
  try {
    const p = await linkProgram(app.url);
    code = p.code;
    results = await rounds(app.url, [baseline, redirect(code)], p.secret, "PGlite");
  } finally {
    await app.stop();
  }
  const db = await PGlite.create(dir);
  const clicksWritten = Number((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "LinkClick" WHERE code = $1`, [code])).rows[0].n);
  await db.close();
  console.log(`  PGlite: ${fmt(clicksWritten)} clicks written`);
  return { engine: "PGlite", results, clicksWritten };
}

interface FunnelFigures {
  clicks: number;
  seedSeconds: number;
  rolledUpDays: number;
  series: { groupBy: string; p50: number; p95: number; p99: number; max: number; rows: number }[];
}

/** 2. The funnel over 1,000,000 seeded clicks (90 days), closed days rolled up by the app's own sweep step. */
export async function benchFunnel(baseUrl: string, databaseUrl: string): Promise<FunnelFigures> {
  const { email, token } = await signUp(baseUrl);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const t0 = performance.now();
  try {
    const b = await client.query(`SELECT m."businessId" FROM "Member" m JOIN "user" u ON u."id" = m."userId" WHERE u."email" = $1`, [email]);
    const bid = b.rows[0].businessId as string;
    const span = 90 * 86_400;
    await client.query(
      `INSERT INTO "Participant" (id, "businessId", environment, email, "referralCode", "createdAt", "updatedAt")
       SELECT $1 || '_p' || g, $1, 'LIVE', 'f' || g || '@bench.test', upper(substr(md5($1 || g), 1, 12)), now(), now() FROM generate_series(1, 20000) g`,
      [bid],
    );
    // Clicks of 2,000 referrers over the last 90 days: every 50th a bot (never counted), the others counted.
    await client.query(
      `INSERT INTO "LinkClick" (id, "businessId", environment, "participantId", code, "visitorHash", hour, "utmSource", "utmCampaign", bot, counted, "createdAt")
       SELECT $1 || '_c' || g, $1, 'LIVE', $1 || '_p' || (1 + g % 2000), 'C' || (1 + g % 2000), md5(g::text), date_trunc('hour', t),
              (ARRAY['mail', 'x', 'news', NULL])[1 + g % 4], (ARRAY['spring', 'autumn', NULL])[1 + g % 3], g % 50 = 0, g % 50 <> 0, t
         FROM (SELECT g, now() - make_interval(secs => (g::bigint * 7919) % ${span}) AS t FROM generate_series(1, $2::int) g) s`,
      [bid, FUNNEL_CLICKS],
    );
    // 18,000 referrals, each from a click of its referrer; a third rewarded.
    await client.query(
      `INSERT INTO "Referral" (id, "businessId", environment, "referrerId", "referredId", campaign, status, "qualifiedAt", "createdAt", "updatedAt")
       SELECT $1 || '_r' || g, $1, 'LIVE', $1 || '_p' || (1 + (g * 50 + 1) % 2000), $1 || '_p' || (2000 + g), NULL,
              (CASE WHEN g % 3 = 0 THEN 'REWARDED' ELSE 'PENDING' END)::"ReferralStatus", CASE WHEN g % 3 = 0 THEN c."createdAt" + interval '1 hour' END, c."createdAt", c."createdAt"
         FROM generate_series(1, 18000) g JOIN "LinkClick" c ON c.id = $1 || '_c' || (g * 50 + 1)`,
      [bid],
    );
    await client.query(`INSERT INTO "ReferralClick" ("referralId", "clickId") SELECT $1 || '_r' || g, $1 || '_c' || (g * 50 + 1) FROM generate_series(1, 18000) g`, [bid]);
    await client.query(
      `INSERT INTO "Reward" (id, "businessId", environment, "participantId", "referralId", kind, "requestedWei", "amountWei", status, "createdAt", "paidAt", "payoutStatus")
       SELECT r.id || '_w', r."businessId", 'LIVE', r."referrerId", r.id, 'REFERRAL', 10000000000000000, 10000000000000000, 'PAID', r."qualifiedAt", r."qualifiedAt", 'PAYABLE'
         FROM "Referral" r WHERE r."businessId" = $1 AND r.status = 'REWARDED'`,
      [bid],
    );
  } finally {
    await client.end();
  }
  // The daily sweep's roll-up step, as the app runs it (server/domain/links/retention.ts).
  process.env.DATABASE_URL = databaseUrl;
  const { rollUpClickDays } = await import("../server/domain/links/retention");
  const { closeDb } = await import("../server/db/client");
  const rolledUpDays = await rollUpClickDays();
  await closeDb();
  const vac = new pg.Client({ connectionString: databaseUrl });
  await vac.connect();
  for (const t of ["LinkClick", "LinkClickDay", "LinkClickDayGroup", "LinkClickBlockGroup", "LinkClickDayVisitor", "Referral", "ReferralClick", "Reward", "Participant"]) await vac.query(`VACUUM ANALYZE "${t}"`);
  await vac.end();
  const seedSeconds = (performance.now() - t0) / 1000;

  const to = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
  const series: FunnelFigures["series"] = [];
  for (const groupBy of ["referrer", "campaign", "utm_source", "day"]) {
    const url = `${baseUrl}/business/analytics/funnel?environment=LIVE&from=${from}&to=${to}&groupBy=${groupBy}`;
    const headers = { authorization: `Bearer ${token}` };
    const rows = ((await call(baseUrl, "GET", new URL(url).pathname + new URL(url).search, undefined, headers)).data as unknown[]).length;
    const s = await sequential(url, { headers }, SEQUENTIAL);
    console.log(`  funnel groupBy=${groupBy}: p50 ${s.p50.toFixed(1)} ms p95 ${s.p95.toFixed(1)} ms (${rows} rows)`);
    series.push({ groupBy, ...s, rows });
  }
  return { clicks: FUNNEL_CLICKS, seedSeconds, rolledUpDays, series };
}

const ms = (x: number) => x.toFixed(1);

/** The report: one table per engine (routes beside the baseline), the portal's sequential p95, the funnel. */
function renderLinks(o: { pg?: LinkFigures; pglite: LinkFigures; funnel: FunnelFigures }): string {
  const lines: string[] = [];
  for (const f of o.pg ? [o.pg, o.pglite] : [o.pglite]) {
    for (const c of CONNECTIONS) {
      const rows = f.results.filter((r) => r.connections === c);
      const base = rows.find((r) => r.scenario.path === "/bench/baseline")!;
      lines.push(`### ${f.engine}, ${c} connections`, "", "| route | req/s [range] | × baseline | p50 ms | p99 ms | p99 × baseline | non-2xx |", "|---|---:|---:|---:|---:|---:|---:|");
      for (const r of rows) {
        lines.push(`| ${r.scenario.name} | ${fmt(r.reqPerSec)} [${fmt(r.min ?? r.reqPerSec)}–${fmt(r.max ?? r.reqPerSec)}] | ${fmt(r.reqPerSec / base.reqPerSec, 2)} | ${r.p50} | ${r.p99} | ${fmt(r.p99 / base.p99, 2)} | ${r.non2xx} |`);
      }
      lines.push("");
    }
    lines.push(`${f.engine}: ${fmt(answered(f.results))} redirects counted by autocannon in the measured rounds; ${fmt(f.clicksWritten)} clicks written after the graceful stop (warm-up included).`, "");
  }
  const s = o.pg?.portalSequential;
  if (s) {
    lines.push(
      `Sequential (one request at a time, ${SEQUENTIAL} after 20 warm-up) on PostgreSQL: GET /portal/api/me p50 ${ms(s.portal.p50)} ms, **p95 ${ms(s.portal.p95)} ms**, p99 ${ms(s.portal.p99)} ms; ` +
        `baseline p50 ${ms(s.baseline.p50)} ms, p95 ${ms(s.baseline.p95)} ms, p99 ${ms(s.baseline.p99)} ms.`,
      "",
    );
  }
  lines.push(funnelTable(o.funnel));
  return lines.join("\n");
}

/** npm run bench's sections: the funnel and the PGlite redirect (its PostgreSQL routes are in its own tables). */
export const renderFunnelAndPglite = (o: { funnel: FunnelFigures; pglite: LinkFigures }) => `## Referral links on PGlite, and the funnel (bench/links.ts)\n\n${renderLinks(o)}`;

function funnelTable(f: FunnelFigures): string {
  return [
    `Funnel: ${fmt(f.clicks)} clicks over 90 days (+ 18,000 referrals from clicks, 6,000 rewarded), ${f.rolledUpDays} closed days rolled up, seeded in ${ms(f.seedSeconds)} s; ${SEQUENTIAL} sequential requests per groupBy, 30-day range:`,
    "",
    "| groupBy | rows | p50 ms | p95 ms | p99 ms | max ms |",
    "|---|---:|---:|---:|---:|---:|",
    ...f.series.map((x) => `| ${x.groupBy} | ${x.rows} | ${ms(x.p50)} | ${ms(x.p95)} | ${ms(x.p99)} | ${ms(x.max)} |`),
    "",
  ].join("\n");
}

/** Only the funnel, on a fresh PostgreSQL database (BENCH_LINKS_PARTS without "postgres"). */
async function funnelOnly(): Promise<FunnelFigures> {
  const pgdb = await createDatabase();
  const app = await startBenchApp({ DATABASE_URL: pgdb.url, ...WEB_ONLY });
  try {
    return await benchFunnel(app.url, pgdb.url);
  } finally {
    await app.stop();
    await pgdb.drop();
  }
}

async function main() {
  ensurePrismaClient();
  ensureBuild();
  const load0 = os.loadavg();
  // BENCH_LINKS_PARTS: postgres (routes and funnel), pglite, funnel (alone); default postgres,pglite.
  const parts = (process.env.BENCH_LINKS_PARTS ?? "postgres,pglite").split(",");
  const pgRun = parts.includes("postgres") ? await linksOnPostgres() : null;
  const pglite = parts.includes("pglite") ? await linksOnPglite() : { engine: "PGlite" as const, results: [], clicksWritten: 0 };
  const funnel = pgRun?.funnel ?? (await funnelOnly());
  const report = renderLinks({ pg: pgRun?.figures, pglite, funnel });
  console.log(`\n## Links and portal (${new Date().toISOString()}, load ${load0.map((l) => l.toFixed(1)).join(" / ")} before, ${os.loadavg().map((l) => l.toFixed(1)).join(" / ")} after, ${os.cpus().length} cores)\n\n${report}`);
  process.exit(0);
}

if (process.argv[1]?.endsWith("links.ts")) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
