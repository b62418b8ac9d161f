// Publishable and secret keys, and scopes, through the very SDK route functions app/ mounts.
process.env.RATE_LIMIT_PER_SECOND = "100000";
process.env.RATE_LIMIT_BURST = "200000";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../db/client";
import { createApiKeyInput } from "../domain/api-keys/schemas";
import { createApiKey, rotateApiKey } from "../domain/api-keys/service";
import { creditLedger } from "../domain/ledger/service";
import { upsertParticipant } from "../domain/participants/service";
import { ethToWei, weiToDb } from "../shared/money";
import { testBusiness } from "../../tests/support/jobs-fixtures";
import * as track from "./routes/track";
import * as trackBatch from "./routes/track-batch";
import * as apply from "./routes/referrals-apply";
import * as participants from "./routes/participants";
import * as referrals from "./routes/referrals";
import * as job from "./routes/job";

const SITE = "https://shop.example.com";
let businessId = "";
let pub = "";
let pubId = "";
let code = "";

beforeAll(async () => {
  const scope = await testBusiness();
  businessId = scope.businessId;
  await db.businessConfig.create({ data: { businessId, eventProcessing: "SYNC", referralRewardWei: weiToDb(ethToWei("0.01")), bonusWei: weiToDb(ethToWei("0.005")) } });
  await db.$transaction((tx) => creditLedger(tx, { businessId, environment: "TEST", amountWei: ethToWei("1"), kind: "FUNDING" }));
  const k = await createApiKey(businessId, { environment: "TEST", kind: "PUBLISHABLE", allowedOrigins: [SITE] });
  pub = k.secret;
  pubId = k.apiKeyId;
  code = (await upsertParticipant(scope, { userId: "alice" })).referralCode;
});

interface Answer {
  error: { code: string };
  status: string;
  reason: string | null;
  eventId: string;
  referralId: string;
}

const call = (fn: (r: Request) => Promise<Response>, method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}) =>
  fn(
    new Request(`http://127.0.0.1${path}`, {
      method,
      headers: { "x-api-key": key, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  ).then(async (r) => ({ status: r.status, body: (await r.json()) as Answer }));

describe("publishable keys", () => {
  it("start with rk_pub_test_ / rk_pub_live_ and need allowedOrigins", async () => {
    expect(pub).toMatch(/^rk_pub_test_[0-9A-Za-z]{43}$/);
    const live = await createApiKey(businessId, { environment: "LIVE", kind: "PUBLISHABLE", allowedOrigins: [SITE] });
    expect(live.secret).toMatch(/^rk_pub_live_/);
    expect(live).toMatchObject({ kind: "PUBLISHABLE", scopes: ["track", "referrals:write"] });
    expect(createApiKeyInput.safeParse({ environment: "TEST", kind: "PUBLISHABLE" }).success).toBe(false);
    expect(createApiKeyInput.safeParse({ environment: "TEST", kind: "PUBLISHABLE", allowedOrigins: [] }).success).toBe(false);
    expect(createApiKeyInput.parse({ environment: "TEST" }).kind).toBe("SECRET");
    // The database holds the rule too.
    await expect(db.apiKey.create({ data: { businessId, environment: "TEST", kind: "PUBLISHABLE", keyHash: "h1", prefix: "p" } })).rejects.toThrow();
    await expect(db.apiKey.create({ data: { businessId, environment: "TEST", kind: "PUBLISHABLE", keyHash: "h2", prefix: "p", allowedOrigins: [SITE], scopes: ["referrals:read"] } })).rejects.toThrow();
  });

  it("may only call POST /track, POST /track/batch and POST /sdk/referrals/apply; else 403 INSUFFICIENT_SCOPE", async () => {
    const o = { origin: SITE };
    expect((await call(track.POST, "POST", "/track", pub, { eventName: "view" }, o)).status).toBe(200);
    expect((await call(trackBatch.POST, "POST", "/track/batch", pub, { events: [{ eventName: "view" }] }, o)).status).toBe(200);
    expect((await call(apply.POST, "POST", "/sdk/referrals/apply", pub, { referralCode: code, referredUserId: "bob" }, o)).status).toBe(200);
    for (const r of [
      await call(referrals.GET, "GET", "/sdk/referrals", pub, undefined, o),
      await call(participants.POST, "POST", "/sdk/participants", pub, { email: "x@example.com" }, o),
      await call(job.GET, "GET", "/sdk/jobs/anything", pub, undefined, o),
      // without an Origin too: the scope answers first
      await call(referrals.GET, "GET", "/sdk/referrals", pub),
    ]) {
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe("INSUFFICIENT_SCOPE");
    }
  });

  it("refuses Origin: null and a foreign Origin", async () => {
    for (const origin of ["null", "https://evil.example"]) {
      const r = await call(track.POST, "POST", "/track", pub, { eventName: "view" }, { origin, referer: `${SITE}/page` });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe("ORIGIN_NOT_ALLOWED");
    }
  });

  it("records untrusted events: never qualifies nor pays (a secret key's later event does)", async () => {
    const body = { eventName: "purchase", referrer: code, metadata: { referredUserEmail: "carol@example.com" } };
    const r = await call(track.POST, "POST", "/track", pub, body, { origin: SITE });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "PROCESSED", reason: "UNTRUSTED_EVENT" });
    expect(await db.trackedEvent.findUniqueOrThrow({ where: { id: r.body.eventId } })).toMatchObject({ untrusted: true, apiKeyId: pubId });
    expect(await db.reward.count({ where: { businessId } })).toBe(0);
    expect((await db.referral.findUniqueOrThrow({ where: { id: r.body.referralId } })).status).toBe("PENDING");

    const secret = (await createApiKey(businessId, { environment: "TEST" })).secret;
    const s = await call(track.POST, "POST", "/track", secret, body);
    expect(s.status).toBe(200);
    expect(s.body.reason).toBeNull();
    expect(await db.reward.count({ where: { businessId, status: "PAID" } })).toBeGreaterThan(0);
  });

  it("a rotated publishable key stays publishable", async () => {
    const r = await rotateApiKey(businessId, pubId, 0);
    expect(r.secret).toMatch(/^rk_pub_test_/);
    pub = r.secret;
    expect((await call(referrals.GET, "GET", "/sdk/referrals", pub, undefined, { origin: SITE })).body.error.code).toBe("INSUFFICIENT_SCOPE");
  });
});

describe("secret key scopes", () => {
  it("default to all; a call outside them is 403 INSUFFICIENT_SCOPE", async () => {
    const all = await createApiKey(businessId, { environment: "TEST" });
    expect(all.scopes).toEqual(["track", "referrals:write", "referrals:read", "participants:write", "jobs:read", "rewards:write"]);
    const onlyTrack = await createApiKey(businessId, { environment: "TEST", scopes: ["track"] });
    expect((await call(track.POST, "POST", "/track", onlyTrack.secret, { eventName: "view" })).status).toBe(200);
    for (const r of [
      await call(apply.POST, "POST", "/sdk/referrals/apply", onlyTrack.secret, { referralCode: code, referredUserId: "dan" }),
      await call(referrals.GET, "GET", "/sdk/referrals", onlyTrack.secret),
      await call(participants.POST, "POST", "/sdk/participants", onlyTrack.secret, { userId: "u" }),
      await call(job.GET, "GET", "/sdk/jobs/x", onlyTrack.secret),
    ]) {
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe("INSUFFICIENT_SCOPE");
    }
    const reader = await createApiKey(businessId, { environment: "TEST", scopes: ["referrals:read", "jobs:read"] });
    expect((await call(referrals.GET, "GET", "/sdk/referrals", reader.secret)).status).toBe(200);
    expect((await call(track.POST, "POST", "/track", reader.secret, { eventName: "view" })).status).toBe(403);
    expect(createApiKeyInput.safeParse({ environment: "TEST", scopes: ["admin"] }).success).toBe(false);
    expect(createApiKeyInput.safeParse({ environment: "TEST", scopes: [] }).success).toBe(false);
    expect(createApiKeyInput.safeParse({ environment: "TEST", kind: "PUBLISHABLE", allowedOrigins: [SITE], scopes: ["track"] }).success).toBe(false);
  });
});
