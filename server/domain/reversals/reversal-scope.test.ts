// A reversal event (config reversalEvents) reverses only when its key has the rewards:write scope,
// as POST /sdk/rewards/reverse requires: sent with a key of scope track alone it is recorded and
// refused (REVERSAL_NOT_ALLOWED), nothing reversed or earned; processed now or queued and run
// by the worker's batch.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness, participant, trackReferral } from "../../../tests/support/domain";
import { createApiKey } from "../api-keys/service";
import { acceptEvent } from "../tracking/service";
import { runJobs } from "../../jobs/lanes";

describe("reversal events and the rewards:write scope", () => {
  it.each(["SYNC", "ASYNC"] as const)("a key without rewards:write records the event and reverses nothing (%s)", async (eventProcessing) => {
    const { businessId, scope } = await domainBusiness({ fundEth: "1", general: { reversalEvents: ["refund"] } });
    const ann = await participant(scope);
    const email = `buyer-${eventProcessing}@example.com`;
    expect((await trackReferral(scope, ann.referralCode, { referredUserEmail: email })).body).toMatchObject({ status: "PROCESSED" });
    await db.businessConfig.update({ where: { businessId }, data: { eventProcessing } });
    const narrow = await createApiKey(businessId, { environment: "TEST", scopes: ["track"] });
    const narrowScope = { ...scope, apiKeyId: narrow.apiKeyId };
    const sent = await acceptEvent(narrowScope, { eventName: "refund", metadata: { referredUserEmail: email } });
    const refused = eventProcessing === "SYNC" ? sent.body : await (async () => {
      const jobId = (sent.body as { jobId: string }).jobId;
      await runJobs([jobId]);
      return db.trackedEvent.findUniqueOrThrow({ where: { id: (sent.body as { eventId: string }).eventId } });
    })();
    expect(refused).toMatchObject({ status: "REJECTED", reason: "REVERSAL_NOT_ALLOWED" });
    const paid = () => db.reward.findMany({ where: { businessId, status: "PAID" }, select: { payoutStatus: true, reversedWei: true } });
    expect((await paid()).every((r) => r.payoutStatus !== "REVERSED" && r.reversedWei.toString() === "0")).toBe(true);
    // The same event with a key that has the scope reverses.
    await db.businessConfig.update({ where: { businessId }, data: { eventProcessing: "SYNC" } });
    const full = await acceptEvent(scope, { eventName: "refund", metadata: { referredUserEmail: email } });
    expect(full.body).toMatchObject({ status: "PROCESSED", reason: expect.stringMatching(/^REVERSED:/) });
  });
});
