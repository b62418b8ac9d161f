// The session provider is external by design: AUTH_URL points /business session lookups at
// any service that answers GET /api/auth/get-session. Here a tiny provider started by the test
// stands in for it, and a separate app instance is pointed at it.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app";
import { request } from "../support/http";

const USERS: Record<string, { id: string; email: string; role: string } | null> = {
  "Bearer plain-user": { id: "ext-user-1", email: "plain@example.com", role: "USER" },
  "Bearer business-no-membership": { id: "ext-user-2", email: "biz@example.com", role: "BUSINESS" },
  "Bearer nobody": null,
  "Bearer cache-me": { id: "ext-user-3", email: "cache@example.com", role: "BUSINESS" },
};

let provider: http.Server;
let app: RunningApp;
const seen: Array<{ path: string; authorization?: string; cookie?: string; forwardedFor?: string }> = [];

beforeAll(async () => {
  provider = http.createServer((req, res) => {
    seen.push({ path: req.url ?? "", authorization: req.headers.authorization, cookie: req.headers.cookie, forwardedFor: req.headers["x-forwarded-for"] as string | undefined });
    if (req.url !== "/api/auth/get-session") {
      res.writeHead(404).end();
      return;
    }
    const user = USERS[req.headers.authorization ?? ""] ?? null;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(user ? { session: { id: "s", userId: user.id }, user } : null));
  });
  await new Promise<void>((r) => provider.listen(0, "127.0.0.1", () => r()));
  const port = (provider.address() as AddressInfo).port;
  app = await startApp({ AUTH_URL: `http://127.0.0.1:${port}` });
});

afterAll(async () => {
  await app?.stop();
  await new Promise((r) => provider?.close(r));
});

describe("external session provider (AUTH_URL)", () => {
  it("a user without the BUSINESS role gets 403 FORBIDDEN", async () => {
    const r = await request(app.url, "GET", "/business/config", undefined, { authorization: "Bearer plain-user" });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: { code: "FORBIDDEN", message: expect.any(String) } });
    expect(seen.some((s) => s.path === "/api/auth/get-session" && s.authorization === "Bearer plain-user")).toBe(true);
  });

  it("a BUSINESS user who belongs to no business gets 403 FORBIDDEN", async () => {
    const r = await request(app.url, "POST", "/business/api-keys", { environment: "TEST" }, { authorization: "Bearer business-no-membership" });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("FORBIDDEN");
  });

  it("no session from the provider is 401, and the cookie is forwarded", async () => {
    const r = await request(app.url, "GET", "/business/members", undefined, { authorization: "Bearer nobody", cookie: "better-auth.session_token=abc" });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe("UNAUTHENTICATED");
    expect(seen.at(-1)?.cookie).toContain("better-auth.session_token=abc");
  });

  it("forwards the caller's own address (never a forged X-Forwarded-For) and caches positive lookups briefly", async () => {
    const before = seen.length;
    const h = { authorization: "Bearer cache-me", "x-forwarded-for": "203.0.113.9" };
    const first = await request(app.url, "GET", "/business/config", undefined, h);
    const second = await request(app.url, "GET", "/business/config", undefined, h);
    expect([first.status, second.status]).toEqual([403, 403]);
    const lookups = seen.slice(before);
    expect(lookups).toHaveLength(1); // the second answer came from the (≤ 5 s) cache
    expect(lookups[0].forwardedFor).toBe("127.0.0.1");
  });

  it("negative lookups are not cached", async () => {
    const before = seen.length;
    await request(app.url, "GET", "/business/config", undefined, { authorization: "Bearer nobody" });
    await request(app.url, "GET", "/business/config", undefined, { authorization: "Bearer nobody" });
    expect(seen.length - before).toBe(2);
  });

  it("a provider that is down is a 503, not a 500", async () => {
    const down = await startApp({ AUTH_URL: "http://127.0.0.1:9" });
    try {
      const r = await request(down.url, "GET", "/business/config", undefined, { authorization: "Bearer x" });
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe("SERVICE_UNAVAILABLE");
    } finally {
      await down.stop();
    }
  });
});
