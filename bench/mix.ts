// The product's mix, drained by one `npm run worker` process on PostgreSQL, with and without
// webhook endpoints, and the wait of another business's event while an endpoint hangs.
//   npx tsx bench/mix.ts     MIX_EVENTS (20000), MIX_PRIOR (10000), MIX_HANG_MS (10000), BENCH_PG_URL
// The mix, per 10 events: 4 new referred users with a referrer, 4 later events of referred users
// already known (no referrer named), 1 event naming an existing pair (referrer and referred user),
// 1 event naming nobody. The known users and pairs are MIX_PRIOR referrals of history (bench/drain.ts
// seed). Events are written by queueEvents, as /track/batch writes them. With endpoints: two, on
// a local receiver that answers 200 at once; the drain is timed on the events' jobs, and the
// deliveries are counted when every message has been delivered.
// bench:processing runs it in the same run as its other parts.
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import type pg from "pg";
import { dbNow, freshDb, queue, seed } from "./drain";

const ROOT = path.resolve(import.meta.dirname, "..");
// The mix's webhook endpoints are a local receiver (loopback), which the service allows only so.
process.env.WEBHOOK_ALLOW_LOOPBACK = "1";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A local webhook receiver: answers 200, after `delayMs` for paths starting with /hang. */
async function startReceiver(delayMs = 0) {
  let received = 0;
  let hanging = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      if (!req.url?.startsWith("/hang")) return void res.writeHead(200).end("ok");
      hanging++;
      setTimeout(() => {
        hanging--;
        res.writeHead(200).end("ok");
      }, delayMs).unref();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => received,
    hanging: () => hanging,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function tsx(args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(path.join(ROOT, "node_modules", ".bin", "tsx"), args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: "inherit" });
    p.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
}

/** The mix's events (as /track/batch takes them), for `n` events over `prior` known referred users. */
function mixScript(n: number, prior: number, businessId: string, endpoints: string[]) {
  return `(async () => {
    const { queueEvents } = await import(${JSON.stringify(path.join(ROOT, "server/domain/tracking/queue-events.ts"))});
    const { createWebhook } = await import(${JSON.stringify(path.join(ROOT, "server/domain/webhooks/service.ts"))});
    const { db, closeDb } = await import(${JSON.stringify(path.join(ROOT, "server/db/client.ts"))});
    for (const url of ${JSON.stringify(endpoints)}) await createWebhook(${JSON.stringify(businessId)}, { url, environment: "TEST" });
    const scope = { businessId: ${JSON.stringify(businessId)}, environment: "TEST", apiKeyId: null };
    const run = ${JSON.stringify(Date.now())};
    const known = (k) => 1 + ((k * 7919) % ${Math.max(1, prior)});
    const event = (k) => {
      const slot = k % 10;
      if (slot < 4) return { eventName: "purchase", referrer: "REFCODE" + (k % 50), metadata: { referredUserEmail: "mix" + run + "-" + k + "@example.com" } };
      if (slot < 8) return { eventName: "purchase", metadata: { referredUserEmail: "old" + known(k) + "@example.com" } };
      if (slot < 9) { const i = known(k); return { eventName: "purchase", referrer: "REFCODE" + (i % 50), metadata: { referredUserEmail: "old" + i + "@example.com" } }; }
      return { eventName: "purchase" };
    };
    for (let i = 0; i < ${n}; i += 100) {
      const items = [];
      for (let k = i; k < Math.min(${n}, i + 100); k++) items.push({ input: event(k) });
      await queueEvents(db, scope, items);
    }
    await closeDb();
  })().catch((e) => { console.error(e); process.exit(1); });`;
}

function startWorker(databaseUrl: string): ChildProcess {
  return spawn(path.join(ROOT, "node_modules", ".bin", "tsx"), [path.join(ROOT, "scripts", "worker.ts")], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, JOB_POLL_MS: "50" },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

async function stopWorker(w: ChildProcess) {
  w.kill("SIGTERM");
  if (w.exitCode === null) await new Promise((r) => w.once("exit", r));
}

/** Waits until no job of these types is queued or running (or `capMs` passed); seconds from their first claim to their last finish. */
async function waitForJobs(c: pg.Client, since: string, types: string[], capMs = 600_000): Promise<{ seconds: number; complete: boolean }> {
  const until = Date.now() + capMs;
  let complete = false;
  while (Date.now() < until) {
    const r = await c.query(`SELECT EXISTS (SELECT 1 FROM "Job" WHERE type = ANY($1::"JobType"[]) AND status IN ('QUEUED', 'RUNNING')) AS busy`, [types]);
    if (!r.rows[0].busy) {
      complete = true;
      break;
    }
    await sleep(250);
  }
  const t = await c.query(`SELECT EXTRACT(EPOCH FROM max("finishedAt") - min("startedAt"))::float8 AS s FROM "Job" WHERE type::text = ANY($1) AND "startedAt" >= $2::timestamp`, [types, since]);
  return { seconds: Number(t.rows[0].s), complete };
}

interface MixResult {
  events: number;
  endpoints: number;
  seconds: number;
  rate: number;
  byStatus: Record<string, number>;
  messages: number;
  delivered: number;
  received: number;
  deliveriesSeconds: number | null;
  balanceMatches: boolean;
}

/** One drain of the mix by one worker, with `endpoints` webhook endpoints on a local receiver. */
export async function mixDrain(events: number, prior: number, endpoints: number): Promise<MixResult> {
  const d = await freshDb();
  const rx = await startReceiver();
  let worker: ChildProcess | undefined;
  try {
    await seed(d.c, prior);
    await tsx(
      ["--eval", mixScript(events, prior, "bench", Array.from({ length: endpoints }, (_, i) => `${rx.url}/endpoint-${i}`))],
      { DATABASE_URL: d.url },
    );
    await d.c.query("ANALYZE");
    const since = await dbNow(d.c);
    worker = startWorker(d.url);
    const drain = await waitForJobs(d.c, since, ["EVENT_PROCESS"]);
    const hooks = endpoints ? await waitForJobs(d.c, since, ["WEBHOOK_DELIVER"], 300_000) : null;
    await stopWorker(worker);
    worker = undefined;
    const statuses = (await d.c.query(`SELECT status::text AS s, count(*)::int AS n FROM "TrackedEvent" WHERE id NOT LIKE 'oev-%' GROUP BY 1`)).rows as { s: string; n: number }[];
    const m = (await d.c.query(`SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'DELIVERED')::int AS delivered FROM "WebhookMessage"`)).rows[0] as { n: number; delivered: number };
    const pool = (
      await d.c.query(`SELECT (SELECT "balanceWei"::text FROM "Pool" WHERE "businessId" = 'bench') AS balance, (SELECT SUM("amountWei")::text FROM "LedgerEntry" WHERE "businessId" = 'bench') AS ledger`)
    ).rows[0] as { balance: string; ledger: string };
    return {
      events,
      endpoints,
      seconds: drain.seconds,
      rate: events / drain.seconds,
      byStatus: Object.fromEntries(statuses.map((r) => [r.s, r.n])),
      messages: m.n,
      delivered: m.delivered,
      received: rx.received(),
      deliveriesSeconds: hooks?.complete ? hooks.seconds : null,
      balanceMatches: pool.balance === pool.ledger,
    };
  } finally {
    if (worker) await stopWorker(worker);
    await rx.close();
    await d.drop();
  }
}

/**
 * One business's endpoint answers after `hangMs`; once the worker has one of its deliveries in
 * hand, another business's event is queued: the seconds from its queueing to its job's finish.
 */
/** A second business ('other', funded, a referrer OTHERREF) beside the bench business. */
async function addOtherBusiness(c: pg.Client) {
  await c.query(`
    INSERT INTO "Business" (id, name, "ownerId", "updatedAt") VALUES ('other', 'Other', 'o-other', now());
    INSERT INTO "BusinessConfig" ("businessId", "referralRewardWei", "bonusWei", "updatedAt") VALUES ('other', 1000, 500, now());
    INSERT INTO "ReferralSettings" ("businessId", "updatedAt") VALUES ('other', now());
    INSERT INTO "Participant" (id, "businessId", environment, "externalId", "referralCode", "updatedAt") VALUES ('other-ref', 'other', 'TEST', 'other-ref', 'OTHERREF', now());
    INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei") VALUES ('other-fund', 'other', 'TEST', 'FUNDING', 1000000000000000);`);
}

/** The other business's event and its job 'other-job', as queueEvents writes them (one statement). */
async function queueOtherEvent(c: pg.Client) {
  await c.query(`
    WITH e AS (
      INSERT INTO "TrackedEvent" (id, "businessId", environment, "eventName", referrer, metadata, status, "createdAt", "updatedAt")
      VALUES ('other-event', 'other', 'TEST', 'purchase', 'OTHERREF', '{"referredUserEmail":"someone@example.com"}', 'QUEUED', (now() AT TIME ZONE 'UTC'), (now() AT TIME ZONE 'UTC'))
      RETURNING id, "createdAt")
    INSERT INTO "Job" (id, "businessId", environment, type, status, payload, "runAt", "createdAt", "updatedAt")
    SELECT 'other-job', 'other', 'TEST', 'EVENT_PROCESS', 'QUEUED', jsonb_build_object('eventId', id), "createdAt", "createdAt", "createdAt" FROM e`);
}

export async function otherBusinessWhileHanging(hangMs: number): Promise<{ seconds: number; hangingWhenDone: number; status: string }> {
  const d = await freshDb();
  const rx = await startReceiver(hangMs);
  let worker: ChildProcess | undefined;
  try {
    await seed(d.c, 0);
    // The slow business: the bench business, its endpoint hanging, 200 events (and their messages) queued.
    await tsx(["--eval", mixScript(200, 1, "bench", [`${rx.url}/hang`])], { DATABASE_URL: d.url });
    await addOtherBusiness(d.c);
    worker = startWorker(d.url);
    const until = Date.now() + 120_000;
    while (rx.hanging() === 0) {
      if (Date.now() > until) throw new Error("no delivery reached the hanging endpoint");
      await sleep(20);
    }
    await queueOtherEvent(d.c);
    for (;;) {
      const r = await d.c.query(`SELECT status::text AS status, EXTRACT(EPOCH FROM "finishedAt" - "createdAt")::float8 AS s FROM "Job" WHERE id = 'other-job'`);
      const { status, s } = r.rows[0] as { status: string; s: number | null };
      if (status === "SUCCEEDED" || status === "FAILED") return { seconds: Number(s), hangingWhenDone: rx.hanging(), status };
      if (Date.now() > until + hangMs * 3) return { seconds: Number.POSITIVE_INFINITY, hangingWhenDone: rx.hanging(), status };
      await sleep(20);
    }
  } finally {
    if (worker) await stopWorker(worker);
    await rx.close();
    await d.drop();
  }
}

/**
 * Another business's queued event while one business has a backlog of `backlog` full-path events
 * being drained by one worker: seconds from queued to done, and how much of the backlog was still
 * queued then (claims take turns among businesses: server/jobs/claim.ts).
 */
export async function otherBusinessBehindBacklog(backlog: number): Promise<{ seconds: number; backlogLeft: number; status: string }> {
  const d = await freshDb();
  let worker: ChildProcess | undefined;
  try {
    await seed(d.c, 0);
    await queue(d.url, backlog);
    await addOtherBusiness(d.c);
    worker = startWorker(d.url);
    const until = Date.now() + 120_000;
    // The drain is under way (a few batches done) when the other business's event arrives.
    while (Number((await d.c.query(`SELECT count(*)::int AS n FROM "Job" WHERE status = 'SUCCEEDED'`)).rows[0].n) < 3000) {
      if (Date.now() > until) throw new Error("the backlog's drain did not start");
      await sleep(20);
    }
    await queueOtherEvent(d.c);
    for (;;) {
      const r = await d.c.query(
        `SELECT status::text AS status, EXTRACT(EPOCH FROM "finishedAt" - "createdAt")::float8 AS s,
                (SELECT count(*)::int FROM "Job" WHERE "businessId" = 'bench' AND status = 'QUEUED') AS left
           FROM "Job" WHERE id = 'other-job'`,
      );
      const { status, s, left } = r.rows[0] as { status: string; s: number | null; left: number };
      if (status === "SUCCEEDED" || status === "FAILED") return { seconds: Number(s), backlogLeft: left, status };
      if (Date.now() > until + 600_000) return { seconds: Number.POSITIVE_INFINITY, backlogLeft: left, status };
      await sleep(20);
    }
  } finally {
    if (worker) await stopWorker(worker);
    await d.drop();
  }
}

async function main() {
  const events = Number(process.env.MIX_EVENTS ?? 20_000);
  const prior = Number(process.env.MIX_PRIOR ?? 10_000);
  const hangMs = Number(process.env.MIX_HANG_MS ?? 10_000);
  const two = await mixDrain(events, prior, 2);
  console.log(JSON.stringify(two));
  const none = await mixDrain(events, prior, 0);
  console.log(JSON.stringify(none));
  const hang = await otherBusinessWhileHanging(hangMs);
  console.log(JSON.stringify(hang));
  const behind = await otherBusinessBehindBacklog(Number(process.env.MIX_BACKLOG ?? 50_000));
  console.log(JSON.stringify(behind));
  console.log(
    `\nmix with two endpoints ${Math.round(two.rate)} events/s, without ${Math.round(none.rate)} events/s (${(two.rate / none.rate).toFixed(2)}×); another business's event while an endpoint hangs: ${hang.seconds.toFixed(2)} s; behind another's backlog: ${behind.seconds.toFixed(2)} s (${behind.backlogLeft} of the backlog still queued)`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}

// ── Commissions (issue 27): later purchases of known referred users with amounts ─────────────

/** The commission workload's events: later purchases of known referred users, half in USD, half in ETH. */
function commissionScript(n: number, prior: number, endpoint: string | null) {
  return `(async () => {
    const { queueEvents } = await import(${JSON.stringify(path.join(ROOT, "server/domain/tracking/queue-events.ts"))});
    const { createWebhook } = await import(${JSON.stringify(path.join(ROOT, "server/domain/webhooks/service.ts"))});
    const { createRule } = await import(${JSON.stringify(path.join(ROOT, "server/domain/commissions/service.ts"))});
    const { updatePricing } = await import(${JSON.stringify(path.join(ROOT, "server/domain/commissions/pricing.ts"))});
    const { db, closeDb } = await import(${JSON.stringify(path.join(ROOT, "server/db/client.ts"))});
    if (${JSON.stringify(endpoint)}) await createWebhook("bench", { url: ${JSON.stringify(endpoint)}, environment: "TEST" });
    await updatePricing("bench", { environment: "TEST", source: "FIXED", rates: { USD: "3000" } });
    const rule = (o) => createRule("bench", { environment: "TEST", eventName: "purchase", ...o });
    await rule({ name: "10 % to the referrer", recipient: "REFERRER", type: "PERCENT", percent: "10" });
    await rule({ name: "2.5 % to the customer", recipient: "REFERRED", type: "PERCENT", percent: "2.5" });
    await rule({ name: "1 USD per purchase", recipient: "REFERRER", type: "FIXED", amount: "1", currency: "USD" });
    const scope = { businessId: "bench", environment: "TEST", apiKeyId: null };
    const known = (k) => 1 + ((k * 7919) % ${Math.max(1, prior)});
    const event = (k) => k % 2
      ? { eventName: "purchase", amount: (1 + (k % 500)) + "." + String(k % 100).padStart(2, "0"), currency: "USD", metadata: { referredUserEmail: "old" + known(k) + "@example.com" } }
      : { eventName: "purchase", amount: "0." + String(1 + (k * 104729) % 999999999).padStart(9, "0"), currency: "ETH", metadata: { referredUserEmail: "old" + known(k) + "@example.com" } };
    for (let i = 0; i < ${n}; i += 100) {
      const items = [];
      for (let k = i; k < Math.min(${n}, i + 100); k++) items.push({ input: event(k) });
      await queueEvents(db, scope, items);
    }
    await closeDb();
  })().catch((e) => { console.error(e); process.exit(1); });`;
}

export interface CommissionResult {
  events: number;
  seconds: number;
  rate: number;
  byStatus: Record<string, number>;
  rewards: number;
  /** Sum of the commission rewards' wei, and the same sum computed by SQL from the events (each rule's share, rounded down per reward). */
  paidWei: string;
  expectedWei: string;
  /** No wei lost or invented: paid = expected, and the pool balance equals its ledger. */
  exact: boolean;
  messages: number;
}

/**
 * Drains `events` later purchases of `prior` known referred users (REWARDED referrals) with USD and
 * ETH amounts, under two PERCENT rules and one FIXED rule, with one webhook endpoint, by one worker.
 * Caps are off and the pool is ample, so each reward is its rule's share; SQL recomputes the
 * shares from the stored events (integer division: rounded down per reward) and compares.
 */
export async function commissionDrain(events: number, prior: number, endpoint = true): Promise<CommissionResult> {
  const d = await freshDb();
  const rx = await startReceiver();
  let worker: ChildProcess | undefined;
  try {
    await seed(d.c, prior);
    await d.c.query(`INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei") VALUES ('fund-commissions', 'bench', 'TEST', 'FUNDING', 1000000000000000000000000)`);
    await tsx(["--eval", commissionScript(events, prior, endpoint ? `${rx.url}/endpoint` : null)], { DATABASE_URL: d.url });
    await d.c.query("ANALYZE");
    const since = await dbNow(d.c);
    worker = startWorker(d.url);
    const drain = await waitForJobs(d.c, since, ["EVENT_PROCESS"]);
    await stopWorker(worker);
    worker = undefined;
    const statuses = (await d.c.query(`SELECT status::text AS s, count(*)::int AS n FROM "TrackedEvent" WHERE id NOT LIKE 'oev-%' GROUP BY 1`)).rows as { s: string; n: number }[];
    // Each rule's share per event, in integers: USD amounts in cents at 3000 USD/ETH, ETH amounts in wei.
    const sums = (
      await d.c.query(`
        WITH ev AS (SELECT amount, currency FROM "TrackedEvent" WHERE id NOT LIKE 'oev-%' AND amount IS NOT NULL AND "referralId" IS NOT NULL AND status = 'PROCESSED')
        SELECT (SELECT COALESCE(SUM("amountWei"), 0)::text FROM "Reward" WHERE kind = 'COMMISSION') AS paid,
               (SELECT count(*)::int FROM "Reward" WHERE kind = 'COMMISSION') AS n,
               (SELECT COALESCE(SUM(CASE WHEN currency = 'ETH'
                        THEN div(amount * 1000000000000000000 * 1000, 10000) + div(amount * 1000000000000000000 * 250, 10000)
                        ELSE div(amount * 100 * 1000 * 1000000000000000000, 3000000000::numeric) + div(amount * 100 * 250 * 1000000000000000000, 3000000000::numeric) END
                      + div(1000000000000000000::numeric, 3000)), 0)::text FROM ev) AS expected,
               (SELECT "balanceWei"::text FROM "Pool" WHERE "businessId" = 'bench') AS balance,
               (SELECT SUM("amountWei")::text FROM "LedgerEntry" WHERE "businessId" = 'bench') AS ledger,
               (SELECT count(*)::int FROM "WebhookMessage") AS messages`)
    ).rows[0] as { paid: string; n: number; expected: string; balance: string; ledger: string; messages: number };
    return {
      events,
      seconds: drain.seconds,
      rate: events / drain.seconds,
      byStatus: Object.fromEntries(statuses.map((r) => [r.s, r.n])),
      rewards: sums.n,
      paidWei: sums.paid,
      expectedWei: sums.expected,
      exact: sums.paid === sums.expected && sums.balance === sums.ledger,
      messages: sums.messages,
    };
  } finally {
    if (worker) await stopWorker(worker);
    await rx.close();
    await d.drop();
  }
}
