// Job execution in-process: lease fencing (a runner whose lease was taken over cannot commit),
// retries with backoff up to maxAttempts, permanent failures, exactly-once effects.
import { describe, expect, it, vi } from "vitest";
import { db } from "../db/client";
import { upsertParticipant } from "../domain/participants/service";
import { claimJob } from "./claim";
import { backoffMs, executeClaimedJob, runJob } from "./execute";
import { executeClaimedJobs } from "./lanes";
import type { Job } from "../db/generated";

let job0 = 0;
import { PAST, queuedEvent, queuedJob, testBusiness } from "../../tests/support/jobs-fixtures";

describe("job execution", () => {
  it("runs an EVENT_PROCESS job once: a second run answers the stored outcome", async () => {
    const scope = await testBusiness();
    const referrer = await upsertParticipant(scope, { userId: "r1" });
    const { job, event } = await queuedEvent(scope, { eventName: "signup", referrer: referrer.referralCode, metadata: { referredUserEmail: "friend@example.com" } });
    const first = await runJob(job.id);
    expect(first.status).toBe("SUCCEEDED");
    const second = await runJob(job.id);
    expect(second).toEqual(first);
    expect(await db.referral.count({ where: { businessId: scope.businessId } })).toBe(1);
    const e = await db.trackedEvent.findUniqueOrThrow({ where: { id: event.id } });
    expect(e.status).not.toBe("QUEUED");
    expect(e.referralId).not.toBeNull();
    const j = await db.job.findUniqueOrThrow({ where: { id: job.id } });
    expect(j).toMatchObject({ status: "SUCCEEDED", attempts: 1, lockedBy: null });
  });

  it("a runner whose lease expired and was taken over cannot commit; the new holder does, once", async () => {
    const scope = await testBusiness();
    const referrer = await upsertParticipant(scope, { userId: "r2" });
    const { job } = await queuedEvent(scope, { eventName: "signup", referrer: referrer.referralCode, metadata: { referredUserEmail: "x@example.com" } });
    const stale = await claimJob(job.id);
    expect(stale).not.toBeNull();
    // A live lease is not claimable.
    expect(await claimJob(job.id)).toBeNull();
    // The first runner stalls past its lease (as after a crash): another claims the job.
    await db.job.update({ where: { id: job.id }, data: { lockedUntil: new Date(Date.now() - 1000) } });
    const fresh = await claimJob(job.id);
    expect(fresh).not.toBeNull();
    expect(fresh!.attempts).toBe(2);
    expect(await executeClaimedJob(stale!)).toEqual({ status: "BUSY" });
    expect((await executeClaimedJob(fresh!)).status).toBe("SUCCEEDED");
    expect(await db.referral.count({ where: { businessId: scope.businessId } })).toBe(1);
    expect(await db.participant.count({ where: { businessId: scope.businessId } })).toBe(2);
  });

  it("a job whose every attempt ended with its process (lease expired each time) is FAILED when taken again, not run, alone or in a batch, with its event marked FAILED", async () => {
    const scope = await testBusiness();
    const referrer = await upsertParticipant(scope, { userId: "r-crash" });
    vi.spyOn(console, "error").mockImplementation(() => {});
    for (const run of [(j: Job) => executeClaimedJob(j), async (j: Job) => (await executeClaimedJobs([j])).get(j.id)!]) {
      const { job, event } = await queuedEvent(scope, { eventName: "signup", referrer: referrer.referralCode, metadata: { referredUserEmail: `crash-${job0++}@example.com` } }, 2);
      // Two attempts, each claimed and never finished (the process died): the lease ran out each time.
      for (let i = 0; i < 2; i++) {
        expect(await claimJob(job.id)).not.toBeNull();
        await db.job.update({ where: { id: job.id }, data: { lockedUntil: new Date(Date.now() - 1000) } });
      }
      const third = await claimJob(job.id);
      expect(third!.attempts).toBe(3);
      expect(await run(third!)).toMatchObject({ status: "FAILED", error: expect.stringMatching(/LEASE_EXPIRED/) });
      expect(await db.job.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({ status: "FAILED", lockedBy: null });
      expect((await db.trackedEvent.findUniqueOrThrow({ where: { id: event.id } })).status).toBe("FAILED");
      expect(await db.referral.count({ where: { businessId: scope.businessId } })).toBe(0);
    }
  });

  it("retries an unexpected error with backoff, then FAILED after maxAttempts with the event marked FAILED", async () => {
    const scope = await testBusiness();
    // Metadata that bypassed validation (written directly): processing it throws a non-business error.
    vi.spyOn(console, "error").mockImplementation(() => {}); // the expected internal error is logged
    const { job, event } = await queuedEvent(scope, { eventName: "signup", metadata: { referredUserEmail: 12345 } }, 2);
    const c1 = await claimJob(job.id);
    const r1 = await executeClaimedJob(c1!);
    expect(r1.status).toBe("RETRY");
    const afterFirst = await db.job.findUniqueOrThrow({ where: { id: job.id } });
    expect(afterFirst.status).toBe("QUEUED");
    expect(afterFirst.lastError).toMatch(/^INTERNAL/);
    expect(afterFirst.runAt.getTime()).toBeGreaterThan(Date.now() + 500);
    await db.job.update({ where: { id: job.id }, data: { runAt: PAST } });
    const c2 = await claimJob(job.id);
    const r2 = await executeClaimedJob(c2!);
    expect(r2.status).toBe("FAILED");
    const j = await db.job.findUniqueOrThrow({ where: { id: job.id } });
    expect(j).toMatchObject({ status: "FAILED", attempts: 2 });
    expect(j.finishedAt).not.toBeNull();
    expect((await db.trackedEvent.findUniqueOrThrow({ where: { id: event.id } })).status).toBe("FAILED");
  });

  it("a business-rule refusal fails at once, with its reason, and rejects the event", async () => {
    const scope = await testBusiness();
    const { job, event } = await queuedEvent(scope, { eventName: "signup", referrer: "NOSUCH22", metadata: { referredUserEmail: "y@example.com" } });
    const r = await runJob(job.id);
    expect(r.status).toBe("FAILED");
    const e = await db.trackedEvent.findUniqueOrThrow({ where: { id: event.id } });
    expect(e).toMatchObject({ status: "REJECTED", reason: "UNKNOWN_REFERRAL_CODE" });
    const apply = await queuedJob(scope, "SDK_REFERRAL_APPLY", { referralCode: "NOSUCH22", referredUserEmail: "z@example.com" });
    const ra = await runJob(apply.id);
    expect(ra).toMatchObject({ status: "FAILED", error: expect.stringContaining("UNKNOWN_REFERRAL_CODE") });
    expect(await db.participant.count({ where: { businessId: scope.businessId } })).toBe(0);
  });

  it("a job in its backoff is not run early: a redelivery answers NOT_DUE and changes nothing", async () => {
    const scope = await testBusiness();
    vi.spyOn(console, "error").mockImplementation(() => {}); // the expected internal error is logged
    const { job, event } = await queuedEvent(scope, { eventName: "signup", metadata: { referredUserEmail: 12345 } }, 3);
    const first = await runJob(job.id);
    expect(first.status).toBe("RETRY");
    const backoff = await db.job.findUniqueOrThrow({ where: { id: job.id } });
    expect(backoff).toMatchObject({ status: "QUEUED", attempts: 1 });
    // The same job delivered again before its runAt (an Inngest redelivery, a duplicate event).
    expect(await claimJob(job.id)).toBeNull();
    expect(await runJob(job.id)).toEqual({ status: "NOT_DUE", runAt: backoff.runAt });
    const untouched = await db.job.findUniqueOrThrow({ where: { id: job.id } });
    expect(untouched).toMatchObject({ status: "QUEUED", attempts: 1, runAt: backoff.runAt, startedAt: backoff.startedAt });
    expect((await db.trackedEvent.findUniqueOrThrow({ where: { id: event.id } })).status).toBe("QUEUED");
    // Once its time has come it runs (and, here, fails again).
    await db.job.update({ where: { id: job.id }, data: { runAt: PAST } });
    expect((await runJob(job.id)).status).toBe("RETRY");
    expect((await db.job.findUniqueOrThrow({ where: { id: job.id } })).attempts).toBe(2);
  });

  it("backoff grows exponentially and is capped", () => {
    expect(backoffMs(1)).toBeLessThanOrEqual(1200);
    expect(backoffMs(4)).toBeGreaterThanOrEqual(6400);
    expect(backoffMs(40)).toBeLessThanOrEqual(360_000);
  });
});
