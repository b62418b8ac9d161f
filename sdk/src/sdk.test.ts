// The SDK in process: HMAC-SHA256 against node:crypto, verifyWebhook against deliveries signed by
// the `standardwebhooks` package, and the client's retry rules against a scripted local HTTP
// server (429 with Retry-After, 503, then success; the idempotency key stays the same).
// Against the running service: tests/http/sdk-client.test.ts.
import { createHmac, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { hmacSha256, sha256 } from "./hmac.js";
import { ConnectionError, createClient, RateLimitError, ValidationError, verifyWebhook, WebhookVerificationError } from "./index.js";

describe("generated types", () => {
  it("sdk/src/types.ts is what the server's current OpenAPI document generates (npm run build:sdk)", async () => {
    const { openApiDocument } = await import("../../server/rest/business-rest");
    const { generateTypes } = await import("../scripts/generate-types");
    const doc = JSON.parse(JSON.stringify(openApiDocument()));
    expect(readFileSync(new URL("./types.ts", import.meta.url), "utf8")).toBe(await generateTypes(doc));
  });
});

describe("hmac", () => {
  it("matches node:crypto for lengths around the block boundaries and long keys", () => {
    for (const n of [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 1000, 5000]) {
      const data = randomBytes(n);
      for (const k of [randomBytes(16), randomBytes(32), randomBytes(64), randomBytes(100)]) {
        expect(Buffer.from(hmacSha256(k, data)).toString("hex"), `${n}/${k.length}`).toBe(createHmac("sha256", k).update(data).digest("hex"));
      }
    }
    expect(Buffer.from(sha256(new TextEncoder().encode("abc"))).toString("hex")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("verifyWebhook", () => {
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  const signed = (body: string, at = new Date(), id = "msg_1") => ({
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, at, body),
  });
  const body = JSON.stringify({ type: "referral.created", timestamp: new Date().toISOString(), data: { referralId: "r1" } });

  it("returns the event for a valid delivery (plain object or Headers, string or bytes)", () => {
    expect(verifyWebhook(body, signed(body), secret)).toMatchObject({ type: "referral.created", data: { referralId: "r1" } });
    expect(verifyWebhook(new TextEncoder().encode(body), new Headers(signed(body)), secret).type).toBe("referral.created");
    const upper = Object.fromEntries(Object.entries(signed(body)).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook(body, upper, secret).type).toBe("referral.created");
  });

  it("accepts any of several signatures (rotation) and throws on a bad, stale or missing one", () => {
    const h = signed(body);
    const other = `whsec_${randomBytes(32).toString("base64")}`;
    const both = { ...h, "webhook-signature": `${new Webhook(other).sign("msg_1", new Date(Number(h["webhook-timestamp"]) * 1000), body)} ${h["webhook-signature"]}` };
    expect(verifyWebhook(body, both, secret).type).toBe("referral.created");
    expect(verifyWebhook(body, both, other).type).toBe("referral.created");
    expect(() => verifyWebhook(body.replace("r1", "r2"), h, secret)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body, h, other)).toThrow(/No matching signature/);
    expect(() => verifyWebhook(body, signed(body, new Date(Date.now() - 10 * 60_000)), secret)).toThrow(/Stale/);
    expect(() => verifyWebhook(body, signed(body, new Date(Date.now() + 10 * 60_000)), secret)).toThrow(/Stale/);
    expect(() => verifyWebhook(body, { "webhook-id": "msg_1" }, secret)).toThrow(/Missing/);
    // An empty key and a non-finite or negative tolerance are refused, whatever the headers.
    for (const empty of ["", "   ", "whsec_"]) expect(() => verifyWebhook(body, h, empty), JSON.stringify(empty)).toThrow(/secret is empty/);
    for (const t of [NaN, Infinity, -Infinity, -1]) expect(() => verifyWebhook(body, h, secret, { toleranceSeconds: t }), String(t)).toThrow(/toleranceSeconds/);
    // Same signature replayed under another id fails (the id is signed).
    expect(() => verifyWebhook(body, { ...h, "webhook-id": "msg_2" }, secret)).toThrow(WebhookVerificationError);
  });
});

describe("client retries", () => {
  const seen: Array<{ method: string; url: string; key: string | undefined; at: number }> = [];
  let script: Array<{ status: number; headers?: Record<string, string>; body?: unknown }> = [];
  let server: http.Server;
  let url = "";
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        seen.push({ method: req.method!, url: req.url!, key: req.headers["idempotency-key"] as string | undefined, at: Date.now() });
        const next = script.shift() ?? { status: 200, body: { success: true, processedSynchronously: true, queued: false, eventId: "e1", status: "PROCESSED", reason: null, referralId: null, referredParticipant: null } };
        res.writeHead(next.status, { "content-type": "application/json", ...next.headers }).end(JSON.stringify(next.body ?? {}));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("retries 429 (after Retry-After) and 503 with one idempotency key for the whole call", async () => {
    seen.length = 0;
    script = [
      { status: 429, headers: { "retry-after": "1" }, body: { error: { code: "RATE_LIMITED", message: "slow down" } } },
      { status: 503, body: { error: { code: "SERVICE_UNAVAILABLE", message: "db down" } } },
    ];
    const client = createClient({ apiKey: "rk_test_x", baseUrl: `${url}/` });
    const out = await client.track({ eventName: "signup" });
    expect(out).toMatchObject({ eventId: "e1" });
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.key)).size).toBe(1);
    expect(seen[0].key).toMatch(/^sdk_/);
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(950); // Retry-After: 1
    // A second logical call gets a new key.
    await client.track({ eventName: "signup" });
    expect(seen[3].key).not.toBe(seen[0].key);
  });

  it("does not retry a 4xx; errors carry the body's code; gives up after maxRetries", async () => {
    seen.length = 0;
    script = [{ status: 400, body: { error: { code: "VALIDATION_ERROR", message: "bad", details: [{ path: "eventName", message: "Required" }] } } }];
    const client = createClient({ apiKey: "rk_test_x", baseUrl: url, maxRetries: 2 });
    const e = await client.track({ eventName: "" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ValidationError);
    expect(e).toMatchObject({ code: "VALIDATION_ERROR", status: 400, details: [{ path: "eventName" }] });
    expect(seen).toHaveLength(1);
    script = [0, 1, 2].map(() => ({ status: 429, headers: { "retry-after": "0" }, body: { error: { code: "RATE_LIMITED", message: "slow" } } }));
    const e2 = await client.track({ eventName: "x" }).catch((x: unknown) => x);
    expect(e2).toBeInstanceOf(RateLimitError);
    expect(e2).toMatchObject({ code: "RATE_LIMITED", retryAfter: 0 });
    expect(seen).toHaveLength(4);
  });

  it("never follows a redirect (the API key would go with it); does not retry before a Retry-After longer than it waits", async () => {
    seen.length = 0;
    script = [{ status: 307, headers: { location: "http://collector.example/steal" } }];
    const client = createClient({ apiKey: "rk_test_x", baseUrl: url, maxRetryDelayMs: 1000 });
    const e = await client.track({ eventName: "x" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionError);
    expect(e).toMatchObject({ code: "UNEXPECTED_REDIRECT", status: 307 });
    expect(seen).toHaveLength(1);
    seen.length = 0;
    script = [{ status: 429, headers: { "retry-after": "60" }, body: { error: { code: "RATE_LIMITED", message: "later" } } }];
    const e2 = await client.track({ eventName: "x" }).catch((x: unknown) => x);
    expect(e2).toMatchObject({ code: "RATE_LIMITED", retryAfter: 60 });
    expect(seen).toHaveLength(1);
  });
});

describe("browser entry", () => {
  it("captures ?ref= into a first-party cookie, keeps it across pages, and gives it back", async () => {
    // A minimal cookie jar standing in for the browser's document.cookie.
    const jar = new Map<string, string>();
    const written: string[] = [];
    const g = globalThis as unknown as { document?: unknown; location?: unknown };
    g.document = {
      get cookie() {
        return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
      },
      set cookie(line: string) {
        written.push(line);
        const [pair, ...attrs] = line.split(";").map((s) => s.trim());
        const [k, v] = pair.split("=");
        if (attrs.some((a) => a === "Max-Age=0")) jar.delete(k);
        else jar.set(k, v);
      },
    };
    g.location = { href: "https://shop.example.com/landing?ref=ANN123&utm=x", protocol: "https:" };
    try {
      const b = await import("./browser.js");
      expect(b.getReferralCode()).toBeNull();
      expect(b.captureReferral()).toBe("ANN123");
      expect(written[0]).toMatch(/^rts_ref=ANN123; Max-Age=2592000; Path=\/; SameSite=Lax; Secure$/);
      // A later page without ?ref= keeps the code; a newer code replaces it unless firstTouch.
      expect(b.captureReferral({}, "https://shop.example.com/pricing")).toBe("ANN123");
      expect(b.captureReferral({ firstTouch: true }, "https://shop.example.com/?ref=BOB456")).toBe("ANN123");
      expect(b.captureReferral({}, "https://shop.example.com/?ref=BOB456")).toBe("BOB456");
      // Junk is ignored.
      expect(b.captureReferral({}, "https://shop.example.com/?ref=%3Cscript%3E")).toBe("BOB456");
      expect(b.getReferralCode()).toBe("BOB456");
      b.clearReferralCode();
      expect(b.getReferralCode()).toBeNull();
    } finally {
      delete g.document;
      delete g.location;
    }
  });

  it("stores a referral link's click id with its code, replaces both together, and fills clickId fields", async () => {
    const jar = new Map<string, string>();
    const g = globalThis as unknown as { document?: unknown; location?: unknown };
    const inputs = { referralCode: { value: "" }, clickId: { value: "" } };
    g.document = {
      get cookie() {
        return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
      },
      set cookie(line: string) {
        const [pair, ...attrs] = line.split(";").map((s) => s.trim());
        const [k, v] = pair.split("=");
        if (attrs.some((a) => a === "Max-Age=0")) jar.delete(k);
        else jar.set(k, v);
      },
      querySelectorAll: (sel: string) => (sel.includes("clickId") ? [inputs.clickId] : [inputs.referralCode]),
    };
    g.location = { href: "https://shop.example.com/welcome?ref=ANN123&rts_click=c1abc", protocol: "https:" };
    try {
      const b = await import("./browser.js");
      expect(b.captureReferral()).toBe("ANN123");
      expect(b.getClickId()).toBe("c1abc");
      expect(b.fillReferralFields()).toBe(1);
      expect(inputs).toEqual({ referralCode: { value: "ANN123" }, clickId: { value: "c1abc" } });
      // First touch keeps the first code and its click; a newer code without a click drops the old click.
      expect(b.captureReferral({ firstTouch: true }, "https://shop.example.com/?ref=BOB456&rts_click=c2")).toBe("ANN123");
      expect(b.getClickId()).toBe("c1abc");
      expect(b.captureReferral({}, "https://shop.example.com/?ref=BOB456")).toBe("BOB456");
      expect(b.getClickId()).toBeNull();
      expect(b.captureReferral({}, "https://shop.example.com/?ref=CAT789&rts_click=%3Cx%3E")).toBe("CAT789");
      expect(b.getClickId()).toBeNull();
      b.clearReferralCode();
      expect(b.getReferralCode()).toBeNull();
      // Cookie names of one's own: fillReferralFields reads the same ones.
      inputs.referralCode.value = "";
      inputs.clickId.value = "";
      const names = { cookieName: "myref", clickCookieName: "myclick" };
      expect(b.captureReferral(names, "https://shop.example.com/?ref=DEE111&rts_click=c3")).toBe("DEE111");
      expect(b.fillReferralFields("referralCode", g.document as ParentNode, "clickId", names)).toBe(1);
      expect(inputs).toEqual({ referralCode: { value: "DEE111" }, clickId: { value: "c3" } });
      // A cookie that is not percent-encoded text (another script's) is no code, not an exception.
      jar.set("rts_ref", "%E0%A4");
      expect(b.getReferralCode()).toBeNull();
    } finally {
      delete g.document;
      delete g.location;
    }
  });
});
