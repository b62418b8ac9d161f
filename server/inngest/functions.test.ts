// The Inngest functions, executed with @inngest/test: they run the same job code as the
// embedded runner, and a redelivered event does not process anything twice.
import { InngestTestEngine } from "@inngest/test";
import { describe, expect, it, vi } from "vitest";
import { db } from "../db/client";
import { upsertParticipant } from "../domain/participants/service";
import { PAST, queuedEvent, queuedJob, testBusiness } from "../../tests/support/jobs-fixtures";
import { JOB_EVENTS } from "./client";
import { eventProcessFunction, functions, sdkReferralApplyFunction } from "./functions";
import { Webhook } from "standardwebhooks";
import { createWebhook } from "../domain/webhooks/service";
import { emitWebhookEvent } from "../domain/webhooks/emit";
import { startReceiver } from "../../tests/support/webhook-receiver";

describe("Inngest functions", () => {
  it("EVENT_PROCESS processes the job's event once", async () => {
    const scope = await testBusiness();
    const referrer = await upsertParticipant(scope, { userId: "inngest-ref" });
    const { job, event } = await queuedEvent(scope, { eventName: "signup", referrer: referrer.referralCode, metadata: { referredUserEmail: "i@example.com" } });
    const t = new InngestTestEngine({ function: eventProcessFunction, events: [{ name: JOB_EVENTS.EVENT_PROCESS, data: { jobId: job.id } }] });
    const { result, error } = await t.execute();
    expect(error).toBeUndefined();
    expect(result).toMatchObject({ status: "SUCCEEDED", result: { eventId: event.id, referralId: expect.any(String) } });
    const again = await new InngestTestEngine({ function: eventProcessFunction, events: [{ name: JOB_EVENTS.EVENT_PROCESS, data: { jobId: job.id } }] }).execute();
    expect(again.result).toEqual(result);
    expect(await db.referral.count({ where: { businessId: scope.businessId } })).toBe(1);
    expect((await db.job.findUniqueOrThrow({ where: { id: job.id } })).status).toBe("SUCCEEDED");
  });

  it("SDK_REFERRAL_APPLY records the referral; an unknown code ends FAILED without retry", async () => {
    const scope = await testBusiness();
    const referrer = await upsertParticipant(scope, { userId: "inngest-ref-2" });
    const ok = await queuedJob(scope, "SDK_REFERRAL_APPLY", { referralCode: referrer.referralCode, referredUserEmail: "j@example.com" });
    const r = await new InngestTestEngine({ function: sdkReferralApplyFunction, events: [{ name: JOB_EVENTS.SDK_REFERRAL_APPLY, data: { jobId: ok.id } }] }).execute();
    expect(r.result).toMatchObject({ status: "SUCCEEDED", result: { referralId: expect.any(String), created: true } });
    const bad = await queuedJob(scope, "SDK_REFERRAL_APPLY", { referralCode: "NOSUCH99", referredUserEmail: "k@example.com" });
    const f = await new InngestTestEngine({ function: sdkReferralApplyFunction, events: [{ name: JOB_EVENTS.SDK_REFERRAL_APPLY, data: { jobId: bad.id } }] }).execute();
    expect(f.result).toMatchObject({ status: "FAILED", error: expect.stringContaining("UNKNOWN_REFERRAL_CODE") });
    expect(await db.referral.count({ where: { businessId: scope.businessId } })).toBe(1);
  });

  it("one retry policy: Inngest's retries are off; the function sleeps until the job's backoff is over, never runs it early", async () => {
    expect((eventProcessFunction as unknown as { opts: { retries?: number } }).opts.retries).toBe(0);
    const scope = await testBusiness();
    vi.spyOn(console, "error").mockImplementation(() => {}); // the expected internal error is logged
    // Processing this event throws an unexpected error: every attempt ends in RETRY (backoff).
    const { job } = await queuedEvent(scope, { eventName: "signup", metadata: { referredUserEmail: 12345 } }, 2);
    const waits: string[] = [];
    const attemptsWhenWoken: number[] = [];
    const t = new InngestTestEngine({
      function: eventProcessFunction,
      events: [{ name: JOB_EVENTS.EVENT_PROCESS, data: { jobId: job.id } }],
      steps: [
        {
          id: "wait-1",
          // Stands in for Inngest's durable sleep: record when the job was due, then let that time pass.
          async handler() {
            const j = await db.job.findUniqueOrThrow({ where: { id: job.id } });
            attemptsWhenWoken.push(j.attempts);
            waits.push(j.runAt.toISOString());
            await db.job.update({ where: { id: job.id }, data: { runAt: PAST } });
            return null;
          },
        },
      ],
    });
    const { result, ctx } = await t.execute();
    // Attempt 1 failed with backoff; the function slept until exactly that runAt, then attempt 2
    // (the last of maxAttempts = 2) ended FAILED. No attempt ran during the backoff.
    expect(ctx.step.sleepUntil).toHaveBeenCalledTimes(1);
    expect(ctx.step.sleepUntil).toHaveBeenCalledWith("wait-1", waits[0]);
    expect(new Date(waits[0]).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(attemptsWhenWoken).toEqual([1]);
    expect(result).toMatchObject({ status: "FAILED" });
    expect(await db.job.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({ status: "FAILED", attempts: 2 });
  });

  it("an early delivery (job not due yet) sleeps until runAt instead of running the job", async () => {
    const scope = await testBusiness();
    const referrer = await upsertParticipant(scope, { userId: "inngest-ref-3" });
    const { job } = await queuedEvent(scope, { eventName: "signup", referrer: referrer.referralCode, metadata: { referredUserEmail: "early@example.com" } });
    const due = new Date(Date.now() + 3_600_000);
    await db.job.update({ where: { id: job.id }, data: { runAt: due } });
    let referralsWhileWaiting = -1;
    const t = new InngestTestEngine({
      function: eventProcessFunction,
      events: [{ name: JOB_EVENTS.EVENT_PROCESS, data: { jobId: job.id } }],
      steps: [
        {
          id: "wait-1",
          async handler() {
            referralsWhileWaiting = await db.referral.count({ where: { businessId: scope.businessId } });
            await db.job.update({ where: { id: job.id }, data: { runAt: PAST } });
            return null;
          },
        },
      ],
    });
    const { result, ctx } = await t.execute();
    expect(ctx.step.sleepUntil).toHaveBeenCalledWith("wait-1", due.toISOString());
    expect(referralsWhileWaiting).toBe(0);
    expect(result).toMatchObject({ status: "SUCCEEDED" });
    expect(await db.job.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({ status: "SUCCEEDED", attempts: 1 });
  });

  it("Inngest batching: several EVENT_PROCESS events run together through the batched execution, each job once; a job not due yet is waited for", async () => {
    expect((eventProcessFunction as unknown as { opts: { batchEvents?: { maxSize: number } } }).opts.batchEvents?.maxSize).toBeGreaterThan(1);
    const a = await testBusiness();
    const b = await testBusiness();
    const refA = await upsertParticipant(a, { userId: "inngest-batch-a" });
    const refB = await upsertParticipant(b, { userId: "inngest-batch-b" });
    const jobs = [
      (await queuedEvent(a, { eventName: "signup", referrer: refA.referralCode, metadata: { referredUserEmail: "ba1@example.com" } })).job,
      (await queuedEvent(a, { eventName: "signup", referrer: refA.referralCode, metadata: { referredUserEmail: "ba2@example.com" } })).job,
      (await queuedEvent(b, { eventName: "signup", referrer: refB.referralCode, metadata: { referredUserEmail: "bb1@example.com" } })).job,
    ];
    const due = new Date(Date.now() + 3_600_000);
    await db.job.update({ where: { id: jobs[2].id }, data: { runAt: due } });
    const events = jobs.map((j) => ({ name: JOB_EVENTS.EVENT_PROCESS, data: { jobId: j.id } }));
    let doneWhileWaiting: string[] = [];
    const t = new InngestTestEngine({
      function: eventProcessFunction,
      events: events as [(typeof events)[number], ...(typeof events)[number][]],
      steps: [
        {
          id: "batch-wait-1",
          async handler() {
            doneWhileWaiting = (await db.job.findMany({ where: { id: { in: jobs.map((j) => j.id) }, status: "SUCCEEDED" } })).map((j) => j.id);
            await db.job.update({ where: { id: jobs[2].id }, data: { runAt: PAST } });
            return null;
          },
        },
      ],
    });
    const { result, ctx } = await t.execute();
    expect(ctx.step.sleepUntil).toHaveBeenCalledWith("batch-wait-1", due.toISOString());
    expect(doneWhileWaiting.sort()).toEqual([jobs[0].id, jobs[1].id].sort());
    const out = (result as { jobs: Record<string, { status: string }> }).jobs;
    expect(jobs.map((j) => out[j.id]?.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
    // Redelivered as a batch: the stored outcomes, nothing done twice.
    const again = await new InngestTestEngine({ function: eventProcessFunction, events: events as [(typeof events)[number], ...(typeof events)[number][]] }).execute();
    expect((again.result as { jobs: Record<string, { status: string }> }).jobs).toEqual(out);
    expect(await db.referral.count({ where: { businessId: a.businessId } })).toBe(2);
    expect(await db.referral.count({ where: { businessId: b.businessId } })).toBe(1);
    const rows = await db.job.findMany({ where: { id: { in: jobs.map((j) => j.id) } } });
    expect(rows.every((j) => j.status === "SUCCEEDED" && j.attempts === 1)).toBe(true);
  });

  it("an event without a jobId is refused", async () => {
    const { error } = await new InngestTestEngine({ function: eventProcessFunction, events: [{ name: JOB_EVENTS.EVENT_PROCESS, data: {} }] }).execute();
    expect(String((error as Error)?.message ?? error)).toMatch(/jobId/);
  });

  it("WEBHOOK_DELIVER delivers an outbox message through the same handler, signed", async () => {
    const rx = await startReceiver();
    try {
      const scope = await testBusiness();
      const w = await createWebhook(scope.businessId, { url: `${rx.url}/inngest`, environment: "TEST" });
      const [job] = await db.$transaction((tx) => emitWebhookEvent(tx, { businessId: scope.businessId, environment: "TEST", type: "pool.low", data: { balanceEth: "0.1" } }));
      const fn = functions.find((f) => (f as unknown as { opts: { id: string } }).opts.id === "webhook-deliver")!;
      const r = await new InngestTestEngine({ function: fn, events: [{ name: JOB_EVENTS.WEBHOOK_DELIVER, data: { jobId: job.id } }] }).execute();
      expect(r.result).toMatchObject({ status: "SUCCEEDED", result: { success: true, attempt: 1 } });
      const [got] = await rx.waitFor(1);
      expect(new Webhook(w.secret).verify(got.body, got.headers)).toMatchObject({ type: "pool.low", data: { balanceEth: "0.1" } });
    } finally {
      await rx.close();
    }
  });
});
