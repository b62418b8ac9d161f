// Webhooks in process against the real database and a real local HTTP receiver: the outbox is
// written in the transaction of the change (none lost, none invented), deliveries are signed per
// Standard Webhooks (checked with the `standardwebhooks` package, a verifier we did not write),
// a retry keeps the webhook-id, rotation signs with both secrets during the overlap, LIVE
// destinations are refused at connect time unless public, an endpoint failing for days is disabled.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { db } from "../../db/client";
import { runJob } from "../../jobs/execute";
import { claimJob } from "../../jobs/claim";
import { deliverClaimed, deliveryWeight } from "../../jobs/webhook-pool";
import { upsertParticipant, findParticipantByCodeOrHandle } from "../participants/service";
import { recordReferral } from "../referrals/service";
import type { Scope } from "../../shared/scope";
import { startReceiver, type Receiver } from "../../../tests/support/webhook-receiver";
import { PAST } from "../../../tests/support/jobs-fixtures";
import { checkDestinationUrl, isPublicAddress } from "./destination";
import { DISABLE_AFTER_MS, MAX_WEBHOOK_ATTEMPTS, webhookRetryDelayMs } from "./deliver";
import { emitWebhookEvent, referralWebhook } from "./emit";
import { decryptSecret, encryptSecret } from "./secrets";
import { createWebhook, getOwnedWebhook, listDeliveries, retryDelivery, rotateWebhookSecret, sendTestWebhook, updateWebhook } from "./service";

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(() => rx.close());

async function business(environment: "TEST" | "LIVE" = "TEST"): Promise<Scope> {
  const b = await db.business.create({ data: { name: "Hooks Co", ownerId: `owner-${randomUUID()}` } });
  return { businessId: b.id, environment, apiKeyId: null };
}

/** Runs every queued, due WEBHOOK_DELIVER job of the business, as the runner would. */
async function deliverDue(businessId: string) {
  const jobs = await db.job.findMany({ where: { businessId, type: "WEBHOOK_DELIVER", status: "QUEUED", runAt: { lte: new Date() } }, orderBy: { createdAt: "asc" } });
  return Promise.all(jobs.map((j) => runJob(j.id)));
}

async function referralIn(scope: Scope, tag: string) {
  const a = await upsertParticipant(scope, { userId: `a-${tag}` });
  const b = await upsertParticipant(scope, { userId: `b-${tag}` });
  const referrer = (await findParticipantByCodeOrHandle(db, scope, a.referralCode))!;
  const referred = (await findParticipantByCodeOrHandle(db, scope, b.referralCode))!;
  return { referrer, referred };
}

describe("endpoints", () => {
  it("creates with a whsec_ secret shown once and stored encrypted; LIVE needs https and a public host", async () => {
    const s = await business();
    const w = await createWebhook(s.businessId, { url: `${rx.url}/hooks`, environment: "TEST" });
    expect(w.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const row = await getOwnedWebhook(s.businessId, w.webhookId);
    expect(row.secretCiphertext).not.toContain(w.secret.slice(6, 20));
    expect(decryptSecret(row.secretCiphertext)).toBe(w.secret);
    // Tampering with the ciphertext is detected (GCM tag).
    const [v, iv, tag, ct] = encryptSecret(w.secret).split(".");
    const flipped = Buffer.from(ct, "base64url");
    flipped[0] ^= 1;
    expect(() => decryptSecret([v, iv, tag, flipped.toString("base64url")].join("."))).toThrow();

    for (const url of ["http://hooks.example.com/x", "https://127.0.0.1/x", "https://localhost:8443/x", "https://[::1]/x", "https://169.254.169.254/latest", "https://10.0.0.8/x"]) {
      await expect(createWebhook(s.businessId, { url, environment: "LIVE" }), url).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    }
    expect(checkDestinationUrl("LIVE", "https://hooks.example.com/x")).toBe("https://hooks.example.com/x");
    // The database holds the https rule for LIVE too.
    await expect(db.webhookEndpoint.create({ data: { businessId: s.businessId, environment: "LIVE", url: "http://x.example.com", secretCiphertext: "v1.a.b.c", secretPrefix: "whsec_" } })).rejects.toThrow();
  });

  it("another business's webhook id is a 404", async () => {
    const a = await business();
    const b = await business();
    const w = await createWebhook(a.businessId, { url: rx.url, environment: "TEST" });
    await expect(getOwnedWebhook(b.businessId, w.webhookId)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(updateWebhook(b.businessId, { webhookId: w.webhookId, enabled: false })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(sendTestWebhook(b.businessId, w.webhookId)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("classifies addresses: only global unicast is public", () => {
    for (const a of ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "fe80::1", "fd00:ec2::254", "::ffff:127.0.0.1", "224.0.0.1"]) expect(isPublicAddress(a), a).toBe(false);
    for (const a of ["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111"]) expect(isPublicAddress(a), a).toBe(true);
  });
});

describe("outbox", () => {
  it("is written in the change's transaction: a rollback leaves no message; a commit leaves message + job until a runner delivers it", async () => {
    const s = await business();
    const w = await createWebhook(s.businessId, { url: `${rx.url}/outbox`, environment: "TEST" });
    const { referrer, referred } = await referralIn(s, "crash");
    // A transaction that fails after the referral (and its event) were written: nothing is kept.
    await expect(
      db.$transaction(async (tx) => {
        await recordReferral(tx, s, { referrer, referred });
        throw new Error("crash before commit");
      }),
    ).rejects.toThrow("crash before commit");
    expect(await db.webhookMessage.count({ where: { endpointId: w.webhookId } })).toBe(0);
    // Committed, then "the process dies" before any delivery: the message and its job wait.
    const { referral } = await db.$transaction((tx) => recordReferral(tx, s, { referrer, referred }));
    const msgs = await db.webhookMessage.findMany({ where: { endpointId: w.webhookId } });
    expect(msgs.map((m) => [m.eventType, m.status])).toEqual([["referral.created", "PENDING"]]);
    const jobs = await db.job.findMany({ where: { businessId: s.businessId, type: "WEBHOOK_DELIVER" } });
    expect(jobs.map((j) => j.status)).toEqual(["QUEUED"]);
    // Later (a new process), the job runs and delivers it, signed.
    const before = rx.received.length;
    await deliverDue(s.businessId);
    const got = (await rx.waitFor(before + 1))[before];
    const evt = new Webhook(w.secret).verify(got.body, got.headers) as { type: string; data: { referralId: string } };
    expect(evt.type).toBe("referral.created");
    expect(evt.data.referralId).toBe(referral.id);
    expect(got.headers["webhook-id"]).toBe(msgs[0].id);
    expect(JSON.parse(got.body)).toMatchObject({ type: "referral.created", timestamp: expect.any(String), data: { referralId: referral.id, status: "PENDING" } });
    expect((await db.webhookMessage.findUniqueOrThrow({ where: { id: msgs[0].id } })).status).toBe("DELIVERED");
  });

  it("sends only subscribed types to enabled endpoints of the same environment", async () => {
    const s = await business();
    const all = await createWebhook(s.businessId, { url: rx.url, environment: "TEST" });
    const onlyQualified = await createWebhook(s.businessId, { url: rx.url, environment: "TEST", events: ["referral.qualified"] });
    const off = await createWebhook(s.businessId, { url: rx.url, environment: "TEST" });
    await updateWebhook(s.businessId, { webhookId: off.webhookId, enabled: false });
    const live = await createWebhook(s.businessId, { url: "https://hooks.example.com/x", environment: "LIVE" });
    const { referrer, referred } = await referralIn(s, "filter");
    await db.$transaction((tx) => recordReferral(tx, s, { referrer, referred }));
    const count = (id: string) => db.webhookMessage.count({ where: { endpointId: id } });
    expect([await count(all.webhookId), await count(onlyQualified.webhookId), await count(off.webhookId), await count(live.webhookId)]).toEqual([1, 0, 0, 0]);
  });
});

describe("delivery", () => {
  it("a 500 is retried with backoff under the same webhook-id; the log shows both attempts", async () => {
    const s = await business();
    const w = await createWebhook(s.businessId, { url: `${rx.url}/retry`, environment: "TEST" });
    rx.respondWith(500);
    const before = rx.received.length;
    await db.$transaction((tx) => emitWebhookEvent(tx, referralWebhook("referral.qualified", { id: "ref_1", businessId: s.businessId, environment: "TEST", status: "QUALIFIED", reason: null, referrerId: "p1", referredId: "p2", apiKeyId: null, source: null, campaign: null, createdAt: new Date(), updatedAt: new Date(), qualifiedAt: new Date() })));
    await deliverDue(s.businessId);
    const log1 = await listDeliveries(s.businessId, { webhookId: w.webhookId, limit: 10 });
    expect(log1.data).toHaveLength(1);
    expect(log1.data[0]).toMatchObject({ attempt: 1, success: false, statusCode: 500, event: "referral.qualified", messageStatus: "PENDING", manual: false });
    const next = new Date(log1.data[0].nextRetryAt!).getTime();
    expect(next).toBeGreaterThan(Date.now() + 2_000);
    const retryJob = await db.job.findFirstOrThrow({ where: { businessId: s.businessId, type: "WEBHOOK_DELIVER", status: "QUEUED" } });
    expect(retryJob.runAt.getTime()).toBe(next);
    await db.job.update({ where: { id: retryJob.id }, data: { runAt: PAST } });
    await deliverDue(s.businessId);
    const [first, second] = (await rx.waitFor(before + 2)).slice(before);
    expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    expect(second.body).toBe(first.body);
    new Webhook(w.secret).verify(second.body, second.headers);
    const log2 = await listDeliveries(s.businessId, { webhookId: w.webhookId, limit: 10 });
    expect(log2.data.map((d) => [d.attempt, d.success, d.messageStatus])).toEqual([
      [2, true, "DELIVERED"],
      [1, false, "DELIVERED"],
    ]);
    // Paging by cursor.
    const p1 = await listDeliveries(s.businessId, { webhookId: w.webhookId, limit: 1 });
    const p2 = await listDeliveries(s.businessId, { webhookId: w.webhookId, limit: 1, cursor: p1.nextCursor! });
    expect([...p1.data, ...p2.data].map((d) => d.attempt)).toEqual([2, 1]);
    expect(p2.nextCursor).toBeNull();
    // A manual retry sends the same message again.
    const r = await retryDelivery(s.businessId, w.webhookId, log2.data[1].deliveryId);
    await runJob(r.jobId);
    const third = (await rx.waitFor(before + 3))[before + 2];
    expect(third.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
  });

  // A group of messages to one endpoint is one job, run alone (runJob) or by the runner's webhook
  // pool (deliverClaimed): each message is POSTed and recorded; a failed one is retried alone.
  for (const path of ["alone", "pool"] as const) {
    it(`a delivery job of several messages (${path}): each sent once, the one that failed retried on its own`, async () => {
      const s = await business();
      const w = await createWebhook(s.businessId, { url: `${rx.url}/group-${path}`, environment: "TEST" });
      const at = new Date();
      const events = [1, 2, 3].map((k) => referralWebhook("referral.created", { id: `ref_${k}`, businessId: s.businessId, environment: "TEST", status: "PENDING", reason: null, referrerId: "p1", referredId: `p${k + 1}`, apiKeyId: null, source: null, campaign: null, createdAt: at, updatedAt: at, qualifiedAt: null }));
      const [job] = await db.$transaction((tx) => emitWebhookEvent(tx, events));
      const row = await db.job.findUniqueOrThrow({ where: { id: job.id } });
      expect((row.payload as { messageIds: string[] }).messageIds).toHaveLength(3);
      const before = rx.received.length;
      rx.respondWith(500); // the first POST to arrive fails
      if (path === "alone") await runJob(job.id);
      else {
        const claimed = (await claimJob(job.id))!;
        expect(deliveryWeight(claimed)).toBe(3);
        await Promise.all((await Promise.all(deliverClaimed([claimed]))).map((d) => d.recorded));
      }
      const got = (await rx.waitFor(before + 3)).slice(before);
      expect(new Set(got.map((g) => g.headers["webhook-id"])).size).toBe(3);
      const messages = await db.webhookMessage.findMany({ where: { endpointId: w.webhookId } });
      expect(messages.map((m) => m.status).sort()).toEqual(["DELIVERED", "DELIVERED", "PENDING"]);
      expect(messages.every((m) => m.attempts === 1)).toBe(true);
      const done = await db.job.findUniqueOrThrow({ where: { id: job.id } });
      expect(done.status).toBe("SUCCEEDED");
      expect((done.result as { deliveries: { success: boolean }[] }).deliveries.map((d) => d.success).sort()).toEqual([false, true, true]);
      // The failed message alone gets a retry job, as a single delivery would.
      const failed = messages.find((m) => m.status === "PENDING")!;
      const retry = await db.job.findFirstOrThrow({ where: { businessId: s.businessId, type: "WEBHOOK_DELIVER", status: "QUEUED" } });
      expect(retry.payload).toEqual({ messageId: failed.id, manual: false });
      await db.job.update({ where: { id: retry.id }, data: { runAt: PAST } });
      await deliverDue(s.businessId);
      expect((await rx.waitFor(before + 4))[before + 3].headers["webhook-id"]).toBe(failed.id);
      expect((await db.webhookMessage.findUniqueOrThrow({ where: { id: failed.id } })).status).toBe("DELIVERED");
    });
  }

  it("redirects are not followed", async () => {
    const s = await business();
    const w = await createWebhook(s.businessId, { url: `${rx.url}/moved`, environment: "TEST" });
    rx.respondWith(302);
    const t = await sendTestWebhook(s.businessId, w.webhookId);
    const before = rx.received.length;
    await runJob(t.jobId);
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.received.slice(before).map((r) => r.path)).toEqual(["/moved"]); // the Location (/followed) is never requested
    const log = await listDeliveries(s.businessId, { webhookId: w.webhookId, limit: 5 });
    expect(log.data[0]).toMatchObject({ success: false, statusCode: 302, manual: false, messageStatus: "PENDING", nextRetryAt: expect.any(String) });
    expect(log.data[0].error).toMatch(/Redirect/);
  });

  it("rotation: both secrets sign during the overlap; overlap 0 stops the old one at once", async () => {
    const s = await business();
    const w = await createWebhook(s.businessId, { url: `${rx.url}/rot`, environment: "TEST" });
    const rotated = await rotateWebhookSecret(s.businessId, w.webhookId, 3600);
    expect(rotated.secret).not.toBe(w.secret);
    expect(rotated.previousSecretExpiresAt).not.toBeNull();
    let before = rx.received.length;
    await runJob((await sendTestWebhook(s.businessId, w.webhookId)).jobId);
    let got = (await rx.waitFor(before + 1))[before];
    expect(got.headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new Webhook(w.secret).verify(got.body, got.headers)).toMatchObject({ type: "webhook.test" });
    expect(new Webhook(rotated.secret).verify(got.body, got.headers)).toMatchObject({ type: "webhook.test" });

    const again = await rotateWebhookSecret(s.businessId, w.webhookId, 0);
    before = rx.received.length;
    await runJob((await sendTestWebhook(s.businessId, w.webhookId)).jobId);
    got = (await rx.waitFor(before + 1))[before];
    expect(got.headers["webhook-signature"].split(" ")).toHaveLength(1);
    expect(() => new Webhook(rotated.secret).verify(got.body, got.headers)).toThrow();
    new Webhook(again.secret).verify(got.body, got.headers);
  });

  it("LIVE: loopback and private destinations are refused at connect time (nothing reaches them)", async () => {
    const s = await business("LIVE");
    const before = rx.connections();
    // Rows written directly: the create-time check would refuse these URLs, the connect-time check must too.
    for (const url of [`https://localhost:${rx.port}/x`, `https://127.0.0.1:${rx.port}/x`, `http://127.0.0.1:${rx.port}/x`]) {
      const w = await createWebhook(s.businessId, { url: "https://hooks.example.com/x", environment: "LIVE" });
      await db.$executeRawUnsafe(`ALTER TABLE "WebhookEndpoint" DROP CONSTRAINT IF EXISTS "WebhookEndpoint_live_https"`).catch(() => {});
      await db.webhookEndpoint.update({ where: { id: w.webhookId }, data: { url } });
      await runJob((await sendTestWebhook(s.businessId, w.webhookId)).jobId);
      const log = await listDeliveries(s.businessId, { webhookId: w.webhookId, limit: 1 });
      expect(log.data[0].success, url).toBe(false);
      expect(log.data[0].statusCode).toBeNull();
      expect(log.data[0].error, url).toMatch(/public address|https/);
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(rx.connections()).toBe(before);
  });

  it("an endpoint failing for days is disabled once, with one WEBHOOK_DISABLED alert", async () => {
    const s = await business();
    const w = await createWebhook(s.businessId, { url: `${rx.url}/down`, environment: "TEST" });
    await db.webhookEndpoint.update({ where: { id: w.webhookId }, data: { failingSince: new Date(Date.now() - DISABLE_AFTER_MS - 60_000) } });
    rx.respondWith(503, 503);
    await db.$transaction((tx) => emitWebhookEvent(tx, [1, 2].map(() => ({ businessId: s.businessId, environment: "TEST" as const, type: "pool.low" as const, data: { balanceEth: "0" } }))));
    for (const j of await db.job.findMany({ where: { businessId: s.businessId, type: "WEBHOOK_DELIVER" } })) await runJob(j.id);
    const ep = await getOwnedWebhook(s.businessId, w.webhookId);
    expect(ep.enabled).toBe(false);
    expect(ep.disabledReason).toMatch(/failed for 3 days/);
    expect(await db.alert.count({ where: { businessId: s.businessId, kind: "WEBHOOK_DISABLED" } })).toBe(1);
    // Disabled: the scheduled retries deliver nothing and give up.
    const pending = await db.job.findMany({ where: { businessId: s.businessId, type: "WEBHOOK_DELIVER", status: "QUEUED" } });
    for (const j of pending) {
      await db.job.update({ where: { id: j.id }, data: { runAt: PAST } });
      expect((await runJob(j.id)).status).toBe("SUCCEEDED");
    }
    expect(await db.webhookMessage.count({ where: { endpointId: w.webhookId, status: "PENDING" } })).toBe(0);
    // Re-enabling clears the streak.
    const re = await updateWebhook(s.businessId, { webhookId: w.webhookId, enabled: true });
    expect(re).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
  });

  it("the schedule: exponential with jitter, about three days over all attempts", () => {
    const total = (r: number) => Array.from({ length: MAX_WEBHOOK_ATTEMPTS - 1 }, (_, i) => webhookRetryDelayMs(i + 1, r)).reduce((a, b) => a + b, 0);
    expect(webhookRetryDelayMs(1, 0.5)).toBe(5_000);
    expect(webhookRetryDelayMs(2, 0.5)).toBe(15_000);
    expect(total(0.5) / 86_400_000).toBeGreaterThan(2.5);
    expect(total(0.5) / 86_400_000).toBeLessThan(3.5);
    expect(webhookRetryDelayMs(3, 0)).toBeLessThan(webhookRetryDelayMs(3, 1));
  });
});

describe("what an endpoint answered", () => {
  it("is recorded even when it holds a NUL, which no column takes (replaced), and the message goes on its schedule", async () => {
    const { recordWebhookAttempts } = await import("./deliver");
    const s = await business();
    await createWebhook(s.businessId, { url: `${rx.url}/hooks`, environment: "TEST" });
    const { referrer, referred } = await referralIn(s, "nul");
    const { referral } = await db.$transaction((tx) => recordReferral(tx, s, { referrer, referred }));
    await db.$transaction((tx) => emitWebhookEvent(tx, referralWebhook("referral.created", referral)));
    const message = await db.webhookMessage.findFirstOrThrow({ where: { businessId: s.businessId }, orderBy: { createdAt: "desc" } });
    const answer = { success: false, statusCode: 500, durationMs: 3, error: "Endpoint answered 500 \u0000", responseBody: "oops\u0000\u0001 body" };
    await db.$transaction((tx) => recordWebhookAttempts(tx, [{ payload: { messageId: message.id, manual: false, force: false }, sent: { sent: true, webhookTimestamp: 0, outcome: answer } }]));
    const d = await db.webhookDelivery.findFirstOrThrow({ where: { messageId: message.id } });
    expect([d.statusCode, d.error, d.responseBody]).toEqual([500, "Endpoint answered 500 \uFFFD", "oops\uFFFD\uFFFD body"]);
    expect((await db.webhookMessage.findUniqueOrThrow({ where: { id: message.id } })).attempts).toBe(1);
  });
});

describe("manual retries", () => {
  /** A message of a new endpoint, and a way to record one attempt of it as the job would. */
  async function messageWithAttempts(tag: string) {
    const { recordWebhookAttempts } = await import("./deliver");
    const s = await business();
    const w = await createWebhook(s.businessId, { url: `${rx.url}/${tag}`, environment: "TEST" });
    const { referrer, referred } = await referralIn(s, tag);
    const { referral } = await db.$transaction((tx) => recordReferral(tx, s, { referrer, referred }));
    await db.$transaction((tx) => emitWebhookEvent(tx, referralWebhook("referral.created", referral)));
    const message = await db.webhookMessage.findFirstOrThrow({ where: { businessId: s.businessId }, orderBy: { createdAt: "desc" } });
    const failed = { success: false, statusCode: 500, durationMs: 3, error: "Endpoint answered 500", responseBody: null };
    const attempt = (manual: boolean) =>
      db.$transaction((tx) => recordWebhookAttempts(tx, [{ payload: { messageId: message.id, manual, force: manual }, sent: { sent: true, webhookTimestamp: 0, outcome: failed } }]));
    const read = () => db.webhookMessage.findUniqueOrThrow({ where: { id: message.id } });
    return { s, w, message, attempt, read };
  }

  it("count no attempt of the schedule and leave its next attempt as it was: retrying by hand never ends the retries", async () => {
    const m = await messageWithAttempts("manual-schedule");
    await m.attempt(false);
    const scheduled = await m.read();
    expect([scheduled.status, scheduled.attempts]).toEqual(["PENDING", 1]);
    expect(scheduled.nextAttemptAt).not.toBeNull();
    for (let i = 0; i < MAX_WEBHOOK_ATTEMPTS + 2; i++) await m.attempt(true);
    const after = await m.read();
    expect([after.status, after.attempts, after.nextAttemptAt]).toEqual(["PENDING", MAX_WEBHOOK_ATTEMPTS + 3, scheduled.nextAttemptAt]);
    // The schedule's second attempt: still retried, at the second step's delay.
    const [result] = await m.attempt(false);
    expect(result).toMatchObject({ success: false });
    const again = await m.read();
    expect(again.status).toBe("PENDING");
    // (the second step's delay, jitter included: not the fifteenth's)
    expect(again.nextAttemptAt!.getTime() - Date.now()).toBeGreaterThan(webhookRetryDelayMs(2, 0) - 5_000);
    expect(again.nextAttemptAt!.getTime() - Date.now()).toBeLessThanOrEqual(webhookRetryDelayMs(2, 1));
  });

  it("are bounded per endpoint as its test sends are (WEBHOOK_TEST_PER_MINUTE)", async () => {
    process.env.WEBHOOK_TEST_PER_MINUTE = "2";
    const m = await messageWithAttempts("manual-limit");
    await m.attempt(false);
    const [d] = (await listDeliveries(m.s.businessId, { webhookId: m.w.webhookId, limit: 1 })).data;
    await retryDelivery(m.s.businessId, m.w.webhookId, d.deliveryId);
    await retryDelivery(m.s.businessId, m.w.webhookId, d.deliveryId);
    await expect(retryDelivery(m.s.businessId, m.w.webhookId, d.deliveryId)).rejects.toMatchObject({ code: "RATE_LIMITED" });
  });
});
