// Fixtures for in-process job tests (unit layer: each test file has its own database and no
// runner, so the test itself decides when a job runs).
import { randomUUID } from "node:crypto";
import { db } from "../../server/db/client";
import type { JobType, Prisma } from "../../server/db/generated";
import type { Scope } from "../../server/shared/scope";
import { newId } from "../../server/shared/ids";

/** A moment already passed: a job whose backoff is over is due again. */
export const PAST = new Date(Date.now() - 60_000);

export async function testBusiness(environment: "TEST" | "LIVE" = "TEST"): Promise<Scope> {
  const b = await db.business.create({ data: { name: "Jobs test", ownerId: `test-${randomUUID()}` } });
  return { businessId: b.id, environment, apiKeyId: null };
}

/** An event and its EVENT_PROCESS job, committed together, as /track's queued path writes them. */
export async function queuedEvent(scope: Scope, event: { eventName: string; referrer?: string; metadata?: Prisma.InputJsonObject }, maxAttempts = 5) {
  return db.$transaction(async (tx) => {
    const e = await tx.trackedEvent.create({
      data: { id: newId(), businessId: scope.businessId, environment: scope.environment, eventName: event.eventName, referrer: event.referrer ?? null, metadata: event.metadata ?? {} },
    });
    const job = await tx.job.create({ data: { id: newId(), businessId: scope.businessId, environment: scope.environment, type: "EVENT_PROCESS", payload: { eventId: e.id }, maxAttempts } });
    return { event: e, job };
  });
}

export async function queuedJob(scope: Scope, type: JobType, payload: Prisma.InputJsonObject) {
  return db.job.create({ data: { id: newId(), businessId: scope.businessId, environment: scope.environment, type, payload } });
}
