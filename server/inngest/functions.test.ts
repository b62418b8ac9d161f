// The Inngest functions, executed with @inngest/test: they run the same job code as the
// embedded runner, and a redelivered event does not process anything twice.
import { InngestTestEngine } from "@inngest/test";
import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { upsertParticipant } from "../domain/participants/service";
import { queuedEvent, queuedJob, testBusiness } from "../jobs/test-fixtures";
import { JOB_EVENTS } from "./client";
import { eventProcessFunction, sdkReferralApplyFunction } from "./functions";

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

  it("an event without a jobId is refused", async () => {
    const { error } = await new InngestTestEngine({ function: eventProcessFunction, events: [{ name: JOB_EVENTS.EVENT_PROCESS, data: {} }] }).execute();
    expect(String((error as Error)?.message ?? error)).toMatch(/jobId/);
  });
});
