// Property-based: every SDK route answers hostile bodies and URLs with a 4xx in the contract's
// error shape, or with success — never a 5xx — and a 4xx writes nothing. The route functions
// run in process (the very functions app/ mounts), against this file's migrated database.
process.env.RATE_LIMIT_PER_SECOND = "100000";
process.env.RATE_LIMIT_BURST = "200000";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../domain/api-keys/service";
import { upsertParticipant } from "../domain/participants/service";
import { testBusiness } from "../../tests/support/jobs-fixtures";
import { bodyText, fingerprint, hostileBody, hostileString } from "../../tests/support/fuzz";
import * as track from "./routes/track";
import * as trackBatch from "./routes/track-batch";
import * as apply from "./routes/referrals-apply";
import * as participants from "./routes/participants";
import * as referrals from "./routes/referrals";
import * as job from "./routes/job";

/** Cases per property: a third of the full depth by default (CI time); FUZZ_SCALE=3 or more digs deeper. */
const runs = (n: number) => Math.max(10, Math.round((n * Number(process.env.FUZZ_SCALE ?? "1")) / 3));

const TABLES = ["TrackedEvent", "Participant", "Referral", "Job", "IdempotencyRecord", "Reward", "LedgerEntry"];
const FIELDS = ["eventName", "referrer", "metadata", "idempotencyKey", "source", "referralCode", "referredUserEmail", "referredUserId", "referredUserName", "campaign", "userId", "email", "name", "handle", "events"];
let secret = "";
let code = "";

beforeAll(async () => {
  const scope = await testBusiness();
  secret = (await createApiKey(scope.businessId, { environment: "TEST" })).secret;
  code = (await upsertParticipant(scope, { userId: "fuzz-referrer" })).referralCode;
});

async function expectSane(res: Response, before: string) {
  expect(res.status).toBeLessThan(500);
  if (res.status >= 400) {
    const body = (await res.json()) as { error?: { code?: unknown; message?: unknown } };
    expect(typeof body.error?.code).toBe("string");
    expect(typeof body.error?.message).toBe("string");
    expect(await fingerprint(TABLES)).toBe(before);
  }
}

/** Percent-encoding that also sends what encodeURIComponent refuses (lone surrogates as raw bytes). */
const enc = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return "%ED%A0%80" + encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, ""));
  }
};

const post = (path: string, text: string, headers: Record<string, string> = {}) =>
  new Request(`http://127.0.0.1${path}`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": secret, ...headers }, body: text });

// A valid event/apply now and then, with one hostile field, so the success path runs too.
const eventLike = fc.oneof(
  hostileBody(FIELDS),
  fc.record({ eventName: fc.constantFrom("purchase", "sign up"), metadata: hostileBody(["referredUserEmail", "campaign", "note"]) }),
  fc.record({ eventName: hostileString, referrer: fc.constant("x") }),
);

describe("SDK routes under fuzz", () => {
  it("POST /track", async () => {
    await fc.assert(
      fc.asyncProperty(eventLike, async (body) => {
        const before = await fingerprint(TABLES);
        await expectSane(await track.POST(post("/track", bodyText(body))), before);
      }),
      { numRuns: runs(100) },
    );
  }, 180_000);

  it("POST /track/batch: a bad event fails alone", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(eventLike, { minLength: 1, maxLength: 5 }), async (events) => {
        const before = await fingerprint(TABLES);
        const res = await trackBatch.POST(post("/track/batch", bodyText({ events: [...events, { eventName: "fuzz-ok" }] })));
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) return expectSane(res, before);
        const out = (await res.json()) as { results: Array<{ success: boolean; error?: { code: string } }> };
        expect(out.results.at(-1)?.success).toBe(true); // the good event is not dragged down
        for (const r of out.results) if (!r.success) expect(r.error?.code).not.toBe("INTERNAL");
      }),
      { numRuns: runs(60) },
    );
  }, 180_000);

  it("POST /sdk/referrals/apply and POST /sdk/participants", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(hostileBody(FIELDS), fc.record({ referralCode: fc.constant(code), referredUserId: hostileString, source: hostileString })),
        async (body) => {
          const before = await fingerprint(TABLES);
          await expectSane(await apply.POST(post("/sdk/referrals/apply", bodyText(body))), before);
          const mid = await fingerprint(TABLES);
          await expectSane(await participants.POST(post("/sdk/participants", bodyText(body))), mid);
        },
      ),
      { numRuns: runs(80) },
    );
  }, 180_000);

  it("GET /sdk/referrals and /sdk/jobs/:jobId with hostile query and path", async () => {
    await fc.assert(
      fc.asyncProperty(hostileString, hostileString, async (a, b) => {
        const before = await fingerprint(TABLES);
        const q = `limit=${enc(a)}&cursor=${enc(b)}`;
        const get = (path: string) => new Request(`http://127.0.0.1${path}`, { headers: { "x-api-key": secret } });
        await expectSane(await referrals.GET(get(`/sdk/referrals?${q}`)), before);
        await expectSane(await job.GET(get(`/sdk/jobs/${enc(a)}`)), before);
      }),
      { numRuns: runs(80) },
    );
  }, 180_000);

  it("the attacks of the review: NUL, deep metadata, __proto__ → 400", async () => {
    const cases = [
      `{"eventName":"purchase","source":"a\\u0000b"}`,
      `{"eventName":"purchase","metadata":{"deep":${"[".repeat(16_000)}${"]".repeat(16_000)}}}`,
      `{"eventName":"purchase","metadata":${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}}`,
      `{"eventName":"purchase","metadata":{"__proto__":{"x":1}}}`,
      `{"eventName":"purchase","metadata":{"bad":"\\ud800"}}`,
    ];
    for (const text of cases) {
      const res = await track.POST(post("/track", text));
      expect(res.status, text.slice(0, 60)).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("VALIDATION_ERROR");
    }
    const batch = await trackBatch.POST(post("/track/batch", `{"events":[{"eventName":"ok"},{"eventName":"x","metadata":{"d":${"[".repeat(16_000)}${"]".repeat(16_000)}}},{"eventName":"n\\u0000"}]}`));
    expect(batch.status).toBe(200);
    const out = (await batch.json()) as { results: Array<{ success: boolean; error?: { code: string } }> };
    expect(out.results.map((r) => r.success)).toEqual([true, false, false]);
    expect(out.results[1].error?.code).toBe("VALIDATION_ERROR");
  }, 60_000);
});
