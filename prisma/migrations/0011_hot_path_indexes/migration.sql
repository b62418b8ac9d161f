-- Indexes for the hot-path lookups of /track, the job handlers and the reward engine
-- (docs/operations.md, "Indexes"; plans checked with bench/explain.ts on PostgreSQL).
-- LedgerEntry(rewardId) is served by "LedgerEntry_rewardId_kind_key" (0010).

-- Engine: "is this referral settled?" and review release/reject read rewards by referral.
CREATE INDEX "Reward_referralId_idx" ON "Reward"("referralId");

-- Foreign keys with ON DELETE SET NULL (deleting a referral or an API key) and per-referral event lists.
CREATE INDEX "TrackedEvent_referralId_idx" ON "TrackedEvent"("referralId");
CREATE INDEX "TrackedEvent_apiKeyId_idx" ON "TrackedEvent"("apiKeyId");

-- Anti-abuse: a referrer's referrals of the day (maxReferralsPerReferrerPerDay).
CREATE INDEX "Referral_referrerId_createdAt_idx" ON "Referral"("referrerId", "createdAt");

-- Retention: finished jobs older than the retention period, oldest first.
CREATE INDEX "Job_status_finishedAt_idx" ON "Job"("status", "finishedAt");
