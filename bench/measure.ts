// What the HTTP benchmarks share (bench/run.ts, bench/links.ts): a fresh migrated PostgreSQL
// database per run, one autocannon measurement of a route, and the median of several rounds.
import autocannon from "autocannon";
import pg from "pg";
import { applyMigrations } from "../server/db/migrate";

const ADMIN_URL = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface Scenario {
  name: string;
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  /** Events per request (batch) for the events/s column. */
  events?: number;
  auth: boolean;
  /** Headers of its own (e.g. a portal bearer token). */
  headers?: Record<string, string>;
  /** A redirect route: 3xx answers are its successes. */
  redirect?: boolean;
}

export interface Measured {
  scenario: Scenario;
  connections: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  /** Autocannon reports no p95; p97.5 bounds it from above. */
  p97_5: number;
  ok: number;
  non2xx: number;
  errors: number;
  /** Lowest and highest req/s over the rounds. */
  min?: number;
  max?: number;
}

export async function createDatabase() {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const name = `rts_bench_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  const url = u.toString();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await applyMigrations({ query: (s, p) => client.query(s, p), exec: async (s) => void (await client.query(s)) });
  const version = (await client.query("SHOW server_version")).rows[0].server_version as string;
  await client.end();
  return {
    url,
    version,
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await admin.end();
    },
  };
}

export function run(url: string, s: Scenario, connections: number, duration: number, secret: string): Promise<Measured> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${url}${s.path}`,
        method: s.method,
        connections,
        duration,
        headers: { "content-type": "application/json", ...(s.auth ? { "x-api-key": secret } : {}), ...s.headers },
        body: s.body === undefined ? undefined : JSON.stringify(s.body),
      },
      (err, r) => {
        if (err) return reject(err);
        const ok = r["2xx"] + (s.redirect ? r["3xx"] : 0);
        const non2xx = r.non2xx - (s.redirect ? r["3xx"] : 0);
        resolve({ scenario: s, connections, reqPerSec: ok / (r.duration || duration), p50: r.latency.p50, p99: r.latency.p99, p97_5: r.latency.p97_5, ok, non2xx, errors: r.errors + r.timeouts });
      },
    );
  });
}

/** The round with the median throughput; its range is kept for the report. */
export function median(rounds: Measured[]): Measured {
  const sorted = [...rounds].sort((a, b) => a.reqPerSec - b.reqPerSec);
  const m = sorted[Math.floor((sorted.length - 1) / 2)];
  return { ...m, min: sorted[0].reqPerSec, max: sorted[sorted.length - 1].reqPerSec };
}

export const fmt = (n: number, d = 0) => n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });


/** Sequential requests (one at a time, after a warm-up): exact p50 / p95 / p99 of one route, in ms. */
export async function sequential(url: string, init: RequestInit, n: number, ok = (status: number) => status < 300) {
  const once = async () => {
    const t0 = performance.now();
    const res = await fetch(url, { ...init, redirect: "manual" });
    await res.arrayBuffer();
    if (!ok(res.status)) throw new Error(`${url} answered ${res.status}`);
    return performance.now() - t0;
  };
  for (let i = 0; i < 20; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(await once());
  times.sort((a, b) => a - b);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)];
  return { p50: pct(50), p95: pct(95), p99: pct(99), max: times[times.length - 1] };
}
