// The built SDK (sdk/dist, ESM) against the running service: every client method, typed errors,
// idempotency, paging, job polling, retries after real 429s (an app with a tiny rate limit), and
// verifyWebhook on a real signed delivery.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startApp, type RunningApp } from "../support/app";
import { baseUrl, createKey, signUp, uniqueEmail } from "../support/http";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import type * as SdkSource from "../../sdk/src/index.js";

type Sdk = typeof SdkSource;
let sdk: Sdk;
let rx: Receiver;

beforeAll(async () => {
  // The package as integrators get it: compiled to sdk/dist (types come from sdk/src/types.ts,
  // generated from the OpenAPI document and drift-checked by sdk/src/sdk.test.ts).
  execFileSync(path.join(ROOT, "node_modules", ".bin", "tsc"), ["-p", "sdk/tsconfig.json"], { cwd: ROOT, stdio: "inherit" });
  sdk = (await import(pathToFileURL(path.join(ROOT, "sdk", "dist", "index.js")).href)) as Sdk;
  rx = await startReceiver();
}, 120_000);
afterAll(() => rx?.close());

async function client() {
  const owner = await signUp();
  const key = await createKey(owner, "TEST");
  return { owner, key, c: sdk.createClient({ apiKey: key.secret, baseUrl: baseUrl() }) };
}

describe("SDK client against the service", () => {
  it("upsertParticipant, applyReferral (now and queued), waitForJob, getJob, listReferrals over pages", async () => {
    const { c } = await client();
    const referrer = await c.upsertParticipant({ userId: "u-ref", email: uniqueEmail("ref") });
    expect(referrer.referralCode).toBeTruthy();
    const now = await c.applyReferral({ referralCode: referrer.referralCode, referredUserId: "u-1" });
    expect(now).toMatchObject({ processedSynchronously: true, referralId: expect.any(String) });
    const queued = await c.applyReferral({ referralCode: referrer.referralCode, referredUserEmail: uniqueEmail("friend") });
    if (!("jobId" in queued)) throw new Error("expected a queued apply");
    const job = await c.waitForJob(queued.jobId);
    expect(job).toMatchObject({ jobId: queued.jobId, jobType: "SDK_REFERRAL_APPLY", status: "SUCCEEDED" });
    expect((await c.getJob(queued.jobId)).status).toBe("SUCCEEDED");
    for (let i = 2; i <= 5; i++) await c.applyReferral({ referralCode: referrer.referralCode, referredUserId: `u-${i}` });
    const ids: string[] = [];
    for await (const r of c.listReferrals({ limit: 2 })) ids.push(r.referralId);
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
  });

  it("track (sync and queued), trackBatch, and the idempotency key of one call", async () => {
    const { c } = await client();
    const referrer = await c.upsertParticipant({ userId: "u-ref" });
    const sync = await c.track({ eventName: "page_view" });
    expect(sync).toMatchObject({ processedSynchronously: true, eventId: expect.any(String) });
    const q = await c.track({ eventName: "signup", referrer: referrer.referralCode, metadata: { referredUserEmail: uniqueEmail("t") } });
    if (!("jobId" in q)) throw new Error("expected a queued event");
    expect((await c.waitForJob(q.jobId)).status).toBe("SUCCEEDED");
    // One explicit key, two calls: one event.
    const a = await c.track({ eventName: "purchase" }, { idempotencyKey: "order-42" });
    const b = await c.track({ eventName: "purchase" }, { idempotencyKey: "order-42" });
    expect(b.eventId).toBe(a.eventId);
    const batch = await c.trackBatch([{ eventName: "a" }, { eventName: "b" }, { eventName: "c" }]);
    expect(batch).toMatchObject({ accepted: 3, failed: 0 });
    expect(batch.results).toHaveLength(3);
  });

  it("typed errors carry the body's code", async () => {
    const { c } = await client();
    const bad = sdk.createClient({ apiKey: "rk_test_nope", baseUrl: baseUrl() });
    const e1 = await bad.track({ eventName: "x" }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(sdk.AuthenticationError);
    expect(e1).toMatchObject({ status: 401, code: "INVALID_API_KEY" });
    const e2 = await c.track({ eventName: "" }).catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(sdk.ValidationError);
    expect(e2).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    const e3 = await c.applyReferral({ referralCode: "NOPE-NOPE", referredUserId: "u" }).catch((e: unknown) => e);
    expect(e3).toBeInstanceOf(sdk.UnprocessableError);
    expect(e3).toMatchObject({ status: 422, code: "UNKNOWN_REFERRAL_CODE" });
    const e4 = await c.getJob("no-such-job").catch((e: unknown) => e);
    expect(e4).toBeInstanceOf(sdk.NotFoundError);
    expect(e4).toBeInstanceOf(sdk.ReferralApiError);
  });

  it("verifyWebhook accepts a real delivery and refuses a tampered one", async () => {
    const { owner } = await client();
    const w = await owner.call("POST", "/business/webhooks", { url: `${rx.url}/sdk`, environment: "TEST" });
    expect(w.status).toBe(200);
    expect((await owner.call("POST", `/business/webhooks/${w.body.webhookId}/test`)).status).toBe(200);
    const got = await rx.waitFor(1);
    const evt = sdk.verifyWebhook(got[0].body, got[0].headers, w.body.secret);
    expect(evt).toMatchObject({ type: "webhook.test", data: { webhookId: w.body.webhookId } });
    expect(sdk.verifyWebhook(got[0].body, new Headers(got[0].headers), w.body.secret).type).toBe("webhook.test");
    expect(() => sdk.verifyWebhook(got[0].body + " ", got[0].headers, w.body.secret)).toThrow(sdk.WebhookVerificationError);
  });
});

describe("SDK retries on a rate-limited service", () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ RATE_LIMIT_PER_SECOND: "1", RATE_LIMIT_BURST: "2" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("429s are retried after Retry-After; each call keeps its idempotency key; every call lands once", { timeout: 120_000 }, async () => {
    const owner = await signUp({ url: app.url });
    const key = await createKey(owner, "TEST");
    const attempts: Array<{ status: number; key: string | null }> = [];
    // Records what went over the wire; the real platform fetch does the work.
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      attempts.push({ status: res.status, key: new Headers(init?.headers).get("idempotency-key") });
      return res;
    };
    const c = sdk.createClient({ apiKey: key.secret, baseUrl: app.url, fetch: recording, maxRetries: 40 });
    // 10 calls at once against 1 request/s with bursts of 2: most must wait and retry.
    const out = await Promise.all(Array.from({ length: 10 }, (_, i) => c.track({ eventName: `burst_${i}` })));
    expect(new Set(out.map((o) => o.eventId)).size).toBe(10);
    expect(attempts.some((a) => a.status === 429)).toBe(true);
    // Every retried key reappears with the final 200: one key per logical call.
    const byKey = new Map<string, number[]>();
    for (const a of attempts) byKey.set(a.key!, [...(byKey.get(a.key!) ?? []), a.status]);
    expect(byKey.size).toBe(10);
    for (const statuses of byKey.values()) expect(statuses[statuses.length - 1]).toBe(200);
  });
});
