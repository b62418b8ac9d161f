// POST /sdk/referrals/apply, GET /sdk/referrals, GET /business/api-keys/:apiKeyId/referrals and
// POST /sdk/participants over real HTTP.
import { describe, expect, it } from "vitest";
import { baseUrl, createKey, signUp, uniqueEmail } from "../support/http";
import { makeParticipant, sdkAt, waitForJob } from "./sdk-helpers";

async function setup() {
  const owner = await signUp();
  const key = await createKey(owner);
  const referrer = await makeParticipant(key.secret, { userId: "referrer-1", name: "Ref" });
  return { owner, key, referrer, call: sdkAt(baseUrl(), key.secret) };
}

describe("POST /sdk/referrals/apply", () => {
  it("referredUserId → synchronous answer; applying twice never creates a second referral", async () => {
    const { call, referrer } = await setup();
    const body = { referralCode: referrer.referralCode, referredUserId: "new-user", referredUserEmail: uniqueEmail(), referredUserName: "New", source: "mobile" };
    const r = await call("POST", "/sdk/referrals/apply", body);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, processedSynchronously: true, queued: false, referralId: expect.any(String), created: true });
    expect(r.body.referredParticipant.referralCode).toMatch(/^[A-Z2-9]{8}$/);
    const again = await call("POST", "/sdk/referrals/apply", body);
    expect(again.status).toBe(200);
    expect(again.body.referralId).toBe(r.body.referralId);
    expect(again.body.created).toBe(false);
    const concurrent = await Promise.all(Array.from({ length: 5 }, () => call("POST", "/sdk/referrals/apply", { referralCode: referrer.referralCode, referredUserId: "racer" })));
    expect(new Set(concurrent.map((c) => c.body.referralId)).size).toBe(1);
    const list = await call("GET", "/sdk/referrals");
    expect(list.body.data).toHaveLength(2);
    expect(list.body.data.find((x: { referralId: string }) => x.referralId === r.body.referralId)).toMatchObject({ source: "mobile", referred: { userId: "new-user" } });
  });

  it("only referredUserEmail → queued SDK_REFERRAL_APPLY job that records the referral", async () => {
    const { call, key, referrer } = await setup();
    const email = uniqueEmail("friend");
    const r = await call("POST", "/sdk/referrals/apply", { referralCode: referrer.referralCode, referredUserEmail: email });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({
      success: true,
      queued: true,
      jobId: expect.any(String),
      jobType: "SDK_REFERRAL_APPLY",
      message: expect.stringMatching(/referral apply.*accepted for asynchronous processing/i),
    });
    const job = await waitForJob(key.secret, r.body.jobId);
    expect(job).toMatchObject({ status: "SUCCEEDED", jobType: "SDK_REFERRAL_APPLY", result: { referralId: expect.any(String), created: true } });
    const again = await call("POST", "/sdk/referrals/apply", { referralCode: referrer.referralCode, referredUserEmail: email });
    const job2 = await waitForJob(key.secret, again.body.jobId);
    expect(job2.result).toMatchObject({ referralId: job.result.referralId, created: false });
    expect((await call("GET", "/sdk/referrals")).body.data).toHaveLength(1);
  });

  it("neither referredUserId nor referredUserEmail → 400; bad fields → 400", async () => {
    const { call, referrer } = await setup();
    for (const b of [
      { referralCode: referrer.referralCode },
      { referredUserId: "x" },
      { referralCode: referrer.referralCode, referredUserEmail: "nope" },
      { referralCode: 5, referredUserId: "x" },
      { referralCode: referrer.referralCode, referredUserId: "x", extra: 1 },
      { referralCode: referrer.referralCode, referredUserId: "" },
    ]) {
      const r = await call("POST", "/sdk/referrals/apply", b);
      expect(r.status, JSON.stringify(b)).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
  });

  it("unknown code: 422 on the synchronous path, a FAILED job with the reason on the queued path", async () => {
    const { call, key } = await setup();
    const s = await call("POST", "/sdk/referrals/apply", { referralCode: "NOPE2345", referredUserId: "u" });
    expect(s.status).toBe(422);
    expect(s.body.error.code).toBe("UNKNOWN_REFERRAL_CODE");
    const q = await call("POST", "/sdk/referrals/apply", { referralCode: "NOPE2345", referredUserEmail: uniqueEmail() });
    expect(q.status).toBe(202);
    const job = await waitForJob(key.secret, q.body.jobId);
    expect(job.status).toBe("FAILED");
    expect(job.error).toMatch(/UNKNOWN_REFERRAL_CODE/);
    expect((await call("GET", "/sdk/referrals")).body.data).toEqual([]);
  });

  it("idempotency key on apply: a repeat replays, another body → 409", async () => {
    const { call, referrer } = await setup();
    const body = { referralCode: referrer.referralCode, referredUserEmail: uniqueEmail() };
    const a = await call("POST", "/sdk/referrals/apply", body, { "idempotency-key": "apply-1" });
    const b = await call("POST", "/sdk/referrals/apply", body, { "idempotency-key": "apply-1" });
    expect(b.body.jobId).toBe(a.body.jobId);
    const c = await call("POST", "/sdk/referrals/apply", { ...body, referredUserEmail: uniqueEmail() }, { "idempotency-key": "apply-1" });
    expect(c.status).toBe(409);
  });
});

describe("GET /sdk/referrals", () => {
  it("newest first, limit default 50 clamped to 1..200, non-integer → 400, cursor pagination", async () => {
    const { call, referrer } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await call("POST", "/sdk/referrals/apply", { referralCode: referrer.referralCode, referredUserId: `u${i}` });
      ids.push(r.body.referralId);
    }
    const all = await call("GET", "/sdk/referrals");
    expect(all.status).toBe(200);
    expect(all.body.data.map((r: { referralId: string }) => r.referralId)).toEqual([...ids].reverse());
    expect(all.body.nextCursor).toBeNull();
    expect((await call("GET", "/sdk/referrals?limit=0")).body.data).toHaveLength(1);
    expect((await call("GET", "/sdk/referrals?limit=-7")).body.data).toHaveLength(1);
    expect((await call("GET", "/sdk/referrals?limit=100000")).body.data).toHaveLength(5);
    for (const bad of ["abc", "2.5", "", "1e3", "10abc"]) {
      const r = await call("GET", `/sdk/referrals?limit=${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const r: { body: { data: { referralId: string }[]; nextCursor: string | null } } = await call("GET", `/sdk/referrals?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      pages.push(...r.body.data.map((x) => x.referralId));
      cursor = r.body.nextCursor;
    } while (cursor);
    expect(pages).toEqual([...ids].reverse());
    for (const garbage of ["zzz", "Zm9vOmJhcg", "%00", "a".repeat(300)]) {
      expect((await call("GET", `/sdk/referrals?cursor=${garbage}`)).status, garbage).toBe(400);
    }
  });

  it("lists only this key's referrals; the apiKeyId survives rotation; a business route shows the same list; other businesses get 404", async () => {
    const { owner, key, referrer, call } = await setup();
    const other = await createKey(owner);
    await call("POST", "/sdk/referrals/apply", { referralCode: referrer.referralCode, referredUserId: "by-first" });
    await sdkAt(baseUrl(), other.secret)("POST", "/sdk/referrals/apply", { referralCode: referrer.referralCode, referredUserId: "by-second" });
    expect((await call("GET", "/sdk/referrals")).body.data.map((r: { referred: { userId: string } }) => r.referred.userId)).toEqual(["by-first"]);
    const rotated = await owner.call("POST", `/business/api-keys/${key.apiKeyId}/rotate`, {});
    const afterRotation = await sdkAt(baseUrl(), rotated.body.secret)("GET", "/sdk/referrals");
    expect(afterRotation.body.data.map((r: { referred: { userId: string } }) => r.referred.userId)).toEqual(["by-first"]);

    const biz = await owner.call("GET", `/business/api-keys/${key.apiKeyId}/referrals?limit=10`);
    expect(biz.status).toBe(200);
    expect(biz.body).toEqual(afterRotation.body);
    expect((await owner.call("GET", `/business/api-keys/${key.apiKeyId}/referrals?limit=x`)).status).toBe(400);
    expect((await owner.call("GET", `/business/api-keys/${key.apiKeyId}/referrals?cursor=zzz`)).status).toBe(400);
    const stranger = await signUp();
    const r = await stranger.call("GET", `/business/api-keys/${key.apiKeyId}/referrals`);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("NOT_FOUND");
  });
});

describe("POST /sdk/participants", () => {
  it("upserts by userId (else email) and returns the referral code to share", async () => {
    const owner = await signUp();
    const { secret } = await createKey(owner);
    const call = sdkAt(baseUrl(), secret);
    const a = await call("POST", "/sdk/participants", { userId: "u-1", name: "Ann", handle: "Ann_1" });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ participantId: expect.any(String), referralCode: expect.stringMatching(/^[A-Z2-9]{8}$/), handle: "ann_1", created: true });
    const again = await call("POST", "/sdk/participants", { userId: "u-1", email: "ann@example.com" });
    expect(again.body).toMatchObject({ participantId: a.body.participantId, referralCode: a.body.referralCode, email: "ann@example.com", created: false });
    const byEmail = await call("POST", "/sdk/participants", { email: "ANN@example.com" });
    expect(byEmail.body.participantId).toBe(a.body.participantId);
    const taken = await call("POST", "/sdk/participants", { userId: "u-2", handle: "ann_1" });
    expect(taken.status).toBe(409);
    for (const bad of [{}, { name: "x" }, { userId: "" }, { email: "x" }, { userId: "a", handle: "a b" }, { userId: 1 }]) {
      expect((await call("POST", "/sdk/participants", bad)).status, JSON.stringify(bad)).toBe(400);
    }
  });
});
