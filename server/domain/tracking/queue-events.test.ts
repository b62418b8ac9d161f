// queueEvents: the one writer of queued events (single /track and /track/batch).
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { testBusiness } from "../../../tests/support/jobs-fixtures";
import { queueEvents } from "./queue-events";

describe("queueEvents", () => {
  it("writes every event with its EVENT_PROCESS job and its idempotency claim, in one statement", async () => {
    const scope = await testBusiness();
    const r = await queueEvents(db, scope, [
      { input: { eventName: "a", metadata: { campaign: "spring" } } },
      { input: { eventName: "b", idempotencyKey: "k-1" }, idempotencyKey: "k-1", claim: { route: "POST /track", hash: "h1" } },
    ]);
    expect(r.mode).toBe("AUTO");
    expect(r.bodies.map((b) => b?.jobType)).toEqual(["EVENT_PROCESS", "EVENT_PROCESS"]);
    const events = await db.trackedEvent.findMany({ where: { businessId: scope.businessId }, orderBy: { eventName: "asc" } });
    expect(events.map((e) => [e.id, e.eventName, e.status, e.campaign, e.idempotencyKey])).toEqual([
      [r.bodies[0]!.eventId, "a", "QUEUED", "spring", null],
      [r.bodies[1]!.eventId, "b", "QUEUED", null, "k-1"],
    ]);
    const jobs = await db.job.findMany({ where: { businessId: scope.businessId } });
    expect(jobs.map((j) => [j.id, (j.payload as { eventId: string }).eventId]).sort()).toEqual(
      r.bodies.map((b) => [b!.jobId, b!.eventId]).sort(),
    );
    const claim = await db.idempotencyRecord.findFirstOrThrow({ where: { businessId: scope.businessId, key: "k-1" } });
    expect(claim).toMatchObject({ route: "POST /track", requestHash: "h1", responseCode: 202, responseBody: r.bodies[1] });
  });

  it("writes nothing for an event whose key is already claimed, and nothing at all in a mode that does not queue", async () => {
    const scope = await testBusiness();
    await queueEvents(db, scope, [{ input: { eventName: "a" }, idempotencyKey: "dup", claim: { route: "POST /track", hash: "h" } }]);
    const again = await queueEvents(db, scope, [
      { input: { eventName: "a" }, idempotencyKey: "dup", claim: { route: "POST /track", hash: "h" } },
      { input: { eventName: "c" } },
    ]);
    expect(again.bodies[0]).toBeNull();
    expect(again.bodies[1]).not.toBeNull();
    await db.businessConfig.create({ data: { businessId: scope.businessId, eventProcessing: "SYNC" } });
    const gated = await queueEvents(db, scope, [{ input: { eventName: "d" } }], ["AUTO", "ASYNC"]);
    expect(gated).toEqual({ mode: "SYNC", bodies: [null] });
    expect(await db.trackedEvent.count({ where: { businessId: scope.businessId } })).toBe(2);
    expect(await db.job.count({ where: { businessId: scope.businessId } })).toBe(2);
  });
});
