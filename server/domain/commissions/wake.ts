// Events waiting for a price (PRICE_UNAVAILABLE) run again as soon as something that may unblock
// them changes (a price is set, a rule changes or goes): their jobs become due now and are
// announced, instead of waiting for their retry time.
import { db } from "../../db/client";
import type { Environment } from "../../shared/environment";
import { dispatchJobs } from "../jobs/queue";
import { COMMISSION_REASONS } from "../rules/commissions";

export async function wakeWaitingEvents(businessId: string, environment: Environment): Promise<number> {
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    `UPDATE "Job" AS j SET "runAt" = $4::timestamp(3), "updatedAt" = $4::timestamp(3)
       FROM "TrackedEvent" e
      WHERE j."businessId" = $1 AND j.environment = $2::"Environment" AND j.type = 'EVENT_PROCESS' AND j.status = 'QUEUED'
        AND e.id = j.payload->>'eventId' AND e."businessId" = $1 AND e.status = 'QUEUED' AND e.reason = $3
      RETURNING j.id`,
    businessId,
    environment,
    COMMISSION_REASONS.PRICE_UNAVAILABLE,
    new Date().toISOString(),
  );
  if (rows.length) dispatchJobs(rows.map((r) => ({ id: r.id, type: "EVENT_PROCESS" as const })));
  return rows.length;
}
