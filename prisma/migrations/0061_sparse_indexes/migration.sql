-- Indexes that hold only the rows their queries can ask for (docs/operations.md, "Batched
-- execution"). Every row written is an entry in each index of its table, and a processed event
-- writes about fifty-five of them; most of these columns are NULL (a reward not yet in a payout,
-- a ledger debit without a transaction hash, an event without a campaign, a participant without
-- a handle) or in a state the index is not read for (a finished job in the claim's index, a
-- queued one in retention's). Every query that uses these indexes asks for a non-NULL value or
-- for the statuses kept, so each one still serves its queries, and the unique ones enforce the
-- same rule: NULLs never clashed. Measured in bench/RESULTS.md ("Sparse indexes, tenant keys, `jsonb` parameters").

-- Payout links: only rewards inside a payout.
DROP INDEX "Reward_payoutId_idx";
CREATE INDEX "Reward_payoutId_idx" ON "Reward" ("payoutId") WHERE "payoutId" IS NOT NULL;

-- A transaction hash is credited once per environment: only entries that carry one (funding).
DROP INDEX "LedgerEntry_environment_txHash_key";
CREATE UNIQUE INDEX "LedgerEntry_environment_txHash_key" ON "LedgerEntry" ("environment", "txHash") WHERE "txHash" IS NOT NULL;

-- Campaign filters and an event's referral: only events that have one.
DROP INDEX "TrackedEvent_businessId_environment_campaign_createdAt_idx";
CREATE INDEX "TrackedEvent_businessId_environment_campaign_createdAt_idx" ON "TrackedEvent" ("businessId", "environment", "campaign", "createdAt") WHERE "campaign" IS NOT NULL;
DROP INDEX "TrackedEvent_referralId_idx";
CREATE INDEX "TrackedEvent_referralId_idx" ON "TrackedEvent" ("referralId") WHERE "referralId" IS NOT NULL;

-- A handle, an email, an external user id is taken once per business and environment: only
-- participants that have one (a referred user known by email has no external id, and so on).
DROP INDEX "Participant_businessId_environment_handle_key";
CREATE UNIQUE INDEX "Participant_businessId_environment_handle_key" ON "Participant" ("businessId", "environment", "handle") WHERE "handle" IS NOT NULL;
DROP INDEX "Participant_businessId_environment_email_key";
CREATE UNIQUE INDEX "Participant_businessId_environment_email_key" ON "Participant" ("businessId", "environment", "email") WHERE "email" IS NOT NULL;
DROP INDEX "Participant_businessId_environment_externalId_key";
CREATE UNIQUE INDEX "Participant_businessId_environment_externalId_key" ON "Participant" ("businessId", "environment", "externalId") WHERE "externalId" IS NOT NULL;

-- The claim reads queued and running jobs (due, or with an expired lease); retention reads
-- finished ones. Each index now holds only its own: a job's claim and its completion each write
-- one index entry fewer, and its intake one.
DROP INDEX "Job_status_runAt_idx";
CREATE INDEX "Job_status_runAt_idx" ON "Job" ("status", "runAt") WHERE "status" IN ('QUEUED', 'RUNNING');
DROP INDEX "Job_status_finishedAt_idx";
CREATE INDEX "Job_finishedAt_idx" ON "Job" ("finishedAt") WHERE "status" IN ('SUCCEEDED', 'FAILED');

-- The payout state trigger (0050) does nothing unless a PAID reward comes without its payout
-- state: the condition now stands on the trigger itself, so rows that bring it (the worker's
-- batch writes compute it for the statement) do not call the function at all.
DROP TRIGGER "Reward_payout_state" ON "Reward";
CREATE TRIGGER "Reward_payout_state" BEFORE INSERT OR UPDATE OF "status" ON "Reward"
  FOR EACH ROW WHEN (NEW."status" = 'PAID' AND NEW."payoutStatus" IS NULL) EXECUTE FUNCTION "reward_payout_state"();
