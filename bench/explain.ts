// Query plans of the hot-path lookups on PostgreSQL with large tables.
//   npx tsx bench/explain.ts            (EXPLAIN_ROWS=200000 by default; PostgreSQL at BENCH_PG_URL
//                                        or postgres://postgres@127.0.0.1:5432/postgres)
// Creates a scratch database, applies the migrations, fills it with EXPLAIN_ROWS events, jobs,
// participants, referrals, rewards and ledger entries (one large business plus noise), ANALYZEs,
// and prints each hot query's plan. Fails (exit 1) when a hot query falls back to a sequential scan.
import pg from "pg";
import { applyMigrations } from "../server/db/migrate";

const ROWS = Number(process.env.EXPLAIN_ROWS ?? 200_000);
const adminUrl = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

const HOT: { name: string; sql: string }[] = [
  { name: "engine: referral settled? (Reward by referralId, kind)", sql: `SELECT id FROM "Reward" WHERE "referralId" = 'ref-123' AND kind IN ('REFERRAL','BONUS') LIMIT 1` },
  { name: "commissions: rewards of limited rules per referral (Reward by ruleId, referralId)", sql: `SELECT "ruleId", "referralId", COUNT(*) FROM "Reward" WHERE "ruleId" = ANY('{rule-1}'::text[]) AND "referralId" = ANY('{ref-123,ref-124}'::text[]) AND status <> 'REFUSED' GROUP BY 1, 2` },
  { name: "commissions: referrals whose one-time rewards were reversed (Reward by referralId, kind, PAID)", sql: `SELECT DISTINCT "referralId" FROM "Reward" WHERE "referralId" = ANY('{ref-123,ref-124}'::text[]) AND kind IN ('REFERRAL', 'BONUS') AND status = 'PAID' AND "payoutStatus" = 'REVERSED'` },
  { name: "payout: daily cap (Reward by participant, PAID, paidAt >= today)", sql: `SELECT SUM("amountWei") FROM "Reward" WHERE "participantId" = 'p-123' AND status = 'PAID' AND "paidAt" >= now() - interval '1 day'` },
  { name: "ledger: entry of a reward (LedgerEntry by rewardId)", sql: `SELECT id FROM "LedgerEntry" WHERE "rewardId" = 'rw-123'` },
  { name: "pool: running balance (Pool by business, env)", sql: `SELECT "balanceWei" FROM "Pool" WHERE "businessId" = 'big' AND environment = 'TEST'` },
  { name: "events of a referral (TrackedEvent by referralId)", sql: `SELECT id FROM "TrackedEvent" WHERE "referralId" = 'ref-123'` },
  { name: "events of a deleted API key (TrackedEvent by apiKeyId, ON DELETE SET NULL)", sql: `SELECT id FROM "TrackedEvent" WHERE "apiKeyId" = 'key-2'` },
  { name: "handler: event by id", sql: `SELECT * FROM "TrackedEvent" WHERE id = 'ev-123'` },
  { name: "handler: referrer by code or handle", sql: `SELECT id FROM "Participant" WHERE "businessId" = 'big' AND environment = 'TEST' AND ("referralCode" = 'CODE123' OR handle = 'code123') LIMIT 1` },
  { name: "handler: referred user by email", sql: `SELECT id FROM "Participant" WHERE "businessId" = 'big' AND environment = 'TEST' AND email = 'u123@example.com'` },
  // The worker batch's set lookups (event-batch.ts): arrays of values against indexes that hold non-NULL values only.
  { name: "batch: referrers by codes or handles", sql: `SELECT id FROM "Participant" WHERE "businessId" = 'big' AND environment = 'TEST' AND ("referralCode" = ANY('{CODE123,CODE124}'::text[]) OR handle = ANY('{code123,code124}'::text[]))` },
  { name: "batch: referred identities by email and external id", sql: `SELECT id FROM "Participant" WHERE "businessId" = 'big' AND environment = 'TEST' AND email = ANY('{u123@example.com,u124@example.com}'::text[]) UNION ALL SELECT id FROM "Participant" WHERE "businessId" = 'big' AND environment = 'TEST' AND "externalId" = ANY('{x123,x124}'::text[])` },
  { name: "handler: the referred user's referral", sql: `SELECT id FROM "Referral" WHERE "referredId" = 'p-124' AND "businessId" = 'big' AND environment = 'TEST' ORDER BY "createdAt" DESC LIMIT 1` },
  { name: "anti-abuse: one referral per referred user", sql: `SELECT id FROM "Referral" WHERE "businessId" = 'big' AND environment = 'TEST' AND "referredId" = 'p-124' AND "referrerId" <> 'p-1' AND status <> 'REJECTED' LIMIT 1` },
  { name: "anti-abuse: referrer's referrals today", sql: `SELECT count(*) FROM "Referral" WHERE "businessId" = 'big' AND environment = 'TEST' AND "referrerId" = 'p-1' AND status <> 'REJECTED' AND "createdAt" >= now() - interval '1 day'` },
  { name: "tiers: qualified referrals of a referrer", sql: `SELECT count(*) FROM "Referral" WHERE "businessId" = 'big' AND environment = 'TEST' AND "referrerId" = 'p-1' AND status IN ('QUALIFIED','REWARDED')` },
  { name: "runner: claim due jobs", sql: `SELECT id FROM "Job" WHERE type = 'EVENT_PROCESS' AND status = 'QUEUED' AND "runAt" <= now() ORDER BY "runAt" LIMIT 256` },
  { name: "runner: expired leases", sql: `SELECT id FROM "Job" WHERE type = 'EVENT_PROCESS' AND status = 'RUNNING' AND "lockedUntil" < now() ORDER BY "runAt" LIMIT 256` },
  { name: "retention: finished jobs past the period", sql: `SELECT id FROM "Job" WHERE status IN ('SUCCEEDED','FAILED') AND "finishedAt" < now() - interval '7 days' LIMIT 1000` },
  { name: "retention: expired idempotency records", sql: `SELECT id FROM "IdempotencyRecord" WHERE "expiresAt" < now() - interval '1 day' LIMIT 1000` },
];

async function main() {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const name = `rts_explain_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  let seqScans = 0;
  try {
    await applyMigrations({ query: (sql, params) => c.query(sql, params), exec: async (sql) => void (await c.query(sql)) });
    const t0 = Date.now();
    const n = ROWS;
    await c.query(`
      INSERT INTO "Business" (id, name, "ownerId", "updatedAt") VALUES ('big', 'Big', 'o-big', now()), ('small', 'Small', 'o-small', now());
      INSERT INTO "ApiKey" (id, "businessId", environment, "keyHash", prefix, "updatedAt") VALUES ('key-1', 'big', 'TEST', 'h1', 'rk_test_1', now());
      INSERT INTO "Participant" (id, "businessId", environment, email, handle, "referralCode", "updatedAt")
        SELECT 'p-' || i, CASE WHEN i % 10 = 0 THEN 'small' ELSE 'big' END, 'TEST', 'u' || i || '@example.com', 'code' || i, 'CODE' || i, now() FROM generate_series(1, ${n}) i;
      INSERT INTO "Referral" (id, "businessId", environment, "referrerId", "referredId", status, "createdAt", "updatedAt")
        SELECT 'ref-' || i, 'big', 'TEST', 'p-' || (1 + i % 500), 'p-' || (i + 1), (CASE WHEN i % 3 = 0 THEN 'REWARDED' ELSE 'PENDING' END)::"ReferralStatus",
               now() - (i || ' seconds')::interval, now() FROM generate_series(1, ${n} - 1) i WHERE i % 10 <> 9;
      INSERT INTO "TrackedEvent" (id, "businessId", environment, "apiKeyId", "eventName", "referralId", status, "createdAt", "updatedAt")
        SELECT 'ev-' || i, 'big', 'TEST', 'key-1', 'purchase', 'ref-' || i, 'PROCESSED', now() - (i || ' seconds')::interval, now() FROM generate_series(1, ${n} - 1) i WHERE i % 10 <> 9;
      INSERT INTO "Reward" (id, "businessId", environment, "participantId", "eventId", "referralId", kind, "requestedWei", "amountWei", status, "createdAt", "paidAt")
        SELECT 'rw-' || i, 'big', 'TEST', 'p-' || (1 + i % 500), 'ev-' || i, 'ref-' || i, 'REFERRAL', 10, 10, 'PAID', now() - (i || ' seconds')::interval, now() - (i || ' seconds')::interval
          FROM generate_series(3, ${n} - 1, 3) i WHERE i % 10 <> 9;
      INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei") VALUES ('fund', 'big', 'TEST', 'FUNDING', 1000000000000);
      INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei", "rewardId") SELECT 'le-' || id, 'big', 'TEST', 'REWARD', -10, id FROM "Reward";
      INSERT INTO "Job" (id, "businessId", environment, type, status, payload, "runAt", "finishedAt", "createdAt", "updatedAt")
        SELECT 'job-' || i, 'big', 'TEST', 'EVENT_PROCESS', (CASE WHEN i % 100 = 0 THEN 'QUEUED' ELSE 'SUCCEEDED' END)::"JobStatus", jsonb_build_object('eventId', 'ev-' || i),
               now() - (i || ' seconds')::interval, CASE WHEN i % 100 = 0 THEN NULL ELSE now() - (i || ' seconds')::interval END, now(), now() FROM generate_series(1, ${n}) i;
      INSERT INTO "IdempotencyRecord" (id, "businessId", environment, key, route, "requestHash", "expiresAt")
        SELECT 'idem-' || i, 'big', 'TEST', 'k' || i, 'POST /track', 'h', now() + interval '1 day' - (i || ' seconds')::interval FROM generate_series(1, ${n}) i;
      ANALYZE;`);
    console.log(`# Hot-path query plans (PostgreSQL, ${n.toLocaleString("en")} rows per large table, seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
    for (const q of HOT) {
      const plan = (await c.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) ${q.sql}`)).rows.map((r) => r["QUERY PLAN"] as string);
      const seq = plan.some((l) => /Seq Scan on "(Reward|LedgerEntry|TrackedEvent|Participant|Referral|Job|IdempotencyRecord)"/.test(l));
      if (seq) seqScans++;
      console.log(`## ${q.name}${seq ? "  ← SEQUENTIAL SCAN" : ""}\n\`\`\`\n${plan.join("\n")}\n\`\`\`\n`);
    }
  } finally {
    await c.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
  if (seqScans) {
    console.error(`${seqScans} hot queries use a sequential scan on a large table`);
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
