// Hardening (issue 10), findings 1 and 2, against an app with Better Auth's own rate limit ON:
// garbage session cookies must never starve other users (sessions are resolved in process, not
// through the provider's shared HTTP rate limit), and a forged X-Forwarded-For must not move a
// brute-force attempt into a fresh sign-in bucket (the client IP comes from the socket peer and
// TRUSTED_PROXIES only).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app";
import { request, signUp, type Owner } from "../support/http";

let app: RunningApp;
let owner: Owner;

beforeAll(async () => {
  app = await startApp({ AUTH_RATE_LIMIT: "1" });
  owner = await signUp({ url: app.url });
});

afterAll(async () => {
  await app?.stop();
});

describe("session resolution cannot be starved", () => {
  it("150 garbage-cookie requests, then a real user's request is 200", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      const round = await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          request(app.url, "GET", "/business/me", undefined, { cookie: `better-auth.session_token=garbage-${i}-${j}.sig` }).then((r) => r.status),
        ),
      );
      statuses.push(...round);
    }
    expect(statuses.filter((s) => s !== 401)).toEqual([]);
    const me = await owner.call("GET", "/business/me");
    expect(me.status).toBe(200);
    // tRPC (the dashboard's path) resolves the same way.
    const trpc = await request(app.url, "GET", "/api/trpc/me.get", undefined, { authorization: `Bearer ${owner.token}` });
    expect(trpc.status).not.toBe(503);
  });

  it("many signed-in reads in parallel never produce a 503", async () => {
    const rs: number[] = [];
    for (let wave = 0; wave < 4; wave++) {
      rs.push(...(await Promise.all(Array.from({ length: 40 }, () => owner.call("GET", "/business/me").then((r) => r.status)))));
    }
    expect(rs.filter((s) => s !== 200)).toEqual([]);
  }, 180_000);
});

describe("sign-in brute-force limit", () => {
  it("a different X-Forwarded-For per attempt does not bypass it", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const r = await request(
        app.url,
        "POST",
        "/api/auth/sign-in/email",
        { email: owner.email, password: `wrong-password-${i}` },
        { origin: app.url, "x-forwarded-for": `203.0.113.${i + 1}`, "x-real-ip": `198.51.100.${i + 1}`, "x-rts-client-ip": `192.0.2.${i + 1}` },
      );
      statuses.push(r.status);
    }
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(25);
  });
});
