// Hardening (issue 10) over HTTP: the review's attacks on the real build — bad input is a 400
// (never a 500) on SDK and business routes, a small property-based fuzz, publishable keys and
// scopes, wildcard origins, Origin: null, and CSRF on cookie-authenticated mutations.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { bodyText, hostileBody } from "../support/fuzz";
import { baseUrl, createKey, request, sdk, signUp, type Owner } from "../support/http";

let owner: Owner;
let secret = "";

beforeAll(async () => {
  owner = await signUp();
  secret = (await createKey(owner, "TEST")).secret;
});

const raw = (method: string, path: string, text: string, headers: Record<string, string>) =>
  request(baseUrl(), method, path, text, { "content-type": "application/json", ...headers });

describe("bad input is a 400, never a 500", () => {
  it("NUL in text fields of SDK routes", async () => {
    const p = await sdk(secret, "POST", "/sdk/participants", { userId: "ref-1" });
    const code = p.body.referralCode;
    const cases: Array<[string, string]> = [
      ["/track", '{"eventName":"purchase","source":"a\\u0000b"}'],
      ["/track", '{"eventName":"purchase","metadata":{"note":"\\u0000"}}'],
      ["/sdk/referrals/apply", `{"referralCode":"${code}","referredUserId":"u\\u0000"}`],
      ["/sdk/participants", '{"userId":"x","name":"N\\u0000"}'],
      ["/track", '{"eventName":"purchase","metadata":{"__proto__":{"a":1}}}'],
      ["/track", `{"eventName":"purchase","metadata":{"d":${"[".repeat(16_000)}${"]".repeat(16_000)}}}`],
      ["/track", `{"eventName":"purchase","metadata":${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}}`],
    ];
    for (const [path, text] of cases) {
      const r = await raw("POST", path, text, { "x-api-key": secret });
      expect(r.status, `${path} ${text.slice(0, 50)}`).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
  });

  it("/track/batch: a bad event fails alone", async () => {
    const deep = "[".repeat(16_000) + "]".repeat(16_000);
    const r = await raw("POST", "/track/batch", `{"events":[{"eventName":"ok"},{"eventName":"x","metadata":{"d":${deep}}},{"eventName":"s","source":"\\u0000"}]}`, { "x-api-key": secret });
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: { success: boolean }) => x.success)).toEqual([true, false, false]);
    expect(r.body.results[1].error.code).toBe("VALIDATION_ERROR");
  });

  it("NUL in business fields, strict types on the REST face", async () => {
    const h = { authorization: `Bearer ${owner.token}` };
    expect((await raw("PATCH", "/business/config/general", '{"businessName":"A\\u0000"}', h)).status).toBe(400);
    expect((await raw("POST", "/business/config/tiers", '{"name":"T\\u0000","minReferrals":1,"referralRewardEth":"0.01"}', h)).status).toBe(400);
    const k = await createKey(owner, "TEST");
    for (const v of ["true", '"60"', "[5]"]) {
      const r = await raw("POST", `/business/api-keys/${k.apiKeyId}/rotate`, `{"expiresInSeconds":${v}}`, h);
      expect(r.status, v).toBe(400);
    }
    expect((await raw("POST", "/business/config/tiers", '{"name":"T","minReferrals":"7","referralRewardEth":"0.01"}', h)).status).toBe(400);
    expect((await owner.call("GET", "/business/events?limit=0x10")).status).toBe(400);
    expect((await owner.call("GET", "/business/events?limit=16")).status).toBe(200);
  });

  it("dates the database cannot hold (year 0, a day that does not exist, a range ending in year 10000) are a 400 on every route that takes one", async () => {
    const rule = { eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "5" };
    const calls: Array<[string, string, unknown?]> = [
      ["GET", "/business/analytics?environment=TEST&from=0000-06-01&to=0000-06-10"],
      ["GET", "/business/analytics?environment=TEST&from=2026-02-30"],
      ["GET", "/business/analytics/funnel?environment=TEST&from=0000-06-01&to=0000-06-10"],
      // The last day of year 9999: its range would end in year 10000.
      ["GET", "/business/analytics?environment=TEST&from=9999-12-31&to=9999-12-31"],
      ["GET", "/business/analytics/commissions?environment=TEST&from=9999-12-31&to=9999-12-31"],
      ["GET", "/business/analytics/funnel?environment=TEST&from=9999-12-30&to=9999-12-31"],
      ["GET", "/business/events?environment=TEST&from=0000-06-01"],
      ["GET", "/business/rewards?environment=TEST&to=0000-06-01T00:00:00Z"],
      ["GET", "/business/referrals?environment=TEST&from=0000-06-01"],
      ["POST", "/business/commission-rules/simulate", { environment: "TEST", rule, from: "0000-06-01", to: "0000-12-01" }],
      ["POST", "/business/commission-rules/simulate", { environment: "TEST", rule, from: "0001-01-01T00:00:00+01:00", to: "0001-06-01" }],
    ];
    for (const [method, path, body] of calls) {
      const r = await owner.call(method, path, body);
      expect(r.status, `${method} ${path} ${JSON.stringify(body ?? "")}`).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
  });

  it("an export kind that does not exist is a 404, names of Object.prototype included", async () => {
    for (const kind of ["nope", "constructor", "toString", "__proto__", "hasOwnProperty"]) {
      const r = await owner.call("GET", `/api/export/${kind}?environment=TEST`);
      expect(r.status, kind).toBe(404);
      expect(r.body.error.code).toBe("NOT_FOUND");
    }
  });

  it("an oversized body to the dashboard's tRPC or the sign-up route is a 413 before it is parsed, signed in or not; a batch of too many calls is a 400", async () => {
    const big = JSON.stringify({ 0: { json: { name: "x".repeat(100 * 1024) } } });
    for (const headers of [{}, { authorization: `Bearer ${owner.token}` }] as Record<string, string>[]) {
      const r = await raw("POST", "/api/trpc/apiKeys.create?batch=1", big, { origin: baseUrl(), ...headers });
      expect(r.status).toBe(413);
      expect(r.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    }
    const signUpBig = await raw("POST", "/api/auth/sign-up/email", JSON.stringify({ email: "big@example.com", password: "password-1", name: "n", businessName: "x".repeat(20 * 1024) }), { origin: baseUrl() });
    expect(signUpBig.status).toBe(413);
    const longName = await raw("POST", "/api/auth/sign-up/email", JSON.stringify({ email: `long-${Date.now()}@example.com`, password: "password-1", name: "n".repeat(101), businessName: "B" }), { origin: baseUrl() });
    expect(longName.status).toBe(400);
    const calls = Array.from({ length: 26 }, () => "me.get").join(",");
    const batch = await request(baseUrl(), "GET", `/api/trpc/${calls}?batch=1`, undefined, { authorization: `Bearer ${owner.token}` });
    expect(batch.status, JSON.stringify(batch.body).slice(0, 300)).toBe(400);
    // The dashboard's own sizes still pass.
    const ok = await request(baseUrl(), "GET", `/api/trpc/me.get,me.get?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: {}, 1: {} }))}`, undefined, { authorization: `Bearer ${owner.token}` });
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(200);
  });

  it("an export filter with a NUL or another control character is a 400 before any line is sent, as the list routes answer it", async () => {
    for (const path of ["/api/export/audit-log?actor=%00", "/api/export/events?environment=TEST&eventName=a%00b", "/api/export/referrals?environment=TEST&q=%01"]) {
      const r = await owner.call("GET", path);
      expect(r.status, path).toBe(400);
      expect(r.body.error.code, path).toBe("VALIDATION_ERROR");
    }
  });

  it("fuzz: 4xx with the error shape or success, never 5xx (SDK and business)", async () => {
    const targets: Array<[string, string, Record<string, string>]> = [
      ["POST", "/track", { "x-api-key": secret }],
      ["POST", "/track/batch", { "x-api-key": secret }],
      ["POST", "/sdk/referrals/apply", { "x-api-key": secret }],
      ["POST", "/sdk/participants", { "x-api-key": secret }],
      ["PATCH", "/business/config/general", { authorization: `Bearer ${owner.token}` }],
      ["POST", "/business/config/tiers", { authorization: `Bearer ${owner.token}` }],
      ["POST", "/business/api-keys", { authorization: `Bearer ${owner.token}` }],
      ["PATCH", "/business/referrals/settings", { authorization: `Bearer ${owner.token}` }],
    ];
    const fields = ["eventName", "metadata", "events", "referralCode", "referredUserId", "userId", "email", "name", "businessName", "minReferrals", "environment", "kind", "allowedOrigins", "scopes", "attributionWindowDays"];
    await fc.assert(
      fc.asyncProperty(fc.nat(), hostileBody(fields), async (i, body) => {
        const [method, path, headers] = targets[i % targets.length];
        const r = await raw(method, path, bodyText(body), headers);
        expect(r.status, `${method} ${path}`).toBeLessThan(500);
        if (r.status >= 400) {
          expect(typeof r.body.error.code).toBe("string");
          expect(typeof r.body.error.message).toBe("string");
        }
      }),
      { numRuns: 120 },
    );
  });
});

describe("publishable keys and scopes", () => {
  it("POST /business/api-keys kind PUBLISHABLE: prefix, origins required, only three routes", async () => {
    expect((await owner.call("POST", "/business/api-keys", { environment: "TEST", kind: "PUBLISHABLE" })).status).toBe(400);
    const c = await owner.call("POST", "/business/api-keys", { environment: "LIVE", kind: "PUBLISHABLE", allowedOrigins: ["https://shop.example.com"] });
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ kind: "PUBLISHABLE" });
    expect(c.body.secret).toMatch(/^rk_pub_live_/);
    const t = await owner.call("POST", "/business/api-keys", { environment: "TEST", kind: "PUBLISHABLE", allowedOrigins: ["https://shop.example.com"] });
    const pub = t.body.secret as string;
    expect(pub).toMatch(/^rk_pub_test_/);
    const o = { origin: "https://shop.example.com" };
    expect((await sdk(pub, "POST", "/track", { eventName: "view" }, o)).status).toBe(200);
    expect((await sdk(pub, "POST", "/track/batch", { events: [{ eventName: "view" }] }, o)).status).toBe(200);
    for (const [m, p, b] of [["GET", "/sdk/referrals", undefined], ["POST", "/sdk/participants", { email: "a@example.com" }], ["GET", "/sdk/jobs/x", undefined]] as const) {
      const r = await sdk(pub, m, p, b, o);
      expect(r.status, p).toBe(403);
      expect(r.body.error.code).toBe("INSUFFICIENT_SCOPE");
    }
    // Origin: null is refused for a restricted key, even with a good Referer
    const n = await sdk(pub, "POST", "/track", { eventName: "view" }, { origin: "null", referer: "https://shop.example.com/x" });
    expect(n.status).toBe(403);
    const list = await owner.call("GET", "/business/api-keys");
    expect(list.body.data.map((k: { kind: string }) => k.kind)).toContain("PUBLISHABLE");
  });

  it("secret keys take scopes", async () => {
    const k = await createKey(owner, "TEST", { scopes: ["track"] });
    expect((await sdk(k.secret, "POST", "/track", { eventName: "view" })).status).toBe(200);
    const r = await sdk(k.secret, "GET", "/sdk/referrals");
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("INSUFFICIENT_SCOPE");
  });

  it("wildcards must sit under a registrable domain", async () => {
    expect((await owner.call("POST", "/business/api-keys", { environment: "TEST", allowedOrigins: ["https://*.com"] })).status).toBe(400);
    expect((await owner.call("POST", "/business/api-keys", { environment: "TEST", allowedOrigins: ["https://*.example.com"] })).status).toBe(200);
  });
});

describe("CSRF", () => {
  it("cookie-authenticated mutations from another site are 403 CSRF (REST and tRPC)", async () => {
    const signIn = await fetch(`${baseUrl()}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: baseUrl() },
      body: JSON.stringify({ email: owner.email, password: "correct-horse-battery" }),
    });
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0];
    expect(cookie).toContain("session_token");
    for (const h of [{ origin: "https://evil.example" }, { "sec-fetch-site": "cross-site" }] as Array<Record<string, string>>) {
      const r = await raw("PATCH", "/business/config/general", '{"businessName":"Pwned"}', { cookie, ...h });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe("CSRF");
      const t = await raw("POST", "/api/trpc/config.updateGeneral", '{"businessName":"Pwned"}', { cookie, ...h });
      expect(t.status).toBe(403);
    }
    const ok = await raw("PATCH", "/business/config/general", '{"businessName":"Fine"}', { cookie, origin: baseUrl(), "sec-fetch-site": "same-origin" });
    expect(ok.status).toBe(200);
  });
});
