// Webhooks over real HTTP against the production build and its embedded runner, with a real
// local receiver: routes, roles and ownership; deliveries signed per Standard Webhooks (checked
// with the `standardwebhooks` package); a 500 retried with the same webhook-id; rotation; LIVE
// destinations refused; delivery log and manual retry.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { baseUrl, request, signUp, type Owner } from "../support/http";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import { addMember, participant, rewardsBusiness, trackReferral } from "./rewards-helpers";

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(() => rx.close());

async function hook(owner: Owner, body: Record<string, unknown> = {}) {
  const r = await owner.call("POST", "/business/webhooks", { url: `${rx.url}/hooks`, environment: "TEST", ...body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { webhookId: string; secret: string; url: string; events: string[]; enabled: boolean };
}

/** Requests to the receiver carrying this webhook id's messages (waits for n). */
async function deliveriesTo(path: string, n: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = rx.received.filter((r) => r.path === path);
    if (got.length >= n) return got;
    if (Date.now() > deadline) throw new Error(`${path}: ${got.length} of ${n} deliveries`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("webhook routes", () => {
  it("create (owner) returns the secret once; list, patch, delete; members may not create; others' ids are 404", async () => {
    const owner = await signUp();
    const w = await hook(owner, { events: ["referral.created"], description: "CRM" });
    expect(w.secret).toMatch(/^whsec_/);
    expect(w).toMatchObject({ url: `${rx.url}/hooks`, events: ["referral.created"], enabled: true, environment: "TEST", description: "CRM" });

    const list = await owner.call("GET", "/business/webhooks");
    expect(list.status).toBe(200);
    expect(list.body.data.map((x: any) => x.webhookId)).toEqual([w.webhookId]);
    expect(JSON.stringify(list.body)).not.toContain(w.secret);

    const patched = await owner.call("PATCH", `/business/webhooks/${w.webhookId}`, { enabled: false, events: [] });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ enabled: false, events: [] });

    const member = await addMember(owner);
    const denied = await member.call("POST", "/business/webhooks", { url: rx.url, environment: "TEST" });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("NOT_OWNER");
    expect((await member.call("POST", `/business/webhooks/${w.webhookId}/rotate-secret`, {})).status).toBe(403);
    expect((await member.call("GET", `/business/webhooks/${w.webhookId}/deliveries`)).status).toBe(200);

    const stranger = await signUp();
    for (const [m, p, b] of [
      ["PATCH", `/business/webhooks/${w.webhookId}`, { enabled: true }],
      ["DELETE", `/business/webhooks/${w.webhookId}`, undefined],
      ["POST", `/business/webhooks/${w.webhookId}/rotate-secret`, {}],
      ["POST", `/business/webhooks/${w.webhookId}/test`, undefined],
      ["GET", `/business/webhooks/${w.webhookId}/deliveries`, undefined],
    ] as const) {
      const r = await stranger.call(m, p, b);
      expect(r.status, `${m} ${p}`).toBe(404);
      expect(r.body.error.code).toBe("NOT_FOUND");
    }
    const del = await owner.call("DELETE", `/business/webhooks/${w.webhookId}`);
    expect(del.status).toBe(200);
    expect((await owner.call("GET", "/business/webhooks")).body.data).toEqual([]);
    expect((await request(baseUrl(), "GET", "/business/webhooks")).status).toBe(401);
  });

  it("validates: LIVE needs https and a public host; bad events, overlap out of range → 400", async () => {
    const owner = await signUp();
    for (const url of ["http://hooks.example.com/x", "https://127.0.0.1/x", "https://localhost/x", "https://169.254.169.254/x", "https://[::1]/x", "https://192.168.0.10/x"]) {
      const r = await owner.call("POST", "/business/webhooks", { url, environment: "LIVE" });
      expect(r.status, url).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
    const live = await owner.call("POST", "/business/webhooks", { url: "https://hooks.example.com/x", environment: "LIVE" });
    expect(live.status).toBe(200);
    expect((await owner.call("POST", "/business/webhooks", { url: rx.url, environment: "TEST", events: ["nope"] })).status).toBe(400);
    expect((await owner.call("POST", "/business/webhooks", { url: "ftp://x.example.com", environment: "TEST" })).status).toBe(400);
    const rot = await owner.call("POST", `/business/webhooks/${live.body.webhookId}/rotate-secret`, { overlapSeconds: 86_401 });
    expect(rot.status).toBe(400);
    expect((await owner.call("PATCH", `/business/webhooks/${live.body.webhookId}`, { url: "http://hooks.example.com/x" })).status).toBe(400);
  });

  it("at most 50 endpoints per business, also when creates arrive together", async () => {
    const owner = await signUp();
    for (let i = 0; i < 46; i++) await hook(owner, { url: `${rx.url}/cap-${i}` });
    const together = await Promise.all(Array.from({ length: 8 }, (_, i) => owner.call("POST", "/business/webhooks", { url: `${rx.url}/cap-race-${i}`, environment: "TEST" })));
    expect(together.filter((r) => r.status === 200)).toHaveLength(4);
    expect(together.filter((r) => r.status === 422).every((r) => r.body.error.code === "UNPROCESSABLE")).toBe(true);
    expect((await owner.call("GET", "/business/webhooks?environment=TEST")).body.data).toHaveLength(50);
  });

  it("the OpenAPI document describes the webhook routes", async () => {
    const doc = await request(baseUrl(), "GET", "/api/openapi.json");
    for (const p of ["/business/webhooks", "/business/webhooks/{webhookId}", "/business/webhooks/{webhookId}/rotate-secret", "/business/webhooks/{webhookId}/test", "/business/webhooks/{webhookId}/deliveries", "/business/webhooks/{webhookId}/deliveries/{deliveryId}/retry"]) {
      expect(doc.body.paths[p], p).toBeDefined();
    }
  });
});

describe("deliveries", () => {
  it("a referral made through the SDK reaches the receiver signed (standardwebhooks verifies it)", async () => {
    const { owner, secret } = await rewardsBusiness({ fundEth: undefined });
    const w = await hook(owner, { url: `${rx.url}/flow`, events: ["referral.created", "reward.created"] });
    const alice = await participant(secret);
    const t = await trackReferral(secret, alice.referralCode);
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    const got = await deliveriesTo("/flow", 2);
    const events = got.map((g) => new Webhook(w.secret).verify(g.body, g.headers) as { type: string; data: any });
    expect(events.map((e) => e.type).sort()).toEqual(["referral.created", "reward.created"]);
    const created = events.find((e) => e.type === "referral.created")!;
    expect(created.data).toMatchObject({ referralId: t.body.referralId, referrerId: alice.participantId });
    const reward = events.find((e) => e.type === "reward.created")!;
    expect(reward.data).toMatchObject({ kind: "REFERRAL", status: "REFUSED", reason: "INSUFFICIENT_POOL" }); // unfunded pool: recorded, never silent
    expect(got[0].headers["webhook-id"]).toMatch(/^msg_/);
    // A tampered body fails verification.
    expect(() => new Webhook(w.secret).verify(got[0].body.replace("referral", "xeferral"), got[0].headers)).toThrow();
  });

  it("a test event answered 500 is retried with the same webhook-id; the log shows both attempts; a manual retry resends it", async () => {
    const owner = await signUp();
    const w = await hook(owner, { url: `${rx.url}/retry` });
    rx.respondWith(500);
    const t = await owner.call("POST", `/business/webhooks/${w.webhookId}/test`);
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    expect(t.body).toMatchObject({ event: "webhook.test", status: "QUEUED", messageId: expect.stringMatching(/^msg_/) });
    const [first, second] = await deliveriesTo("/retry", 2, 45_000);
    expect(first.headers["webhook-id"]).toBe(t.body.messageId);
    expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    expect(second.body).toBe(first.body);
    new Webhook(w.secret).verify(second.body, second.headers);
    let log = await owner.call("GET", `/business/webhooks/${w.webhookId}/deliveries?limit=10`);
    for (let i = 0; i < 50 && log.body.data.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 100));
      log = await owner.call("GET", `/business/webhooks/${w.webhookId}/deliveries?limit=10`);
    }
    expect(log.status).toBe(200);
    expect(log.body.data.map((d: any) => [d.attempt, d.success, d.statusCode, d.event])).toEqual([
      [2, true, 200, "webhook.test"],
      [1, false, 500, "webhook.test"],
    ]);
    expect(log.body.data[1]).toMatchObject({ durationMs: expect.any(Number), error: expect.stringContaining("500"), nextRetryAt: expect.any(String) });
    const retry = await owner.call("POST", `/business/webhooks/${w.webhookId}/deliveries/${log.body.data[1].deliveryId}/retry`);
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    const third = (await deliveriesTo("/retry", 3))[2];
    expect(third.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    new Webhook(w.secret).verify(third.body, third.headers);
  });

  it("a scheduled event answered 500 is retried by the schedule (≈5 s later) with the same webhook-id", async () => {
    const { owner, secret } = await rewardsBusiness();
    const w = await hook(owner, { url: `${rx.url}/sched`, events: ["referral.created"] });
    rx.respondWith(500);
    const alice = await participant(secret);
    expect((await trackReferral(secret, alice.referralCode)).status).toBe(200);
    const [a, b] = await deliveriesTo("/sched", 2, 45_000);
    expect(b.headers["webhook-id"]).toBe(a.headers["webhook-id"]);
    expect(b.at - a.at).toBeGreaterThanOrEqual(3_500);
    new Webhook(w.secret).verify(b.body, b.headers);
    const log = await owner.call("GET", `/business/webhooks/${w.webhookId}/deliveries`);
    const attempts = log.body.data.map((d: any) => [d.attempt, d.success, d.statusCode]);
    expect(attempts).toEqual([
      [2, true, 200],
      [1, false, 500],
    ]);
  });

  it("rotation: during the overlap both secrets verify; afterwards only the new one", async () => {
    const owner = await signUp();
    const w = await hook(owner, { url: `${rx.url}/rotate` });
    const r = await owner.call("POST", `/business/webhooks/${w.webhookId}/rotate-secret`, { overlapSeconds: 600 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.secret).toMatch(/^whsec_/);
    expect(r.body.secret).not.toBe(w.secret);
    expect(r.body.previousSecretExpiresAt).not.toBeNull();
    await owner.call("POST", `/business/webhooks/${w.webhookId}/test`);
    const got = (await deliveriesTo("/rotate", 1))[0];
    expect(new Webhook(w.secret).verify(got.body, got.headers)).toMatchObject({ type: "webhook.test" });
    expect(new Webhook(r.body.secret).verify(got.body, got.headers)).toMatchObject({ type: "webhook.test" });
    const r0 = await owner.call("POST", `/business/webhooks/${w.webhookId}/rotate-secret`, { overlapSeconds: 0 });
    await owner.call("POST", `/business/webhooks/${w.webhookId}/test`);
    const after = (await deliveriesTo("/rotate", 2))[1];
    expect(() => new Webhook(r.body.secret).verify(after.body, after.headers)).toThrow();
    new Webhook(r0.body.secret).verify(after.body, after.headers);
  });
});
