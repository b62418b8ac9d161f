// Drain rate of full-path events (new referred user, referral, qualification, reward, ledger) by
// `npm run worker` processes on PostgreSQL, with a chosen amount of prior history.
//   npx tsx bench/drain.ts            DRAIN_EVENTS (5000), DRAIN_WORKERS ("1,2"), DRAIN_PRIOR ("10000"), DRAIN_SHAPE (new | repeat), DRAIN_CHAIN ("on"; "on,off"),
//                                     DRAIN_BUSINESSES ("1"; "1,2"), DRAIN_ANALYZE (seed | queue | none), DRAIN_EXPLAIN_MS (off),
//                                     BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres)
// For each prior-row count, worker count and business count: a fresh database, PRIOR rows of
// history (events, referrals, rewards, ledger entries, finished jobs) for each business, then DRAIN_EVENTS
// queued events written by queueEvents (as /track/batch writes them), then the workers start and
// the clock runs until every job has finished. Prints one line per run (and a markdown table).
import { spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { applyMigrations } from "../server/db/migrate";
import { loadSecrets } from "../scripts/secrets.mjs";

const ROOT = path.resolve(import.meta.dirname, "..");
// The clone's secrets (scripts/secrets.mjs) for this process and the seeding scripts and workers it
// starts: what one encrypts (a webhook's secret) the others read.
loadSecrets();
const ADMIN = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const EVENTS = Number(process.env.DRAIN_EVENTS ?? 5000);
const WORKERS = (process.env.DRAIN_WORKERS ?? "1,2").split(",").map(Number);
const PRIOR = (process.env.DRAIN_PRIOR ?? "10000").split(",").map(Number);
/**
 * DRAIN_BUSINESSES=1,2: the same DRAIN_EVENTS (and PRIOR rows of history each) split across that
 * many businesses, in turn by chunks of 100 as they arrive. One business's batches serialise on its
 * pool lock; those of different businesses run side by side: the difference is what that lock costs.
 */
const BUSINESSES = (process.env.DRAIN_BUSINESSES ?? "1").split(",").map(Number);
/** The k-th bench business (the first is "bench") and the prefix of its seeded ids and codes. */
const benchBusiness = (k: number) => (k === 0 ? { id: "bench", p: "" } : { id: `bench${k}`, p: `B${k}` });
/**
 * `new` (default): every event brings a new referred user (the full path). `repeat`: 100 referred
 * users, each one's first event the full path, the rest their later purchases (half of them sent
 * without the referral code, as a shop reports a known customer's purchase).
 */
const SHAPE = process.env.DRAIN_SHAPE === "repeat" ? "repeat" : "new";
/**
 * When the database is analysed: `seed` (default: VACUUM ANALYZE of the seeded history, as a
 * settled production database), `queue` (ANALYZE only once the events are queued: the tables the
 * drain writes are analysed while nearly empty, as autovacuum would early on; with DRAIN_PRIOR=0
 * this is the case of docs/reliability.md's stale plans), or `none` (never).
 */
const ANALYZE = process.env.DRAIN_ANALYZE === "queue" || process.env.DRAIN_ANALYZE === "none" ? process.env.DRAIN_ANALYZE : "seed";
/**
 * DRAIN_EXPLAIN_MS=n: every statement of the drain's database slower than n ms has its plan,
 * with actual rows and times and its triggers' times, written to the PostgreSQL server's log
 * (auto_explain, loaded per session; needs a superuser, as the default BENCH_PG_URL is). Off by
 * default: it slows the drain it looks at.
 */
const EXPLAIN_MS = process.env.DRAIN_EXPLAIN_MS;

export async function freshDb() {
  const admin = new pg.Client({ connectionString: ADMIN });
  await admin.connect();
  const name = `rts_drain_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(ADMIN);
  u.pathname = `/${name}`;
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  await applyMigrations({ query: (s, p) => c.query(s, p), exec: async (s) => void (await c.query(s)) });
  if (EXPLAIN_MS !== undefined && /^\d+$/.test(EXPLAIN_MS)) {
    await c.query(`ALTER DATABASE ${name} SET session_preload_libraries = 'auto_explain'`);
    await c.query(`ALTER DATABASE ${name} SET auto_explain.log_min_duration = '${EXPLAIN_MS}ms'`);
    // With each node's actual rows and time, and each trigger's (foreign-key checks included).
    await c.query(`ALTER DATABASE ${name} SET auto_explain.log_analyze = on`);
    await c.query(`ALTER DATABASE ${name} SET auto_explain.log_triggers = on`);
  }
  return {
    url: u.toString(),
    c,
    drop: async () => {
      await c.end();
      const a = new pg.Client({ connectionString: ADMIN });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

export async function seed(c: pg.Client, prior: number, settle = true, businesses = 1) {
  for (let k = 0; k < businesses; k++) await seedBusiness(c, prior, benchBusiness(k));
  // A settled database, as in production: vacuumed and analysed history, dirty pages written out,
  // so that the measured drain does not share the machine with autovacuum catching up on the seed.
  if (!settle) return;
  await c.query("VACUUM ANALYZE");
  await c.query("CHECKPOINT");
}

async function seedBusiness(c: pg.Client, prior: number, { id: b, p }: { id: string; p: string }) {
  await c.query(`
    INSERT INTO "Business" (id, name, "ownerId", "updatedAt") VALUES ('${b}', 'Bench', 'o-${b}', now());
    INSERT INTO "BusinessConfig" ("businessId", "referralRewardWei", "bonusWei", "updatedAt") VALUES ('${b}', 1000, 500, now());
    INSERT INTO "ReferralSettings" ("businessId", "updatedAt") VALUES ('${b}', now());
    INSERT INTO "Participant" (id, "businessId", environment, "externalId", "referralCode", "updatedAt")
      SELECT '${p}ref-' || i, '${b}', 'TEST', '${p}ref-' || i, '${p}REFCODE' || i, now() FROM generate_series(0, 49) i;
    INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei") VALUES ('${p}fund', '${b}', 'TEST', 'FUNDING', 1000000000000000);`);
  if (prior > 0) {
    // History: prior referred users with their referral, event, paid reward, ledger entry and finished job.
    await c.query(`
      INSERT INTO "Participant" (id, "businessId", environment, email, "referralCode", "updatedAt")
        SELECT '${p}old-' || i, '${b}', 'TEST', '${p}old' || i || '@example.com', '${p}OLD' || i, now() FROM generate_series(1, ${prior}) i;
      INSERT INTO "Referral" (id, "businessId", environment, "referrerId", "referredId", status, "qualifiedAt", "createdAt", "updatedAt")
        SELECT '${p}oref-' || i, '${b}', 'TEST', '${p}ref-' || (i % 50), '${p}old-' || i, 'REWARDED', now() - interval '2 days', now() - interval '2 days', now() FROM generate_series(1, ${prior}) i;
      INSERT INTO "TrackedEvent" (id, "businessId", environment, "eventName", "referralId", status, "processedAt", "createdAt", "updatedAt")
        SELECT '${p}oev-' || i, '${b}', 'TEST', 'purchase', '${p}oref-' || i, 'PROCESSED', now() - interval '2 days', now() - interval '2 days', now() FROM generate_series(1, ${prior}) i;
      INSERT INTO "Reward" (id, "businessId", environment, "participantId", "eventId", "referralId", kind, "requestedWei", "amountWei", status, "createdAt", "paidAt")
        SELECT '${p}orw-' || i, '${b}', 'TEST', '${p}ref-' || (i % 50), '${p}oev-' || i, '${p}oref-' || i, 'REFERRAL', 1, 1, 'PAID', now() - interval '2 days', now() - interval '2 days' FROM generate_series(1, ${prior}) i;
      INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei", "rewardId", "createdAt")
        SELECT '${p}ole-' || i, '${b}', 'TEST', 'REWARD', -1, '${p}orw-' || i, now() - interval '2 days' FROM generate_series(1, ${prior}) i;
      INSERT INTO "Job" (id, "businessId", environment, type, status, payload, "runAt", "finishedAt", "createdAt", "updatedAt")
        SELECT '${p}ojob-' || i, '${b}', 'TEST', 'EVENT_PROCESS', 'SUCCEEDED', '{}', now() - interval '2 days', now() - interval '2 days', now(), now() FROM generate_series(1, ${prior}) i;`);
  }
}

export async function queue(url: string, n: number, businesses = 1) {
  // queueEvents, as /track/batch writes queued events (chunks of 100), in a child process bound to this database.
  const script = `(async () => {
    const { queueEvents } = await import(${JSON.stringify(path.join(ROOT, "server/domain/tracking/queue-events.ts"))});
    const { db, closeDb } = await import(${JSON.stringify(path.join(ROOT, "server/db/client.ts"))});
    const benches = ${JSON.stringify(Array.from({ length: businesses }, (_, k) => benchBusiness(k)))};
    const run = ${JSON.stringify(Date.now())};
    for (let i = 0; i < ${n}; i += 100) {
      const { id, p } = benches[(i / 100) % benches.length];
      const scope = { businessId: id, environment: "TEST", apiKeyId: null };
      const items = [];
      for (let k = i; k < Math.min(${n}, i + 100); k++) items.push({ input: { eventName: "purchase", referrer: ${JSON.stringify(SHAPE)} === "repeat" && k >= 100 && k % 2 ? null : p + "REFCODE" + (k % 50), metadata: { referredUserEmail: "new" + run + "-" + (${JSON.stringify(SHAPE)} === "repeat" ? k % 100 : k) + "@example.com" } } });
      await queueEvents(db, scope, items);
    }
    await closeDb();
  })().catch((e) => { console.error(e); process.exit(1); });`;
  await run(["--eval", script], { DATABASE_URL: url });
}

function run(args: string[], extraEnv: Record<string, string>, stdio: "ignore" | "inherit" = "inherit") {
  return new Promise<void>((resolve, reject) => {
    const p = spawn(path.join(ROOT, "node_modules", ".bin", "tsx"), args, { cwd: ROOT, env: { ...process.env, ...extraEnv }, stdio });
    p.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
}

export const dbNow = async (c: pg.Client): Promise<string> => (await c.query(`SELECT (now() AT TIME ZONE 'UTC')::text AS t`)).rows[0].t as string;

/**
 * The time between consecutive batch commits of a drain (a batch's jobs share one finishedAt),
 * as the mean of each tenth of the drain, in ms: flat when a batch costs the same at the end of
 * the drain as at its start, rising when the cost grows with the tables.
 */
export async function batchMsByTenth(c: pg.Client, since: string): Promise<number[]> {
  const { rows } = await c.query<{ f: Date }>(`SELECT DISTINCT "finishedAt" AS f FROM "Job" WHERE "startedAt" >= $1::timestamp ORDER BY 1`, [since]);
  const gaps = rows.slice(1).map((r, i) => r.f.getTime() - rows[i].f.getTime());
  const per = Math.max(1, Math.ceil(gaps.length / 10));
  const out: number[] = [];
  for (let i = 0; i < gaps.length; i += per) {
    const part = gaps.slice(i, i + per);
    out.push(Math.round(part.reduce((a, b) => a + b, 0) / part.length));
  }
  return out;
}

/**
 * Waits until no job is queued or running, and answers the seconds from the first claim to the
 * last finish of the jobs that ran since `since` (their startedAt / finishedAt, so the poll's own
 * period adds no error). The poll is one EXISTS on the (status, runAt) index every 250 ms: a count
 * of a growing backlog every few milliseconds would compete with the workers it measures.
 */
export async function waitForDrain(c: pg.Client, since?: string): Promise<number> {
  since ??= await dbNow(c);
  for (;;) {
    const r = await c.query(`SELECT EXISTS (SELECT 1 FROM "Job" WHERE status IN ('QUEUED', 'RUNNING')) AS busy`);
    if (!r.rows[0].busy) break;
    await new Promise((res) => setTimeout(res, 250));
  }
  const t = await c.query(`SELECT EXTRACT(EPOCH FROM max("finishedAt") - min("startedAt"))::float8 AS s FROM "Job" WHERE "startedAt" >= $1::timestamp`, [since]);
  return Number(t.rows[0].s);
}

/**
 * DRAIN_CHAIN=on,off: drains with the ledger's hash chain (the product) and without it, taking
 * turns in one run, for the cost of hashing: "off" replaces the chain trigger (migrations 0079,
 * 0131) by one that only creates a missing pool row (as the chain's trigger does) and fills seq
 * and hash with placeholders (dropping the seq index they would collide on), as the ledger was
 * written before the chain. Bench databases only.
 */
const CHAIN = (process.env.DRAIN_CHAIN ?? "on").split(",") as ("on" | "off")[];

async function unchain(c: pg.Client) {
  await c.query(`
    DROP INDEX "LedgerEntry_businessId_environment_seq_key";
    CREATE OR REPLACE FUNCTION "LedgerEntry_chain"() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM "Pool" WHERE "businessId" = NEW."businessId" AND "environment" = NEW."environment") THEN
        INSERT INTO "Pool" ("id", "businessId", "environment", "belowThreshold", "createdAt", "updatedAt")
        VALUES (gen_random_uuid()::text, NEW."businessId", NEW."environment", false, now(), now()) ON CONFLICT DO NOTHING;
      END IF;
      NEW."seq" := 0; NEW."hash" := ''; RETURN NEW;
    END $fn$;`);
}

export async function drainOnce(prior: number, workers: number, events = EVENTS, chain: "on" | "off" = "on", businesses = 1) {
  const d = await freshDb();
  try {
    if (chain === "off") await unchain(d.c);
    await seed(d.c, prior, ANALYZE === "seed", businesses);
    await queue(d.url, events, businesses);
    if (ANALYZE === "queue") await d.c.query("ANALYZE");
    const since = await dbNow(d.c);
    const children = Array.from({ length: workers }, () =>
      spawn(path.join(ROOT, "node_modules", ".bin", "tsx"), [path.join(ROOT, "scripts", "worker.ts")], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: d.url, JOB_POLL_MS: "50" },
        stdio: ["ignore", "ignore", "inherit"],
      }),
    );
    const seconds = await waitForDrain(d.c, since);
    const batchMs = await batchMsByTenth(d.c, since);
    for (const ch of children) ch.kill("SIGTERM");
    await Promise.all(children.map((ch) => new Promise((res) => (ch.exitCode !== null ? res(null) : ch.once("exit", res)))));
    const check = await d.c.query(
      `SELECT (SELECT count(*)::int FROM "Job" WHERE status = 'SUCCEEDED' AND id NOT LIKE '%ojob-%') AS ok,
              (SELECT count(*)::int FROM "Reward" WHERE status = 'PAID' AND id NOT LIKE '%orw-%') AS paid,
              -- Each business's pool against its own ledger (in business order): equal lists, every pool right.
              (SELECT string_agg("balanceWei"::text, ',' ORDER BY "businessId") FROM "Pool" WHERE "businessId" LIKE 'bench%') AS balance,
              (SELECT string_agg(s::text, ',' ORDER BY b) FROM (SELECT "businessId" AS b, SUM("amountWei") AS s FROM "LedgerEntry" WHERE "businessId" LIKE 'bench%' GROUP BY 1) l) AS ledger`,
    );
    return { prior, workers, businesses, events, chain, seconds, rate: events / seconds, batchMs, ...(check.rows[0] as { ok: number; paid: number; balance: string; ledger: string }) };
  } finally {
    await d.drop();
  }
}

async function main() {
  const rows = [];
  console.log(`load average before: ${os.loadavg().map((x) => x.toFixed(1)).join(" / ")}`);
  for (const prior of PRIOR) {
    for (const w of WORKERS) {
      for (const chain of CHAIN) {
        for (const businesses of BUSINESSES) {
          const r = await drainOnce(prior, w, EVENTS, chain, businesses);
          console.log(JSON.stringify(r));
          rows.push(r);
        }
      }
    }
  }
  console.log(`load average after: ${os.loadavg().map((x) => x.toFixed(1)).join(" / ")}`);
  console.log("\n| prior rows | workers | businesses | ledger chain | events | seconds | events/s | ms between batch commits, by tenth of the drain | jobs ok | rewards paid | pool = ledger |\n|---:|---:|---:|---|---:|---:|---:|---|---:|---:|---|");
  for (const r of rows)
    console.log(
      `| ${r.prior.toLocaleString("en")} | ${r.workers} | ${r.businesses} | ${r.chain} | ${EVENTS} | ${r.seconds.toFixed(1)} | ${Math.round(r.rate)} | ${r.batchMs.join(" ")} | ${r.ok} | ${r.paid} | ${r.balance === r.ledger ? "yes" : `NO (${r.balance} vs ${r.ledger})`} |`,
    );
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
