// The built-in provider's errors in the contract's shape, through the provider itself (a wrong
// password, a malformed body) and for its rate limit's 429 (Retry-After).
import { describe, expect, it } from "vitest";
import { auth } from "./better-auth";
import { inContractShape } from "./contract-errors";

const post = (path: string, body: unknown) =>
  auth.handler(new Request(`http://127.0.0.1:3000/api/auth${path}`, { method: "POST", headers: { "content-type": "application/json", origin: "http://127.0.0.1:3000" }, body: JSON.stringify(body) }));

describe("/api/auth errors", () => {
  it("a wrong password: 401 { error: { code: UNAUTHENTICATED, message, details.reason } }", async () => {
    const res = await inContractShape(await post("/sign-in/email", { email: "nobody@example.com", password: "wrong-password" }));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: { code: "UNAUTHENTICATED", message: expect.any(String), details: { reason: "INVALID_EMAIL_OR_PASSWORD" } } });
  });

  it("a provider code of ours with its status is kept as the code", async () => {
    const res = await inContractShape(Response.json({ code: "VALIDATION_ERROR", message: "businessName is required" }, { status: 400 }));
    expect(await res.json()).toEqual({ error: { code: "VALIDATION_ERROR", message: "businessName is required" } });
  });

  it("429: RATE_LIMITED with Retry-After (from X-Retry-After, else a default); cookies and successes untouched", async () => {
    const limited = await inContractShape(new Response(JSON.stringify({ message: "Too many requests. Please try again later." }), { status: 429, headers: { "X-Retry-After": "7" } }));
    expect(limited.headers.get("retry-after")).toBe("7");
    expect(await limited.json()).toEqual({ error: { code: "RATE_LIMITED", message: expect.stringMatching(/Retry-After/) } });
    const bare = await inContractShape(new Response(null, { status: 429 }));
    expect(Number(bare.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const ok = new Response('{"token":"t"}', { status: 200, headers: { "set-cookie": "a=b" } });
    expect(await inContractShape(ok)).toBe(ok);
    const failed = await inContractShape(new Response("<html>boom</html>", { status: 500 }));
    expect(await failed.json()).toEqual({ error: { code: "INTERNAL", message: "An internal error occurred" } });
  });
});
