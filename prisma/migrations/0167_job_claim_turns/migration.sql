-- Claims take turns among businesses (server/jobs/claim.ts claimDueJobs): the businesses with
-- queued jobs of a type are found by a skip scan, one probe each, and each one's oldest due jobs
-- are read in order, whatever another business's backlog. Queued jobs only: a claimed job leaves
-- this index.
CREATE INDEX "Job_queued_business_idx" ON "Job" ("type", "businessId", "runAt") WHERE "status" = 'QUEUED';
