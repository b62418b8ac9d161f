-- Each kind of job is claimed by its own loop (server/jobs/runner.ts: events, webhook deliveries,
-- payouts), so the claim's index leads with the type: a loop finds its due jobs without reading
-- past the other kinds' backlog. Still only queued and running jobs (migration 0061).
DROP INDEX "Job_status_runAt_idx";
CREATE INDEX "Job_type_status_runAt_idx" ON "Job" ("type", "status", "runAt") WHERE "status" IN ('QUEUED', 'RUNNING');
