// Fixtures for in-process job tests: a business and jobs that only the test itself claims
// (runAt far in the future keeps any app runner sharing the database away from them).
import { randomUUID } from "node:crypto";
import { db } from "../db/client";
import type { JobType, Prisma } from "../db/generated";
import type { Scope } from "../domain/participants/schemas";

export const FAR_FUTURE = new Date(Date.now() + 7 * 24 * 3600 * 1000);

export async function testBusiness(environment: "TEST" | "LIVE" = "TEST"): Promise<Scope> {
  const b = await db.business.create({ data: { name: "Jobs test", ownerId: `test-${randomUUID()}` } });
  return { businessId: b.id, environment, apiKeyId: null };
}

/** An event and its EVENT_PROCESS job, committed together, as /track's queued path writes them. */
export async function queuedEvent(scope: Scope, event: { eventName: string; referrer?: string; metadata?: Prisma.InputJsonObject }, maxAttempts = 5) {
  return db.$transaction(async (tx) => {
    const e = await tx.trackedEvent.create({
      data: { businessId: scope.businessId, environment: scope.environment, eventName: event.eventName, referrer: event.referrer ?? null, metadata: event.metadata ?? {} },
    });
    const job = await tx.job.create({ data: { businessId: scope.businessId, environment: scope.environment, type: "EVENT_PROCESS", payload: { eventId: e.id }, runAt: FAR_FUTURE, maxAttempts } });
    return { event: e, job };
  });
}

export async function queuedJob(scope: Scope, type: JobType, payload: Prisma.InputJsonObject) {
  return db.job.create({ data: { businessId: scope.businessId, environment: scope.environment, type, payload, runAt: FAR_FUTURE } });
}
