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

  it("concurrent calls outside a transaction share one statement, each with its own business, mode, key and answer", async () => {
    const a = await testBusiness();
    const b = await testBusiness();
    await db.businessConfig.create({ data: { businessId: b.businessId, eventProcessing: "SYNC" } });
    const claim = (key: string) => ({ idempotencyKey: key, claim: { route: "POST /track", hash: `h-${key}` } });
    const [ra, rb, dup1, dup2, none] = await Promise.all([
      queueEvents(db, a, [{ input: { eventName: "a1" } }], ["AUTO", "ASYNC"]),
      queueEvents(db, b, [{ input: { eventName: "b1" } }], ["AUTO", "ASYNC"]),
      // The same key twice in one statement: exactly one is written, as if they came one by one.
      queueEvents(db, a, [{ input: { eventName: "k" }, ...claim("same") }]),
      queueEvents(db, a, [{ input: { eventName: "k" }, ...claim("same") }]),
      queueEvents(db, a, []),
    ]);
    expect(ra.mode).toBe("AUTO");
    expect(ra.bodies[0]?.jobType).toBe("EVENT_PROCESS");
    expect(rb).toEqual({ mode: "SYNC", bodies: [null] });
    expect([dup1.bodies[0], dup2.bodies[0]].filter(Boolean)).toHaveLength(1);
    expect(none).toEqual({ mode: null, bodies: [] });
    const events = await db.trackedEvent.findMany({ where: { businessId: { in: [a.businessId, b.businessId] } }, select: { id: true, businessId: true, eventName: true } });
    expect(events.map((e) => `${e.businessId === a.businessId ? "a" : "b"}:${e.eventName}`).sort()).toEqual(["a:a1", "a:k"]);
    expect(await db.job.count({ where: { businessId: { in: [a.businessId, b.businessId] } } })).toBe(2);
    expect(await db.idempotencyRecord.count({ where: { businessId: a.businessId, key: "same" } })).toBe(1);
  });

  it("a call that fails its shared statement fails alone; the others are written", async () => {
    const a = await testBusiness();
    const ghost = { ...a, businessId: "no-such-business" };
    const out = await Promise.allSettled([
      queueEvents(db, a, [{ input: { eventName: "x" } }]),
      queueEvents(db, ghost, [{ input: { eventName: "y" } }]),
      queueEvents(db, a, [{ input: { eventName: "z" } }]),
    ]);
    expect(out.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    const names = await db.trackedEvent.findMany({ where: { businessId: a.businessId }, select: { eventName: true } });
    expect(names.map((n) => n.eventName).sort()).toEqual(["x", "z"]);
    expect(await db.trackedEvent.count({ where: { businessId: "no-such-business" } })).toBe(0);
  });
});
