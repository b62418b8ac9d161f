// Where webhooks may go: LIVE and TEST follow the same address rules, except that TEST may use
// http and, with WEBHOOK_ALLOW_LOOPBACK=1 only, loopback, whose answers are never stored; test
// sends are rate-limited per endpoint.
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { runJob } from "../../jobs/execute";
import { startReceiver, type Receiver } from "../../../tests/support/webhook-receiver";
import { checkDestinationUrl, isPublicAddress } from "./destination";
import { createWebhook, listDeliveries, sendTestWebhook } from "./service";

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(() => rx.close());
afterEach(() => {
  process.env.WEBHOOK_ALLOW_LOOPBACK = "1"; // the tests' receivers are on loopback (unit-setup.ts)
  delete process.env.WEBHOOK_TEST_PER_MINUTE;
});

const business = async () => (await db.business.create({ data: { name: "Hooks Co", ownerId: `owner-${randomUUID()}` } })).id;
const refused = (environment: "TEST" | "LIVE", url: string) => {
  try {
    checkDestinationUrl(environment, url);
    return null;
  } catch (e) {
    return (e as { code: string }).code;
  }
};

const NEVER = [
  "http://10.0.0.8/x",
  "http://172.16.3.4/x",
  "http://192.168.1.10/x",
  "http://169.254.169.254/latest/meta-data",
  "http://100.64.0.1/x",
  "http://192.0.2.1/x",
  "http://198.18.0.1/x",
  "http://240.0.0.1/x",
  "http://0.0.0.0/x",
  "http://[fe80::1]/x",
  "http://[fd00:ec2::254]/x",
  "http://[::7f00:1]/x",
  "http://[::a00:1]/x",
  "http://[::ffff:10.0.0.1]/x",
  "http://[64:ff9b::a00:1]/x",
  "http://localhost./x",
  "http://hooks.example.com./x",
  "http://intranet/x",
];

describe("destination rules", () => {
  it("classifies IPv4-compatible IPv6 (::/96) and other non-global IPv6 as not public", () => {
    for (const a of ["::7f00:1", "::a00:1", "::808:808", "64:ff9b::a00:1", "2002:a00:1::1", "fec0::1", "100::1"]) expect(isPublicAddress(a), a).toBe(false);
    expect(isPublicAddress("2606:4700:4700::1111")).toBe(true);
  });

  it("TEST follows LIVE's address rules: private, link-local, metadata, CGNAT, reserved, ::/96 and trailing-dot names refused", () => {
    for (const url of NEVER) {
      expect(refused("TEST", url), url).toBe("VALIDATION_ERROR");
      expect(refused("LIVE", url.replace("http:", "https:")), url).toBe("VALIDATION_ERROR");
    }
    expect(refused("TEST", "http://hooks.example.com/x")).toBeNull();
    expect(refused("TEST", "https://93.184.216.34/x")).toBeNull();
  });

  it("loopback: refused unless WEBHOOK_ALLOW_LOOPBACK=1 (a business must not probe the server's own ports), then on TEST only", () => {
    const loopback = ["http://127.0.0.1:4000/x", "http://localhost:4000/x", "http://[::1]:4000/x", "http://app.localhost/x"];
    for (const value of [undefined, "0", "true", ""]) {
      if (value === undefined) delete process.env.WEBHOOK_ALLOW_LOOPBACK;
      else process.env.WEBHOOK_ALLOW_LOOPBACK = value;
      for (const url of loopback) expect(refused("TEST", url), `${url} with ${value}`).toBe("VALIDATION_ERROR");
    }
    process.env.WEBHOOK_ALLOW_LOOPBACK = "1";
    for (const url of loopback) {
      expect(refused("TEST", url), url).toBeNull();
      expect(refused("LIVE", url.replace("http:", "https:")), url).toBe("VALIDATION_ERROR");
    }
  });

  it("a delivery to a loopback endpoint stores no response body; once WEBHOOK_ALLOW_LOOPBACK is not 1 it never connects", async () => {
    const businessId = await business();
    const w = await createWebhook(businessId, { url: `${rx.url}/local`, environment: "TEST" });
    await runJob((await sendTestWebhook(businessId, w.webhookId)).jobId);
    const [d] = (await listDeliveries(businessId, { webhookId: w.webhookId, limit: 1 })).data;
    expect(d).toMatchObject({ success: true, statusCode: 200, responseBody: null });

    process.env.WEBHOOK_ALLOW_LOOPBACK = "0";
    const before = rx.connections();
    await runJob((await sendTestWebhook(businessId, w.webhookId)).jobId);
    const [e] = (await listDeliveries(businessId, { webhookId: w.webhookId, limit: 1 })).data;
    expect(e).toMatchObject({ success: false, statusCode: null, responseBody: null });
    expect(e.error).toMatch(/public address/);
    expect(rx.connections()).toBe(before);
  });

  it("test sends are rate-limited per endpoint (429 RATE_LIMITED with Retry-After)", async () => {
    process.env.WEBHOOK_TEST_PER_MINUTE = "3";
    const businessId = await business();
    const a = await createWebhook(businessId, { url: `${rx.url}/a`, environment: "TEST" });
    const b = await createWebhook(businessId, { url: `${rx.url}/b`, environment: "TEST" });
    for (let i = 0; i < 3; i++) await sendTestWebhook(businessId, a.webhookId);
    const over = await sendTestWebhook(businessId, a.webhookId).catch((e: { code: string; headers?: Record<string, string> }) => e);
    expect(over).toMatchObject({ code: "RATE_LIMITED" });
    expect(Number((over as { headers: Record<string, string> }).headers["Retry-After"])).toBeGreaterThanOrEqual(1);
    // Nothing was queued for the refused send; another endpoint has its own budget.
    expect(await db.webhookMessage.count({ where: { endpointId: a.webhookId } })).toBe(3);
    await expect(sendTestWebhook(businessId, b.webhookId)).resolves.toMatchObject({ status: "QUEUED" });
  });
});
