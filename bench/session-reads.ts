// `npm run bench:reads`: signed-in business reads from many users under a garbage-cookie flood
// (hardening issue, finding 1: "business reads from many signed-in users at a few hundred
// requests per second must not produce a single 503"). Against the production build with Better
// Auth's own rate limit ON (AUTH_RATE_LIMIT=1), as deployed:
//   1. READS_USERS businesses sign up through the real API (POST /api/auth/sign-up/email); the app
//      trusts 127.0.0.1 as its reverse proxy (TRUSTED_PROXIES) and each user comes from an address
//      of its own (X-Forwarded-For), so the sign-up limit (3 per 10 s per client) applies per user;
//   2. for READS_DURATION seconds, at READS_RATE requests/s in total, every user reads: REST
//      GET /business/me, /business/events, /business/rewards (Bearer token), and tRPC me.get and
//      events.list (the session cookie, as the dashboard sends it);
//   3. at the same time, FLOOD_RATE requests/s of GET /business/me with a garbage session cookie,
//      each from another address.
// Reports the achieved rate, p50/p99 latency and the answers by status for both streams; exits
// non-zero when a real user's read is answered with a 5xx or a garbage cookie with anything but
// 401. Database: a private PGlite (default) or, with TEST_DB=postgres, a fresh database on
// TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres), as the HTTP tests choose.
//
//   READS_USERS 20 · READS_RATE 300 · READS_CONNECTIONS 40 · READS_DURATION 25 · FLOOD_RATE 50
//
// Never run by the tests or CI.
import autocannon from "autocannon";
import os from "node:os";
import { ensureBuild, ensurePrismaClient } from "../scripts/ensure.mjs";
import { startBenchApp, type BenchApp } from "./app";

const USERS = Number(process.env.READS_USERS ?? 20);
const RATE = Number(process.env.READS_RATE ?? 300);
const CONNECTIONS = Number(process.env.READS_CONNECTIONS ?? 40);
const DURATION = Number(process.env.READS_DURATION ?? 25);
const FLOOD_RATE = Number(process.env.FLOOD_RATE ?? 50);

interface User {
  ip: string;
  token: string;
  cookie: string;
}

interface Read {
  kind: "REST" | "tRPC";
  path: string;
  headers: Record<string, string>;
}

// Reads that touch only the database (GET /business/balance also asks the chain for the deposit
// address's balance, which would measure the chain RPC instead).
const REST_PATHS = ["/business/me", "/business/events?limit=20", "/business/rewards?limit=20"];
const TRPC_PATHS = [`/api/trpc/me.get?input=${encodeURIComponent("{}")}`, `/api/trpc/events.list?input=${encodeURIComponent(JSON.stringify({ limit: 20 }))}`];

async function signUpUser(url: string, i: number): Promise<User> {
  const ip = `198.51.100.${i + 1}`;
  const res = await fetch(`${url}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url, "x-forwarded-for": ip },
    body: JSON.stringify({ email: `reads-${i}-${Date.now()}@example.com`, password: "correct-horse-battery", name: `Reader ${i}`, businessName: `Reads Co ${i}` }),
  });
  const body = (await res.json().catch(() => ({}))) as { token?: string };
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .find((c) => c.includes("session_token="));
  if (!res.ok || !body.token || !cookie) throw new Error(`sign-up ${i} failed: ${res.status} ${JSON.stringify(body)}`);
  return { ip, token: body.token, cookie };
}

function readsOf(users: User[]): Read[] {
  const reads: Read[] = [];
  for (const u of users) {
    for (const p of REST_PATHS) reads.push({ kind: "REST", path: p, headers: { authorization: `Bearer ${u.token}`, "x-forwarded-for": u.ip } });
    for (const p of TRPC_PATHS) reads.push({ kind: "tRPC", path: p, headers: { cookie: u.cookie, "x-forwarded-for": u.ip } });
  }
  return reads;
}

interface Stream {
  name: string;
  seconds: number;
  total: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  max: number;
  /** status → count, per kind of read. */
  byKind: Record<string, Record<string, number>>;
  errors: number;
  /** First body of each 5xx status seen. */
  samples: Record<string, string>;
}

/** autocannon at a fixed overall rate; `next` picks each request (its kind names it in the counts). */
function drive(url: string, name: string, connections: number, rate: number, next: () => Read): Promise<Stream> {
  const byKind: Record<string, Record<string, number>> = {};
  const samples: Record<string, string> = {};
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections,
        overallRate: rate,
        duration: DURATION,
        requests: [
          {
            method: "GET",
            setupRequest: (req, context) => {
              const r = next();
              context.kind = r.kind;
              return { ...req, method: "GET", path: r.path, headers: { ...req.headers, ...r.headers } };
            },
            onResponse: (status, body, context) => {
              const kind = String(context.kind);
              const counts = (byKind[kind] ??= {});
              counts[status] = (counts[status] ?? 0) + 1;
              if (status >= 500 && !(status in samples)) samples[status] = String(body).slice(0, 300);
            },
          },
        ],
      },
      (err, r) => {
        if (err) return reject(err);
        const total = Object.values(byKind).reduce((n, c) => n + Object.values(c).reduce((a, b) => a + b, 0), 0);
        const seconds = r.duration || DURATION;
        resolve({ name, seconds, total, reqPerSec: total / seconds, p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max, byKind, errors: r.errors + r.timeouts, samples });
      },
    );
  });
}

const fmtCounts = (c: Record<string, number>) =>
  Object.entries(c)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([s, n]) => `${s}: ${n.toLocaleString("en-US")}`)
    .join(", ");

async function main() {
  const loadBefore = os.loadavg();
  ensurePrismaClient();
  ensureBuild();
  const db = process.env.TEST_DB === "postgres" ? "PostgreSQL" : "PGlite";
  // Better Auth's rate limit on, as in production; the loopback is the app's trusted proxy.
  const app: BenchApp = await startBenchApp({ AUTH_RATE_LIMIT: "1", TRUSTED_PROXIES: "127.0.0.1", EMBEDDED_RUNNER: "0", PAYOUT_INTERVAL_MS: "0" });
  try {
    const users: User[] = [];
    for (let i = 0; i < USERS; i++) users.push(await signUpUser(app.url, i));
    const reads = readsOf(users);
    // Every read answers 200 before the load (a wrong path would only measure 4xx).
    for (const r of reads.slice(0, REST_PATHS.length + TRPC_PATHS.length)) {
      const res = await fetch(`${app.url}${r.path}`, { headers: r.headers });
      if (res.status !== 200) throw new Error(`${r.kind} ${r.path} → ${res.status} ${await res.text()}`);
    }
    let i = 0;
    let g = 0;
    console.log(`▸ ${USERS} users, ${reads.length} distinct reads; ${RATE} req/s for ${DURATION} s (${CONNECTIONS} connections) + garbage-cookie flood ${FLOOD_RATE} req/s on ${db}…`);
    const [real, flood] = await Promise.all([
      drive(app.url, "signed-in reads", CONNECTIONS, RATE, () => reads[i++ % reads.length]),
      drive(app.url, "garbage-cookie flood", Math.max(1, Math.min(10, FLOOD_RATE)), FLOOD_RATE, () => {
        g++;
        return { kind: "REST", path: "/business/me", headers: { cookie: `better-auth.session_token=garbage-${g}.sig`, "x-forwarded-for": `203.0.113.${(g % 250) + 1}` } };
      }),
    ]);
    const loadAfter = os.loadavg();
    const lines: string[] = [];
    lines.push(`${new Date().toISOString()} · ${db} · ${os.cpus().length} cores · load average (1/5/15 min) before ${loadBefore.map((l) => l.toFixed(1)).join(" / ")}, after ${loadAfter.map((l) => l.toFixed(1)).join(" / ")}`);
    lines.push(`READS_USERS=${USERS} READS_RATE=${RATE} READS_CONNECTIONS=${CONNECTIONS} READS_DURATION=${DURATION} FLOOD_RATE=${FLOOD_RATE}`);
    lines.push("");
    lines.push("| stream | target req/s | achieved req/s | requests | p50 ms | p99 ms | max ms | answers by status | socket errors |");
    lines.push("|---|---:|---:|---:|---:|---:|---:|---|---:|");
    for (const [s, target] of [
      [real, RATE],
      [flood, FLOOD_RATE],
    ] as const) {
      const kinds = Object.entries(s.byKind).map(([k, c]) => `${s === flood ? "" : `${k} `}${fmtCounts(c)}`);
      lines.push(`| ${s.name} | ${target} | ${s.reqPerSec.toFixed(0)} | ${s.total.toLocaleString("en-US")} | ${s.p50} | ${s.p99} | ${s.max} | ${kinds.join("; ")} | ${s.errors} |`);
    }
    for (const s of [real, flood]) for (const [status, body] of Object.entries(s.samples)) lines.push(`\n${s.name}, first ${status}: ${body}`);
    console.log(lines.join("\n"));
    const realBad = Object.values(real.byKind).reduce((n, c) => n + Object.entries(c).reduce((a, [st, k]) => a + (Number(st) >= 500 ? k : 0), 0), 0);
    const floodBad = Object.values(flood.byKind).reduce((n, c) => n + Object.entries(c).reduce((a, [st, k]) => a + (st === "401" ? 0 : k), 0), 0);
    if (realBad > 0 || floodBad > 0 || real.errors > 0) {
      console.error(`✖ ${realBad} signed-in reads answered 5xx, ${floodBad} garbage-cookie requests answered other than 401, ${real.errors} socket errors on signed-in reads`);
      process.exitCode = 1;
    } else {
      console.log("✔ no 5xx for signed-in users; every garbage cookie 401");
    }
  } finally {
    await app.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
