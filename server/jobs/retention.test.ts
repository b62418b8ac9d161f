// Retention: finished jobs past the retention period and expired idempotency records are
// deleted in bounded batches; queued, running and recent rows stay.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import type { JobStatus } from "../db/generated";
import { newId } from "../shared/ids";
import { sweepRetention } from "./retention";

const DAY = 86_400_000;

async function business() {
  const b = await db.business.create({ data: { name: "Retention Co", ownerId: `owner-${randomUUID()}` } });
  return b.id;
}

async function job(businessId: string, status: JobStatus, finishedDaysAgo: number | null) {
  const finishedAt = finishedDaysAgo === null ? null : new Date(Date.now() - finishedDaysAgo * DAY);
  return (
    await db.job.create({
      data: { id: newId(), businessId, environment: "TEST", type: "EVENT_PROCESS", status, payload: {}, finishedAt, createdAt: new Date(Date.now() - 30 * DAY), runAt: new Date(Date.now() - 30 * DAY) },
    })
  ).id;
}

async function idem(businessId: string, expiresInHours: number) {
  return (
    await db.idempotencyRecord.create({
      data: { businessId, environment: "TEST", key: `k-${randomUUID()}`, route: "POST /track", requestHash: "h", expiresAt: new Date(Date.now() + expiresInHours * 3600_000) },
    })
  ).id;
}

describe("retention sweep", () => {
  it("deletes finished jobs past the retention period and expired idempotency records, in bounded batches, and nothing else", async () => {
    const b = await business();
    const oldDone = await Promise.all([...Array(5)].map(() => job(b, "SUCCEEDED", 10)));
    const oldFailed = await job(b, "FAILED", 8);
    const keep = [
      await job(b, "SUCCEEDED", 2), // recent
      await job(b, "FAILED", 6.9),
      await job(b, "QUEUED", null), // old but not finished
      await job(b, "RUNNING", null),
    ];
    const expired = await Promise.all([...Array(3)].map(() => idem(b, -1)));
    const live = await idem(b, 23);

    // Bounded: two rows per statement, at most two statements per table in this sweep.
    const first = await sweepRetention({ jobRetentionDays: 7, batchSize: 2, maxBatches: 2 });
    expect(first).toEqual({ jobsDeleted: 4, idempotencyRecordsDeleted: 3, clicksDeleted: 0, portalSessionsDeleted: 0, walletChallengesDeleted: 0, more: true });
    const second = await sweepRetention({ jobRetentionDays: 7, batchSize: 2, maxBatches: 2 });
    expect(second).toEqual({ jobsDeleted: 2, idempotencyRecordsDeleted: 0, clicksDeleted: 0, portalSessionsDeleted: 0, walletChallengesDeleted: 0, more: false });

    expect(await db.job.count({ where: { id: { in: [...oldDone, oldFailed] } } })).toBe(0);
    expect(await db.job.count({ where: { id: { in: keep } } })).toBe(keep.length);
    expect(await db.idempotencyRecord.count({ where: { id: { in: expired } } })).toBe(0);
    expect(await db.idempotencyRecord.count({ where: { id: live } })).toBe(1);

    // The retention period is configurable: with 1 day, the 2-day-old job goes too.
    expect((await sweepRetention({ jobRetentionDays: 1 })).jobsDeleted).toBe(2);
    expect(await db.job.count({ where: { id: { in: keep } } })).toBe(keep.length - 2);
  });

  it("lets the process's other work run between its batches (on PGlite, whose queries never return to the event loop, nothing else ran until the sweep was done)", async () => {
    const b = await business();
    await Promise.all([...Array(30)].map(() => job(b, "SUCCEEDED", 10)));
    // Work queued for the event loop's next turn as the sweep starts: it must have run by the
    // time the sweep of fifteen batches answers.
    let ran = false;
    setImmediate(() => (ran = true));
    const r = await sweepRetention({ batchSize: 2 });
    const ranBeforeTheEnd = ran;
    expect(r.jobsDeleted).toBe(30);
    expect(ranBeforeTheEnd).toBe(true);
  });
});
