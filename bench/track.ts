// `npm run bench:track`: queued POST /track against the app's baseline route, with the
// requests' statements shared (server/db/coalesce.ts) and alone (REQUEST_COALESCING=0), and
// synchronous POST /track of an existing referred user (metadata.referredUserId of one of 50
// users referred before: a later purchase, decided by the rules core at once), side by side in
// one run: two web-only instances of the production build on one fresh PostgreSQL
// database, the three loads taking turns, TRACK_ROUNDS rounds of TRACK_SECONDS s at
// TRACK_CONNECTIONS connections. Every event is a full-path one (a referrer and a new referred
// user), as in bench:processing. At the end, every acknowledged event must be in the database
// with its job. Prints a markdown table (append it to bench/RESULTS.md); never run by the tests.
import autocannon from "autocannon";
import os from "node:os";
import { ensureBuild, ensurePrismaClient } from "../scripts/ensure.mjs";
import { call, signUpWithTestKey } from "./api";
import { startBenchApp, UNCAPPED_INTAKE, type BenchApp } from "./app";
import { freshDb } from "./drain";

const ROUNDS = Number(process.env.TRACK_ROUNDS ?? 4);
const SECONDS = Number(process.env.TRACK_SECONDS ?? 6);
const CONNECTIONS = Number(process.env.TRACK_CONNECTIONS ?? 50);
const fmt = (n: number, d = 0) => n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

let seq = 0;
let acknowledged = 0;

function load(url: string, p: string, headers: Record<string, string>, body: () => unknown, seconds: number, connections = CONNECTIONS, queued = true) {
  return new Promise<{ rps: number; p99: number; non2xx: number }>((resolve, reject) =>
    autocannon(
      {
        url: `${url}${p}`,
        connections,
        duration: seconds,
        requests: [{ method: "POST", setupRequest: (req) => ({ ...req, method: "POST", path: p, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body()) }) }],
      },
      (err, r) => {
        if (err) return reject(err);
        if (p === "/track" && queued) acknowledged += r["2xx"];
        resolve({ rps: r["2xx"] / (r.duration || seconds), p99: r.latency.p99, non2xx: r.non2xx + r.errors });
      },
    ),
  );
}

async function main() {
  ensurePrismaClient();
  ensureBuild();
  const d = await freshDb();
  const apps: BenchApp[] = [];
  try {
    const base = { DATABASE_URL: d.url, BENCH_ROUTES: "1", EMBEDDED_RUNNER: "0", ...UNCAPPED_INTAKE };
    const shared = await startBenchApp({ ...base, REQUEST_COALESCING: "1" });
    apps.push(shared);
    const alone = await startBenchApp({ ...base, REQUEST_COALESCING: "0" });
    apps.push(alone);
    const headers = { "x-api-key": await signUpWithTestKey(shared.url, "track") };
    const codes: string[] = [];
    for (let i = 0; i < 20; i++) codes.push(String((await call(shared.url, "POST", "/sdk/participants", { userId: `referrer-${i}` }, headers)).referralCode));
    const event = () => {
      const n = seq++;
      return { eventName: "purchase", referrer: codes[n % codes.length], metadata: { referredUserEmail: `t${process.pid}-${n}@bench.example` } };
    };
    // 50 referred users, applied at once (referredUserId); their later purchases are the synchronous load.
    for (let i = 0; i < 50; i++) await call(shared.url, "POST", "/sdk/referrals/apply", { referralCode: codes[i % codes.length], referredUserId: `known-${i}` }, headers);
    let repeat = 0;
    const later = () => ({ eventName: "repeat_purchase", metadata: { referredUserId: `known-${repeat++ % 50}` } });
    for (const app of apps) await load(app.url, "/track", headers, event, 2, 10);
    await load(shared.url, "/track", headers, later, 2, 10, false);
    await load(shared.url, "/bench/baseline", {}, event, 2, 10);
    const rows = { shared: [] as number[], alone: [] as number[], sync: [] as number[], baseline: [] as number[], p99s: [] as number[], p99a: [] as number[], p99y: [] as number[], bad: 0 };
    for (let r = 0; r < ROUNDS; r++) {
      const s = await load(shared.url, "/track", headers, event, SECONDS);
      const a = await load(alone.url, "/track", headers, event, SECONDS);
      const y = await load(shared.url, "/track", headers, later, SECONDS, CONNECTIONS, false);
      const b = await load(shared.url, "/bench/baseline", {}, event, SECONDS);
      rows.shared.push(s.rps);
      rows.alone.push(a.rps);
      rows.sync.push(y.rps);
      rows.p99y.push(y.p99);
      rows.baseline.push(b.rps);
      rows.p99s.push(s.p99);
      rows.p99a.push(a.p99);
      rows.bad += s.non2xx + a.non2xx + y.non2xx + b.non2xx;
      console.log(`round ${r + 1}: shared ${fmt(s.rps)} req/s, alone ${fmt(a.rps)}, sync existing referred user ${fmt(y.rps)}, baseline ${fmt(b.rps)}`);
    }
    const stored = (await d.c.query(`SELECT count(*)::int AS e, (SELECT count(*)::int FROM "Job" WHERE type = 'EVENT_PROCESS') AS j FROM "TrackedEvent" WHERE "eventName" <> 'repeat_purchase'`)).rows[0] as { e: number; j: number };
    const ratio = (xs: number[]) => xs.map((x, i) => x / rows.baseline[i]);
    const lines = [
      `### \`npm run bench:track\` — ${new Date().toISOString()}`,
      "",
      `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}; load average (1 / 5 / 15 min) at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(" / ")}. ` +
        `${ROUNDS} rounds of ${SECONDS} s per load at ${CONNECTIONS} connections, the four loads taking turns; two web-only instances of the production build on one PostgreSQL database.`,
      "",
      "| load | req/s per round | median | × baseline per round (median) | p99 ms (median) |",
      "|---|---|---:|---|---:|",
      `| queued POST /track, statements shared | ${rows.shared.map((x) => fmt(x)).join(", ")} | ${fmt(median(rows.shared))} | ${ratio(rows.shared).map((x) => fmt(x, 2)).join(", ")} (**${fmt(median(ratio(rows.shared)), 2)}**) | ${fmt(median(rows.p99s))} |`,
      `| queued POST /track, REQUEST_COALESCING=0 | ${rows.alone.map((x) => fmt(x)).join(", ")} | ${fmt(median(rows.alone))} | ${ratio(rows.alone).map((x) => fmt(x, 2)).join(", ")} (**${fmt(median(ratio(rows.alone)), 2)}**) | ${fmt(median(rows.p99a))} |`,
      `| synchronous POST /track, existing referred user | ${rows.sync.map((x) => fmt(x)).join(", ")} | ${fmt(median(rows.sync))} | ${ratio(rows.sync).map((x) => fmt(x, 2)).join(", ")} (**${fmt(median(ratio(rows.sync)), 2)}**) | ${fmt(median(rows.p99y))} |`,
      `| baseline route (parse body, constant JSON) | ${rows.baseline.map((x) => fmt(x)).join(", ")} | ${fmt(median(rows.baseline))} | 1 | |`,
      "",
      `Non-2xx answers and socket errors: ${rows.bad}. Acknowledged /track events (202, warm-up included): ${fmt(acknowledged)}; stored: ${fmt(stored.e)} events, ${fmt(stored.j)} EVENT_PROCESS jobs ` +
        `(a request still in flight when a round's clock stops is stored but not counted by the load generator, so stored ≥ acknowledged).`,
    ];
    console.log(`\n${lines.join("\n")}`);
    if (stored.e < acknowledged || stored.j !== stored.e) throw new Error("an acknowledged event or its job is missing");
  } finally {
    for (const app of apps) await app.stop();
    await d.drop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
