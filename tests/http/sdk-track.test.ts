// POST /track and /track/batch over real HTTP: sync and queued shapes, the AUTO/SYNC/ASYNC
// rule, the referral pipeline, idempotency, validation, and TEST/LIVE separation.
import { describe, expect, it } from "vitest";
import { baseUrl, createKey, signUp, uniqueEmail } from "../support/http";
import { makeParticipant, sdkAt, setEventProcessing, waitForJob } from "./sdk-helpers";

async function setup(env: "TEST" | "LIVE" = "TEST") {
  const owner = await signUp();
  const key = await createKey(owner, env);
  return { owner, key, call: sdkAt(baseUrl(), key.secret) };
}

const SYNC_SHAPE = { success: true, processedSynchronously: true, queued: false };

describe("POST /track: sync and queued", () => {
  it("AUTO: no referredUserEmail → processed synchronously, with eventId", async () => {
    const { call } = await setup();
    const r = await call("POST", "/track", { eventName: "page_view", source: "web", metadata: { campaign: "spring" } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ...SYNC_SHAPE, eventId: expect.any(String), status: "PROCESSED" });
    expect(r.body).not.toHaveProperty("jobId");
  });

  it("AUTO: metadata.referredUserEmail → queued EVENT_PROCESS job that creates the referred participant and the referral", async () => {
    const { call, key } = await setup();
    const referrer = await makeParticipant(key.secret, { userId: "ref-1", handle: "alice-" + Date.now().toString(36) });
    const email = uniqueEmail("bob");
    const r = await call("POST", "/track", { eventName: "signup", referrer: referrer.referralCode.toLowerCase(), metadata: { referredUserEmail: email, campaign: "c1" }, source: "app" });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({
      success: true,
      queued: true,
      jobId: expect.any(String),
      jobType: "EVENT_PROCESS",
      message: expect.stringMatching(/event.*accepted for asynchronous processing/i),
      eventId: expect.any(String),
    });
    const job = await waitForJob(key.secret, r.body.jobId);
    expect(job).toMatchObject({ jobId: r.body.jobId, jobType: "EVENT_PROCESS", status: "SUCCEEDED", attempts: 1, error: null });
    expect(job.result.eventId).toBe(r.body.eventId);
    expect(job.result.referredParticipant.referralCode).toMatch(/^[A-Z2-9]{8}$/);
    const list = await call("GET", "/sdk/referrals");
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ referralId: job.result.referralId, source: "app", campaign: "c1", referrer: { participantId: referrer.participantId }, referred: { email } });
    // The referred user is a participant with a code of their own: it can refer in turn.
    const next = await call("POST", "/track", { eventName: "signup", referrer: job.result.referredParticipant.referralCode });
    expect(next.status).toBe(200);
  });

  it("the referrer may be given by handle; an unknown referrer is 422 on the sync path and writes nothing", async () => {
    const { call, key } = await setup();
    const handle = "h" + Date.now().toString(36);
    await makeParticipant(key.secret, { email: uniqueEmail(), handle });
    const ok = await call("POST", "/track", { eventName: "click", referrer: handle.toUpperCase() });
    expect(ok.status).toBe(200);
    const bad = await call("POST", "/track", { eventName: "click", referrer: "NOSUCHCODE", idempotencyKey: "k-unknown" });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("UNKNOWN_REFERRAL_CODE");
    // The refused request stored nothing: its idempotency key is free for a corrected request.
    const retry = await call("POST", "/track", { eventName: "click", referrer: handle, idempotencyKey: "k-unknown" });
    expect(retry.status).toBe(200);
  });

  it("a queued event with an unknown referrer ends REJECTED with its reason; the job FAILED", async () => {
    const { call, key } = await setup();
    const r = await call("POST", "/track", { eventName: "signup", referrer: "ZZZZZZZZ", metadata: { referredUserEmail: uniqueEmail() } });
    expect(r.status).toBe(202);
    const job = await waitForJob(key.secret, r.body.jobId);
    expect(job.status).toBe("FAILED");
    expect(job.error).toContain("UNKNOWN_REFERRAL_CODE");
    expect(job.attempts).toBe(1);
  });

  it("SYNC and ASYNC settings override AUTO", async () => {
    const { call, owner } = await setup();
    await setEventProcessing(owner, "SYNC");
    const s = await call("POST", "/track", { eventName: "signup", metadata: { referredUserEmail: uniqueEmail() } });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ ...SYNC_SHAPE, referredParticipant: { referralCode: expect.any(String) } });
    await setEventProcessing(owner, "ASYNC");
    const a = await call("POST", "/track", { eventName: "page_view" });
    expect(a.status).toBe(202);
    expect(a.body).toMatchObject({ success: true, queued: true, jobType: "EVENT_PROCESS" });
  });
});

describe("POST /track: validation", () => {
  it("rejects bad input with 400 VALIDATION_ERROR and field details", async () => {
    const { call } = await setup();
    const bad: unknown[] = [
      {},
      { eventName: 42 },
      { eventName: "" },
      { eventName: "x".repeat(101) },
      { eventName: "<script>" },
      { eventName: "a", referrer: 7 },
      { eventName: "a", metadata: "str" },
      { eventName: "a", metadata: [1] },
      { eventName: "a", metadata: { referredUserEmail: "not-an-email" } },
      { eventName: "a", metadata: { campaign: 5 } },
      { eventName: "a", metadata: { a: { b: { c: { d: { e: { f: 1 } } } } } } },
      { eventName: "a", metadata: { blob: "x".repeat(9000) } },
      { eventName: "a", idempotencyKey: "" },
      { eventName: "a", idempotencyKey: "has space" },
      { eventName: "a", source: 1 },
      { eventName: "a", businessId: "other" },
    ];
    for (const b of bad) {
      const r = await call("POST", "/track", b);
      expect(r.status, JSON.stringify(b)).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
      expect(Array.isArray(r.body.error.details)).toBe(true);
    }
    const list = await call("GET", "/sdk/referrals");
    expect(list.body.data).toEqual([]);
  });
});

describe("POST /track: idempotency", () => {
  it("a repeat returns the first response; the header works too; another body → 409", async () => {
    const { call } = await setup();
    const body = { eventName: "purchase", idempotencyKey: "order-1", metadata: { amount: 1 } };
    const first = await call("POST", "/track", body);
    const again = await call("POST", "/track", body);
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    const conflict = await call("POST", "/track", { ...body, metadata: { amount: 2 } });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe("IDEMPOTENCY_CONFLICT");

    const h = { "idempotency-key": "order-2" };
    const q1 = await call("POST", "/track", { eventName: "signup", metadata: { referredUserEmail: uniqueEmail() } }, h);
    expect(q1.status).toBe(202);
    const q2 = await call("POST", "/track", { eventName: "signup", metadata: q1.body && { referredUserEmail: "x@example.com" } }, h);
    expect(q2.status).toBe(409);
    // Body key and header must agree.
    const mismatch = await call("POST", "/track", { eventName: "x", idempotencyKey: "a" }, { "idempotency-key": "b" });
    expect(mismatch.status).toBe(400);
  });

  it("a key's request is the body as sent: a retry after the default currency changed replays, and so does the same event through /track/batch", async () => {
    const { owner, call } = await setup();
    const body = { eventName: "purchase", amount: "12.50", idempotencyKey: `amt-${Date.now()}` };
    const first = await call("POST", "/track", body);
    expect(first.status).toBeLessThan(300);
    expect((await owner.call("PATCH", "/business/config/general", { environment: "TEST", defaultCurrency: "EUR" })).status).toBe(200);
    const again = await call("POST", "/track", body);
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    const batch = await call("POST", "/track/batch", { events: [body] });
    expect(batch.body.results[0]).toMatchObject({ success: true });
    expect(batch.body.results[0].eventId).toBe(first.body.eventId);
    // A different body under the key: its currency named where the first left it to the default.
    expect((await call("POST", "/track", { ...body, currency: "USD" })).status).toBe(409);
  });

  it("keys are scoped to the business and environment", async () => {
    const { call, owner } = await setup();
    const live = sdkAt(baseUrl(), (await createKey(owner, "LIVE")).secret);
    const other = (await setup()).call;
    const body = { eventName: "e", idempotencyKey: "shared-key" };
    const a = await call("POST", "/track", body);
    const b = await live("POST", "/track", body);
    const c = await other("POST", "/track", body);
    expect(new Set([a.body.eventId, b.body.eventId, c.body.eventId]).size).toBe(3);
  });

  it("20 concurrent duplicates of one key: one event and one job", async () => {
    const { call, key } = await setup();
    const body = { eventName: "signup", idempotencyKey: "race-1", metadata: { referredUserEmail: uniqueEmail() } };
    const rs = await Promise.all(Array.from({ length: 20 }, () => call("POST", "/track", body)));
    expect(rs.map((r) => r.status)).toEqual(Array(20).fill(202));
    expect(new Set(rs.map((r) => r.body.eventId)).size).toBe(1);
    expect(new Set(rs.map((r) => r.body.jobId)).size).toBe(1);
    const job = await waitForJob(key.secret, rs[0].body.jobId);
    expect(job.status).toBe("SUCCEEDED");
    expect((await call("GET", "/sdk/referrals")).body.data).toHaveLength(0); // no referrer → no referral
  });
});

describe("TEST / LIVE separation", () => {
  it("codes, referrals and jobs of one environment are invisible to the other", async () => {
    const { owner, key } = await setup("TEST");
    const liveKey = await createKey(owner, "LIVE");
    const test = sdkAt(baseUrl(), key.secret);
    const live = sdkAt(baseUrl(), liveKey.secret);
    const p = await makeParticipant(key.secret, { userId: "same-user" });
    expect((await live("POST", "/track", { eventName: "x", referrer: p.referralCode })).status).toBe(422);
    const q = await test("POST", "/sdk/referrals/apply", { referralCode: p.referralCode, referredUserId: "friend" });
    expect(q.status).toBe(200);
    expect((await live("GET", "/sdk/referrals")).body.data).toEqual([]);
    const queued = await test("POST", "/track", { eventName: "s", metadata: { referredUserEmail: uniqueEmail() } });
    expect((await live("GET", `/sdk/jobs/${queued.body.jobId}`)).status).toBe(404);
    // The same userId in LIVE is a different participant with another code.
    const pl = await makeParticipant(liveKey.secret, { userId: "same-user" });
    expect(pl.participantId).not.toBe(p.participantId);
  });
});

describe("POST /track/batch", () => {
  it("up to 100 events, one result each in order; invalid ones refused alone; per-event idempotency", async () => {
    const { call, key } = await setup();
    const p = await makeParticipant(key.secret, { userId: "batch-ref" });
    const events = [
      { eventName: "view" },
      { eventName: 5 },
      { eventName: "signup", referrer: p.referralCode, metadata: { referredUserEmail: uniqueEmail() }, idempotencyKey: "b-1" },
      { eventName: "click", referrer: "UNKNOWN1" },
      { eventName: "click", referrer: p.referralCode, idempotencyKey: "b-2" },
    ];
    const r = await call("POST", "/track/batch", { events });
    expect(r.status).toBe(200);
    expect(r.body.accepted).toBe(3);
    expect(r.body.failed).toBe(2);
    const [v, bad, queued, unknown, sync] = r.body.results;
    expect(v).toMatchObject({ index: 0, ...SYNC_SHAPE, eventId: expect.any(String) });
    expect(bad).toMatchObject({ index: 1, success: false, error: { code: "VALIDATION_ERROR" } });
    expect(queued).toMatchObject({ index: 2, success: true, queued: true, jobType: "EVENT_PROCESS", jobId: expect.any(String) });
    expect(unknown).toMatchObject({ index: 3, success: false, error: { code: "UNKNOWN_REFERRAL_CODE" } });
    expect(sync).toMatchObject({ index: 4, ...SYNC_SHAPE });
    expect((await waitForJob(key.secret, queued.jobId)).status).toBe("SUCCEEDED");

    // Replaying the keyed events returns their first results.
    const again = await call("POST", "/track/batch", { events: [events[2], events[4]] });
    expect(again.body.results[0].jobId).toBe(queued.jobId);
    expect(again.body.results[1].eventId).toBe(sync.eventId);
    // Same key in /track replays too; another body → 409 for that event only.
    const single = await call("POST", "/track", events[4]);
    expect(single.body.eventId).toBe(sync.eventId);
    const conflict = await call("POST", "/track/batch", { events: [{ ...events[4], eventName: "other" }, { eventName: "fine" }] });
    expect(conflict.body.results[0].error.code).toBe("IDEMPOTENCY_CONFLICT");
    expect(conflict.body.results[1].success).toBe(true);
  });

  it("refuses more than 100 events, an empty list and duplicate keys within one batch", async () => {
    const { call } = await setup();
    const many = Array.from({ length: 101 }, () => ({ eventName: "e" }));
    expect((await call("POST", "/track/batch", { events: many })).status).toBe(400);
    expect((await call("POST", "/track/batch", { events: [] })).status).toBe(400);
    expect((await call("POST", "/track/batch", [])).status).toBe(400);
    const dup = await call("POST", "/track/batch", { events: [{ eventName: "a", idempotencyKey: "d" }, { eventName: "a", idempotencyKey: "d" }] });
    expect(dup.body.results[0].success).toBe(true);
    expect(dup.body.results[1].error.code).toBe("VALIDATION_ERROR");
    const full = await call("POST", "/track/batch", { events: Array.from({ length: 100 }, (_, i) => ({ eventName: `e${i}` })) });
    expect(full.status).toBe(200);
    expect(full.body.accepted).toBe(100);
  });
});
