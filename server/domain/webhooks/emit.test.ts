// The outbox's write side in bulk: any number of events to any number of endpoints costs the same
// few statements (the endpoints, then every message with its job), and each message is the one
// the delivery job names, with the body the endpoint will be sent.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db, type Tx } from "../../db/client";
import { createWebhook, updateWebhook } from "./service";
import { emitWebhookEvent, referralWebhook, type WebhookEvent } from "./emit";
import { deliveryGroupSize, deliveryPayloadsOf } from "./deliver";

async function business() {
  const b = await db.business.create({ data: { name: "Bulk Hooks Co", ownerId: `owner-${randomUUID()}` } });
  return b.id;
}

/** The transaction, counting the statements sent through it (model calls and raw ones alike). */
function counting(tx: Tx) {
  const counter = { calls: 0 };
  const wrap = (target: object, depth: number): unknown =>
    new Proxy(target, {
      get(t, prop) {
        const v = Reflect.get(t, prop) as unknown;
        if (typeof v === "function") {
          return (...args: unknown[]) => {
            counter.calls++;
            return (v as (...a: unknown[]) => unknown).apply(t, args);
          };
        }
        return v && typeof v === "object" && depth === 0 ? wrap(v, 1) : v;
      },
    });
  return { tx: wrap(tx, 0) as Tx, counter };
}

const referral = (businessId: string, i: number): WebhookEvent =>
  referralWebhook(i % 2 ? "referral.created" : "referral.qualified", {
    id: `ref_${i}`,
    businessId,
    environment: "TEST",
    status: "PENDING",
    reason: null,
    referrerId: "p1",
    referredId: `p${i + 2}`,
    apiKeyId: null,
    source: null,
    campaign: null,
    createdAt: new Date(),
    updatedAt: new Date(),
    qualifiedAt: null,
  });

describe("emitWebhookEvent in bulk", () => {
  it("writes every message and its delivery job in the same few statements, whatever the number of endpoints", async () => {
    const businessId = await business();
    const statementsFor = async (events: WebhookEvent[]) => {
      const counter = await db.$transaction(async (t) => {
        const c = counting(t);
        await emitWebhookEvent(c.tx, events);
        return c.counter;
      });
      return counter.calls;
    };
    // No endpoint: one look-up, nothing written.
    expect(await statementsFor([referral(businessId, 0)])).toBe(1);
    expect(await db.webhookMessage.count({ where: { businessId } })).toBe(0);

    const all = await createWebhook(businessId, { url: "http://127.0.0.1:9/all", environment: "TEST" });
    const created = await createWebhook(businessId, { url: "http://127.0.0.1:9/created", environment: "TEST", events: ["referral.created"] });
    const off = await createWebhook(businessId, { url: "http://127.0.0.1:9/off", environment: "TEST" });
    await updateWebhook(businessId, { webhookId: off.webhookId, enabled: false });
    const one = await statementsFor([referral(businessId, 1)]);
    const many = await statementsFor(Array.from({ length: 300 }, (_, i) => referral(businessId, i + 2)));
    expect(many).toBe(one);
    expect(many).toBeLessThanOrEqual(3);

    // 301 events to the catch-all endpoint, the 151 referral.created ones to the filtered one too.
    const count = (endpointId: string) => db.webhookMessage.count({ where: { endpointId } });
    expect([await count(all.webhookId), await count(created.webhookId), await count(off.webhookId)]).toEqual([301, 151, 0]);
    const messages = await db.webhookMessage.findMany({ where: { businessId } });
    // One delivery job per group of up to deliveryGroupSize() messages to one endpoint, in the order written.
    const jobs = await db.job.findMany({ where: { businessId, type: "WEBHOOK_DELIVER" } });
    const endpointOf = new Map(messages.map((m) => [m.id, m.endpointId]));
    const jobOf = new Map<string, (typeof jobs)[number]>();
    for (const j of jobs) {
      const ids = deliveryPayloadsOf(j.payload).map((p) => p.messageId);
      expect(ids.length).toBeLessThanOrEqual(deliveryGroupSize());
      expect(new Set(ids.map((id) => endpointOf.get(id))).size).toBe(1);
      expect(j.payload).toEqual(ids.length === 1 ? { messageId: ids[0], manual: false, force: false } : { messageIds: ids, manual: false, force: false });
      for (const id of ids) {
        expect(jobOf.has(id), id).toBe(false);
        jobOf.set(id, j);
      }
    }
    // The call of one event: a job per endpoint; the call of 300: 300 and 150 messages in groups.
    expect(jobs).toHaveLength(2 + Math.ceil(300 / deliveryGroupSize()) + Math.ceil(150 / deliveryGroupSize()));
    for (const m of messages) {
      const j = jobOf.get(m.id)!;
      expect(j, m.id).toBeDefined();
      expect(j).toMatchObject({ status: "QUEUED", environment: "TEST", apiKeyId: null });
      expect(m).toMatchObject({ status: "PENDING", attempts: 0, environment: "TEST" });
      const body = JSON.parse(m.body) as { type: string; timestamp: string; data: { referralId: string } };
      expect(body.type).toBe(m.eventType);
      expect(body.data.referralId).toMatch(/^ref_\d+$/);
      expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
    }
  });

  it("refuses events of two businesses in one call, writing nothing", async () => {
    const a = await business();
    const b = await business();
    await createWebhook(a, { url: "http://127.0.0.1:9/a", environment: "TEST" });
    await expect(db.$transaction((tx) => emitWebhookEvent(tx, [referral(a, 1), referral(b, 2)]))).rejects.toThrow(/one business/);
    expect(await db.webhookMessage.count({ where: { businessId: a } })).toBe(0);
  });
});
