// SDK wrapper over real HTTP: the three key forms and their precedence, invalid/revoked keys,
// allowedOrigins (exact and wildcard, Origin then Referer), CORS preflight, body limits,
// content types, wrong methods, and the error shape.
import { describe, expect, it } from "vitest";
import { baseUrl, createKey, request, signUp } from "../support/http";

const url = () => baseUrl();
const track = (headers: Record<string, string>, body: unknown = { eventName: "signup" }) => request(url(), "POST", "/track", body, headers);

describe("API key forms and precedence", () => {
  it("accepts x-service-api-key, x-api-key and Authorization: Bearer", async () => {
    const owner = await signUp();
    const { secret } = await createKey(owner);
    for (const h of [{ "x-service-api-key": secret }, { "x-api-key": secret }, { authorization: `Bearer ${secret}` }] as Record<string, string>[]) {
      const r = await track(h);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.success).toBe(true);
    }
  });

  it("validates the first present form: x-service-api-key, then x-api-key, then Bearer", async () => {
    const owner = await signUp();
    const { secret } = await createKey(owner);
    const bad = "rk_test_" + "x".repeat(43);
    expect((await track({ "x-service-api-key": secret, "x-api-key": bad, authorization: `Bearer ${bad}` })).status).toBe(200);
    expect((await track({ "x-service-api-key": bad, "x-api-key": secret, authorization: `Bearer ${secret}` })).status).toBe(401);
    expect((await track({ "x-api-key": secret, authorization: `Bearer ${bad}` })).status).toBe(200);
    expect((await track({ "x-api-key": bad, authorization: `Bearer ${secret}` })).status).toBe(401);
  });

  it("missing, malformed, unknown and revoked keys get one 401 INVALID_API_KEY and write nothing", async () => {
    const owner = await signUp();
    const { secret, apiKeyId } = await createKey(owner);
    for (const h of [{}, { "x-api-key": "" }, { "x-api-key": "nope" }, { authorization: "Basic abc" }, { "x-api-key": "rk_test_" + "A".repeat(43) }] as Record<string, string>[]) {
      const r = await track(h);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ error: { code: "INVALID_API_KEY", message: expect.any(String) } });
    }
    expect((await owner.call("DELETE", `/business/api-keys/${apiKeyId}`)).status).toBe(200);
    const afterRevoke = await request(url(), "POST", "/sdk/participants", { userId: "ghost" }, { "x-api-key": secret });
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.body.error.code).toBe("INVALID_API_KEY");
    // Nothing was written: a new key of the same business does not find the participant.
    const { secret: other } = await createKey(owner);
    const check = await request(url(), "POST", "/sdk/referrals/apply", { referralCode: "ghost", referredUserId: "x" }, { "x-api-key": other });
    expect(check.status).toBe(422);
  });

  it("records when a key was last used", async () => {
    const owner = await signUp();
    const { secret, apiKeyId } = await createKey(owner);
    expect((await track({ "x-api-key": secret })).status).toBe(200);
    let used: string | null = null;
    for (let i = 0; i < 20 && !used; i++) {
      const list = await owner.call("GET", "/business/api-keys");
      used = list.body.data.find((k: { apiKeyId: string }) => k.apiKeyId === apiKeyId)?.lastUsedAt ?? null;
      if (!used) await new Promise((r) => setTimeout(r, 100));
    }
    expect(used).not.toBeNull();
  });

  it("a rotated key keeps working with its old secret only during the grace period", async () => {
    const owner = await signUp();
    const { secret, apiKeyId } = await createKey(owner);
    const rotated = await owner.call("POST", `/business/api-keys/${apiKeyId}/rotate`, { expiresInSeconds: 0 });
    expect((await track({ "x-api-key": secret })).status).toBe(401);
    expect((await track({ "x-api-key": rotated.body.secret })).status).toBe(200);
  });
});

describe("allowedOrigins", () => {
  it("accepts exact and wildcard-subdomain origins, from Origin or else Referer; refuses others with 403", async () => {
    const owner = await signUp();
    const { secret } = await createKey(owner, "LIVE", { allowedOrigins: ["https://shop.example.com", "https://*.example.org", "http://localhost:5173"] });
    const k = { "x-api-key": secret };
    const ok: Record<string, string>[] = [
      { origin: "https://shop.example.com" },
      { origin: "https://a.example.org" },
      { origin: "https://deep.a.example.org" },
      { origin: "http://localhost:5173" },
      { referer: "https://shop.example.com/checkout?x=1" },
      { referer: "https://b.example.org/" },
    ];
    for (const h of ok) expect((await track({ ...k, ...h })).status, JSON.stringify(h)).toBe(200);
    const refused: Record<string, string>[] = [
      {},
      { origin: "https://evil.com" },
      { origin: "https://example.org" },
      { origin: "http://a.example.org" },
      { origin: "https://shop.example.com:8443" },
      { origin: "https://shop.example.com.evil.com" },
      { origin: "http://localhost:5174" },
      { referer: "https://evil.com/https://shop.example.com" },
      { origin: "null" },
    ];
    for (const h of refused) {
      const r = await track({ ...k, ...h });
      expect(r.status, JSON.stringify(h)).toBe(403);
      expect(r.body.error.code).toBe("ORIGIN_NOT_ALLOWED");
    }
    // Origin wins over Referer.
    expect((await track({ ...k, origin: "https://evil.com", referer: "https://shop.example.com/" })).status).toBe(403);
  });

  it("answers CORS: preflight with the key headers allowed, and Allow-Origin on responses", async () => {
    const pre = await fetch(`${url()}/track`, {
      method: "OPTIONS",
      headers: { origin: "https://shop.example.com", "access-control-request-method": "POST", "access-control-request-headers": "x-api-key, content-type" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("https://shop.example.com");
    expect(pre.headers.get("access-control-allow-methods")).toContain("POST");
    const allowed = pre.headers.get("access-control-allow-headers")!.toLowerCase();
    for (const h of ["x-api-key", "x-service-api-key", "authorization", "content-type", "idempotency-key"]) expect(allowed).toContain(h);
    for (const path of ["/sdk/referrals", "/sdk/referrals/apply", "/sdk/participants", "/track/batch", "/sdk/jobs/x"]) {
      expect((await fetch(`${url()}${path}`, { method: "OPTIONS", headers: { origin: "https://a.b" } })).status).toBe(204);
    }
    const owner = await signUp();
    const { secret } = await createKey(owner);
    const r = await fetch(`${url()}/track`, { method: "POST", headers: { "x-api-key": secret, "content-type": "application/json", origin: "https://shop.example.com" }, body: '{"eventName":"x"}' });
    expect(r.headers.get("access-control-allow-origin")).toBe("https://shop.example.com");
    expect(r.headers.get("access-control-expose-headers")).toContain("Retry-After");
  });
});

describe("bodies, methods and error shape", () => {
  it("413 over 32 KB, 415 for non-JSON, 400 for broken JSON or a non-object, 405 for a wrong method", async () => {
    const owner = await signUp();
    const { secret } = await createKey(owner);
    const k = { "x-api-key": secret };
    const big = await track(k, { eventName: "x", metadata: { blob: "a".repeat(33 * 1024) } });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    const text = await fetch(`${url()}/track`, { method: "POST", headers: { ...k, "content-type": "text/plain" }, body: "eventName=x" });
    expect(text.status).toBe(415);
    expect((await text.json()).error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const form = await fetch(`${url()}/sdk/referrals/apply`, { method: "POST", headers: k, body: new URLSearchParams({ a: "b" }) });
    expect(form.status).toBe(415);
    const broken = await track({ ...k, "content-type": "application/json" }, "{not json");
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe("INVALID_JSON");
    for (const b of ["[1,2]", '"x"', "null", ""]) {
      const r = await track({ ...k, "content-type": "application/json" }, b);
      expect(r.status, b).toBe(400);
    }
    const wrong = await request(url(), "GET", "/track", undefined, k);
    expect(wrong.status).toBe(405);
    expect(wrong.body.error.code).toBe("METHOD_NOT_ALLOWED");
    expect(wrong.headers.get("allow")).toContain("POST");
    expect((await request(url(), "DELETE", "/sdk/referrals", undefined, k)).status).toBe(405);
    expect((await request(url(), "POST", "/sdk/jobs/abc", {}, k)).status).toBe(405);
  });

  it("every SDK route requires a key", async () => {
    for (const [m, p] of [["POST", "/track"], ["POST", "/track/batch"], ["POST", "/sdk/referrals/apply"], ["GET", "/sdk/referrals"], ["POST", "/sdk/participants"], ["GET", "/sdk/jobs/abc"]]) {
      const r = await request(url(), m, p, m === "POST" ? {} : undefined);
      expect(r.status, p).toBe(401);
      expect(r.body.error.code).toBe("INVALID_API_KEY");
    }
  });

  it("sends RateLimit headers on every answer", async () => {
    const owner = await signUp();
    const { secret } = await createKey(owner);
    const r = await track({ "x-api-key": secret });
    expect(r.headers.get("ratelimit-limit")).toMatch(/^\d+$/);
    expect(r.headers.get("ratelimit-remaining")).toMatch(/^\d+$/);
    expect(r.headers.get("ratelimit")).toMatch(/limit=\d+, remaining=\d+, reset=\d+/);
  });
});
