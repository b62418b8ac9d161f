// Issue 25 over HTTP (the real build): fair intake (a flood of batches leaves /api/health and
// other businesses answering; batches charged per event and bounded per key) and strict inputs
// (booleans, numbers, non-object bodies, webhook destinations, test sends, /api/auth errors,
// allowed origins, the participants email fallback).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app";
import { createKey, request, sdk, signUp, type Owner } from "../support/http";
import { baseUrl } from "../support/http";

describe("fair intake", () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ RATE_LIMIT_PER_SECOND: "50", RATE_LIMIT_BURST: "100" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("a batch of 100 costs 100: nothing is left, a second batch at once is 429 with Retry-After", async () => {
    const owner = await signUp({ url: app.url });
    const { secret } = await createKey(owner);
    const events = Array.from({ length: 100 }, (_, i) => ({ eventName: "signup", metadata: { referredUserEmail: `u${i}@example.com` } }));
    // Two batches at once: both are charged as they arrive, before either is written (a batch is
    // charged to a window of 10 s; sent one after the other, a slow first answer would outlast it).
    const answers = await Promise.all([0, 1].map(() => request(app.url, "POST", "/track/batch", { events }, { "x-api-key": secret })));
    const batch = answers.find((a) => a.status === 200);
    const again = answers.find((a) => a.status !== 200);
    expect(batch, answers.map((a) => a.status).join(",")).toBeDefined();
    // Charged 100 (a request would leave 49 of the 50 per second): nothing is left.
    expect(batch!.headers.get("ratelimit-remaining")).toBe("0");
    // The other batch does not fit what is left of the burst.
    expect(again!.status).toBe(429);
    expect(again!.body.error.code).toBe("RATE_LIMITED");
    expect(Number(again!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("while a business floods batches, /api/health and another business answer; extra batches of one key are 429", { timeout: 240_000 }, async () => {
    const flooder = await signUp({ url: app.url });
    expect((await flooder.call("PATCH", "/business/config/general", { environment: "TEST", eventProcessing: "SYNC" })).status).toBe(200);
    const keys = await Promise.all(Array.from({ length: 4 }, () => createKey(flooder)));
    const other = await signUp({ url: app.url });
    const events = (k: number) => Array.from({ length: 100 }, (_, i) => ({ eventName: "purchase", metadata: { campaign: `c${k}-${i}` } }));
    let settled = 0;
    const flood = [...keys, keys[0], keys[0]].map((k, i) => request(app.url, "POST", "/track/batch", { events: events(i) }, { "x-api-key": k.secret }).finally(() => settled++));
    await new Promise((r) => setTimeout(r, 300));
    const health = await request(app.url, "GET", "/api/health");
    const read = await other.call("GET", "/business/me");
    const settledAtReads = settled;
    const answers = await Promise.all(flood);
    expect(health.status).toBe(200);
    expect(read.status).toBe(200);
    // Answered while batches were still being written, not after the flood.
    expect(settledAtReads).toBeLessThan(answers.length);
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 429).length, statuses.join(",")).toBeGreaterThan(0);
    for (const a of answers.filter((x) => x.status === 429)) expect(a.body.error.code).toBe("RATE_LIMITED");
    for (const a of answers.filter((x) => x.status === 200)) expect(a.body).toMatchObject({ accepted: 100, failed: 0 });
  });
});

describe("strict inputs", () => {
  let owner: Owner;
  let webhookId = "";
  beforeAll(async () => {
    owner = await signUp();
    const w = await owner.call("POST", "/business/webhooks", { url: "https://hooks.example.com/x", environment: "TEST" });
    expect(w.status).toBe(200);
    webhookId = w.body.webhookId;
  });
  const raw = (method: string, path: string, text: string) => request(baseUrl(), method, path, text, { "content-type": "application/json", authorization: `Bearer ${owner.token}` });

  it('booleans and numbers: "false", null, "" and [7] are 400 VALIDATION_ERROR; a top-level [] body is 400', async () => {
    for (const v of ['"false"', "null", '""', "[true]", "0"]) {
      const r = await raw("PATCH", `/business/webhooks/${webhookId}`, `{"enabled":${v}}`);
      expect(r.status, v).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
    for (const v of ["null", '""', "[7]", '"7"', "true"]) {
      expect((await raw("PATCH", "/business/config/spend", `{"payoutHoldDays":${v}}`)).status, `payoutHoldDays ${v}`).toBe(400);
      expect((await raw("POST", `/business/webhooks/${webhookId}/rotate-secret`, `{"overlapSeconds":${v}}`)).status, `overlapSeconds ${v}`).toBe(400);
    }
    const before = (await owner.call("GET", `/business/webhooks/${webhookId}`)).body.secretPrefix;
    for (const text of ["[]", '"x"', "7", "null"]) {
      const r = await raw("POST", `/business/webhooks/${webhookId}/rotate-secret`, text);
      expect(r.status, text).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
    expect((await owner.call("GET", `/business/webhooks/${webhookId}`)).body.secretPrefix).toBe(before);
    expect((await raw("PATCH", `/business/webhooks/${webhookId}`, '{"enabled":false}')).body.enabled).toBe(false);
  });

  it("webhook destinations: TEST follows LIVE's address rules except loopback; ::/96 and trailing dots refused", async () => {
    for (const url of ["http://10.0.0.1/x", "http://169.254.169.254/x", "http://100.64.0.1/x", "http://[::7f00:1]/x", "http://localhost./x"]) {
      const r = await owner.call("POST", "/business/webhooks", { url, environment: "TEST" });
      expect(r.status, url).toBe(400);
    }
    for (const url of ["https://[::7f00:1]/x", "https://localhost./x", "https://hooks.example.com./x"]) expect((await owner.call("POST", "/business/webhooks", { url, environment: "LIVE" })).status, url).toBe(400);
    const local = await owner.call("POST", "/business/webhooks", { url: "http://127.0.0.1:9/x", environment: "TEST" });
    expect(local.status).toBe(200);
  });

  it("webhook test sends are rate-limited (429 + Retry-After)", async () => {
    const statuses: number[] = [];
    let limited: Headers | undefined;
    for (let i = 0; i < 12; i++) {
      const r = await owner.call("POST", `/business/webhooks/${webhookId}/test`, {});
      statuses.push(r.status);
      if (r.status === 429) limited = r.headers;
    }
    expect(statuses.filter((s) => s === 202 || s === 200).length).toBe(10);
    expect(limited?.get("retry-after")).toMatch(/^\d+$/);
  });

  it("/api/auth errors are in the contract's shape", async () => {
    const r = await request(baseUrl(), "POST", "/api/auth/sign-in/email", { email: owner.email, password: "wrong-password-x" }, { origin: baseUrl() });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: { code: "UNAUTHENTICATED", message: expect.any(String), details: { reason: "INVALID_EMAIL_OR_PASSWORD" } } });
  });

  it("allowed origins: impossible ports refused, default ports normalised", async () => {
    for (const o of ["https://shop.example.com:0", "https://shop.example.com:99999"]) {
      expect((await owner.call("POST", "/business/api-keys", { environment: "TEST", kind: "PUBLISHABLE", allowedOrigins: [o] })).status, o).toBe(400);
    }
    const k = await owner.call("POST", "/business/api-keys", { environment: "TEST", kind: "PUBLISHABLE", allowedOrigins: ["https://shop.example.com:443"] });
    expect(k.status).toBe(200);
    expect(k.body.allowedOrigins).toEqual(["https://shop.example.com"]);
    const t = await request(baseUrl(), "POST", "/track", { eventName: "view" }, { "x-api-key": k.body.secret, origin: "https://shop.example.com" });
    expect(t.status).toBe(200);
  });

  it("POST /sdk/participants: a new userId with another participant's email is 409 CONFLICT; the wallet stays", async () => {
    const { secret } = await createKey(owner);
    const wallet = "0x1111111111111111111111111111111111111111";
    const alice = await sdk(secret, "POST", "/sdk/participants", { userId: "alice", email: "alice@example.com", walletAddress: wallet });
    expect(alice.status).toBe(200);
    const r = await sdk(secret, "POST", "/sdk/participants", { userId: "mallory", email: "alice@example.com", walletAddress: "0x2222222222222222222222222222222222222222" });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("CONFLICT");
    expect((await sdk(secret, "POST", "/sdk/participants", { userId: "alice" })).body.walletAddress).toBe(wallet);
  });
});
