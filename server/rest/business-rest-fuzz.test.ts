// Property-based: every /business REST operation (the OpenAPI document lists them) answers
// hostile bodies, query strings and path ids with a 4xx in the contract's error shape, or with
// success — never a 5xx — and a 4xx writes nothing. In process: the REST face's own handler,
// a real Better Auth session, this file's migrated database. Funding routes reach the chain
// (none in this layer) and are covered by the HTTP layer.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { auth } from "../auth/better-auth";
import { bodyText, fingerprint, hostileBody, hostileString } from "../../tests/support/fuzz";
import { handleBusinessRest, openApiDocument } from "./business-rest";

/** Cases per property: a third of the full depth by default (CI time); FUZZ_SCALE=3 or more digs deeper. */
const runs = (n: number) => Math.max(10, Math.round((n * Number(process.env.FUZZ_SCALE ?? "1")) / 3));

const TABLES = ["Business", "BusinessConfig", "ReferralSettings", "Tier", "ApiKey", "Member", "TrackedEvent", "Referral", "Reward", "LedgerEntry", "Job", "Alert"];
const FIELDS = [
  "environment", "name", "allowedOrigins", "kind", "scopes", "expiresInSeconds", "businessName", "website", "rewardStrategy", "referralRewardEth",
  "bonusEth", "eventProcessing", "qualifyingEvents", "minReferrals", "maxReferralsPerReferrerPerDay", "attributionWindowDays", "blockSelfReferral",
  "blockedEmailDomains", "email", "recipient", "amountEth", "reason", "eventName", "source", "metadata", "status", "limit", "cursor", "from", "to",
];
let token = "";
let ops: Array<{ method: string; path: string }> = [];

beforeAll(async () => {
  const r = await auth.api.signUpEmail({ body: { email: "fuzz-owner@example.com", password: "correct-horse-battery", name: "Fuzz", businessName: "Fuzz Co" } as never });
  token = r.token!;
  const doc = openApiDocument() as { paths: Record<string, Record<string, unknown>> };
  ops = Object.entries(doc.paths)
    .filter(([p]) => p.startsWith("/business/") && !p.startsWith("/business/funding"))
    .flatMap(([p, methods]) => Object.keys(methods).map((m) => ({ method: m.toUpperCase(), path: p })));
});

const enc = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return "%ED%A0%80";
  }
};

describe("business REST face under fuzz", () => {
  it("lists the operations", () => expect(ops.length).toBeGreaterThan(15));

  it("never answers 5xx, and a 4xx writes nothing", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), hostileBody(FIELDS), hostileString, async (i, body, id) => {
        const op = ops[i % ops.length];
        const path = op.path.replace(/\{[^}]+\}/g, () => enc(id) || "x");
        const before = await fingerprint(TABLES);
        const hasBody = op.method !== "GET" && op.method !== "DELETE";
        const query = !hasBody && body && typeof body === "object" && !Array.isArray(body)
          ? "?" + Object.entries(body).map(([k, v]) => `${enc(k)}=${enc(String(typeof v === "object" ? JSON.stringify(v) : v))}`).join("&")
          : "";
        const res = await handleBusinessRest(
          new Request(`http://127.0.0.1${path}${query}`, {
            method: op.method,
            headers: { authorization: `Bearer ${token}`, ...(hasBody ? { "content-type": "application/json" } : {}) },
            body: hasBody ? bodyText(body) : undefined,
          }),
        );
        const b = res.status >= 400 ? ((await res.json()) as { error?: { code?: unknown; message?: unknown } }) : null;
        // The unit layer has no chain: a route that needs it answers the documented outage
        // (503 CHAIN_UNAVAILABLE, nothing written), never a crash.
        if (!(res.status === 503 && b?.error?.code === "CHAIN_UNAVAILABLE")) expect(res.status, `${op.method} ${path}`).toBeLessThan(500);
        if (b) {
          expect(typeof b.error?.code).toBe("string");
          expect(typeof b.error?.message).toBe("string");
          expect(await fingerprint(TABLES), `${op.method} ${path} ${res.status}`).toBe(before);
        }
      }),
      { numRuns: runs(300) },
    );
  }, 300_000);

  it("a query name a plain object inherits (valueOf, toString, …) is a 400 that writes nothing, not a 500", async () => {
    for (const q of ["valueOf=null", "toString=x", "hasOwnProperty=1"]) {
      const res = await handleBusinessRest(new Request(`http://127.0.0.1/business/members?${q}`, { headers: { authorization: `Bearer ${token}` } }));
      expect(res.status, q).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("VALIDATION_ERROR");
    }
  });

  it("strict types: a boolean, a string or an array is not a number; query numbers are decimal digits only", async () => {
    const call = (method: string, path: string, body?: unknown) =>
      handleBusinessRest(
        new Request(`http://127.0.0.1${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
    for (const minReferrals of [true, "7", [5]]) {
      expect((await call("POST", "/business/config/tiers", { name: "t", minReferrals, referralRewardEth: "0.01" })).status).toBe(400);
    }
    for (const v of [true, "60", [5]]) {
      const r = await call("PATCH", "/business/referrals/settings", { attributionWindowDays: v });
      expect(r.status).toBe(400);
    }
    expect((await call("GET", "/business/events?limit=0x10")).status).toBe(400);
    expect((await call("GET", "/business/events?limit=1e1")).status).toBe(400);
    expect((await call("GET", "/business/events?limit=10")).status).toBe(200);
    expect((await call("POST", "/business/config/tiers", { name: "ok", minReferrals: 7, referralRewardEth: "0.01" })).status).toBe(200);
  });

  it("NUL in a business field and a top-level __proto__ are 400", async () => {
    const r = await handleBusinessRest(
      new Request("http://127.0.0.1/business/config/general", {
        method: "PATCH",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: '{"businessName":"Acme\\u0000"}',
      }),
    );
    expect(r.status).toBe(400);
    const p = await handleBusinessRest(
      new Request("http://127.0.0.1/business/config/general", {
        method: "PATCH",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: '{"__proto__":{"businessName":"x"}}',
      }),
    );
    expect(p.status).toBe(400);
  });
});
