// Per-key rate limit over real HTTP, on an app started with a tiny limit (2/s, bursts of 3).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app";
import { createKey, request, signUp } from "../support/http";

let app: RunningApp;
beforeAll(async () => {
  app = await startApp({ RATE_LIMIT_PER_SECOND: "2", RATE_LIMIT_BURST: "3" });
});
afterAll(async () => {
  await app?.stop();
});

describe("rate limit per API key", () => {
  it("answers 429 RATE_LIMITED with Retry-After and RateLimit headers once the burst is spent; other keys are unaffected", async () => {
    const owner = await signUp({ url: app.url });
    const a = await createKey(owner);
    const b = await createKey(owner);
    const results = [];
    for (let i = 0; i < 8; i++) results.push(await request(app.url, "POST", "/track", { eventName: "spam" }, { "x-api-key": a.secret }));
    const limited = results.filter((r) => r.status === 429);
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(3);
    expect(limited.length).toBeGreaterThan(0);
    const r = limited[0];
    expect(r.body).toEqual({ error: { code: "RATE_LIMITED", message: expect.any(String) } });
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(r.headers.get("ratelimit-remaining")).toBe("0");
    expect(r.headers.get("ratelimit")).toMatch(/remaining=0/);
    expect(r.headers.get("ratelimit-policy")).toContain("2;w=1");
    // Another key of the same business has its own budget.
    expect((await request(app.url, "POST", "/track", { eventName: "ok" }, { "x-api-key": b.secret })).status).toBe(200);
    // After Retry-After the key works again.
    await new Promise((res) => setTimeout(res, Number(r.headers.get("retry-after")) * 1000 + 100));
    expect((await request(app.url, "POST", "/track", { eventName: "again" }, { "x-api-key": a.secret })).status).toBe(200);
  });
});
