// REDIS_URL moves the per-key rate-limit counters to Redis: the counters live there, and (on
// PostgreSQL, where two app instances can share one database) two instances share one budget
// per key. If Redis goes away, the in-memory limiter answers instead (no 500s).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startApp, type RunningApp } from "../support/app";
import { createPostgresDatabase, testDbKind } from "../support/database";
import { createKey, request, signUp } from "../support/http";

// Needs a local redis-server binary (the app itself never requires Redis).
const hasRedis = spawnSync("redis-server", ["--version"]).status === 0;
// PGlite is single-process: a second instance on the same data is only possible on PostgreSQL.
const shared = testDbKind() === "postgres";
let redis: ChildProcess;
let redisPort = 0;
let a: RunningApp;
let b: RunningApp;
let dropDb: (() => Promise<void>) | undefined;

beforeAll(async () => {
  if (!hasRedis) return;
  redisPort = await freePort();
  redis = spawn("redis-server", ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  await new Promise((r) => setTimeout(r, 300));
  const db = shared ? await createPostgresDatabase("rts_redis") : undefined;
  dropDb = db?.drop;
  const env = { REDIS_URL: `redis://127.0.0.1:${redisPort}`, RATE_LIMIT_PER_SECOND: "2", RATE_LIMIT_BURST: "3", ...(db ? { DATABASE_URL: db.url } : {}) };
  a = await startApp(env);
  b = shared ? await startApp(env) : a;
});

afterAll(async () => {
  await a?.stop();
  if (b !== a) await b?.stop();
  if (redis && redis.exitCode === null) redis.kill("SIGTERM");
  await dropDb?.();
});

describe.skipIf(!hasRedis)("rate limit with REDIS_URL", () => {
  it("counts in Redis (shared by instances); without Redis the memory limiter takes over", async () => {
    const owner = await signUp({ url: a.url });
    const { secret, apiKeyId } = await createKey(owner);
    // Concurrent, alternating between the instances; the budget is 3 at once plus 2 per second.
    const t0 = Date.now();
    const statuses = (
      await Promise.all(Array.from({ length: 10 }, (_, i) => request((i % 2 === 0 ? a : b).url, "POST", "/track", { eventName: "shared" }, { "x-api-key": secret })))
    ).map((r) => r.status);
    const elapsedS = Math.ceil((Date.now() - t0) / 1000);
    const ok = statuses.filter((s) => s === 200).length;
    expect(ok, statuses.join(",")).toBeGreaterThanOrEqual(3);
    // One shared budget: within ~1 s at most 3 + 2 pass (two separate in-memory budgets: 6 or more).
    expect(ok, `${statuses.join(",")} in ${elapsedS}s`).toBeLessThanOrEqual(3 + 2 * elapsedS);
    expect(statuses.filter((s) => s === 429).length, statuses.join(",")).toBe(10 - ok);
    const keys = spawnSync("redis-cli", ["-p", String(redisPort), "--scan", "--pattern", `rts:sdk*${apiKeyId}*`], { encoding: "utf8" }).stdout.trim().split("\n").filter(Boolean);
    expect(keys.length).toBeGreaterThan(0);

    redis.kill("SIGKILL");
    await new Promise((r) => setTimeout(r, 300));
    const { secret: other } = await createKey(owner);
    const r = await request(a.url, "POST", "/track", { eventName: "no-redis" }, { "x-api-key": other });
    expect(r.status).toBe(200);
    expect(r.headers.get("ratelimit-limit")).toBe("2");
  });
});
