-- A reward and a referral name participants of their own business and environment, and the
-- database proves it (docs/operations.md, "The balance invariant" and "Batched execution").
--
-- Before: Reward(participantId) → Participant(id) and Reward(businessId) → Business(id), two
-- checks per reward that each held on its own; nothing refused a reward of business A naming a
-- participant of business B. Now one composite key does both: (participantId, businessId,
-- environment) → Participant(id, businessId, environment). The business exists because the
-- participant row that names it does (Participant_businessId_fkey), and deleting a business still
-- deletes its rewards and referrals, through its participants (ON DELETE CASCADE along both keys).
-- The same for a referral's referrer and referred participant. Fewer checks per processed event
-- (three of its eighteen) and a stronger rule: bench/RESULTS.md, "Sparse indexes, tenant keys, `jsonb`
-- parameters".

CREATE UNIQUE INDEX "Participant_id_businessId_environment_key" ON "Participant" ("id", "businessId", "environment");

ALTER TABLE "Reward" DROP CONSTRAINT "Reward_participantId_fkey";
ALTER TABLE "Reward" DROP CONSTRAINT "Reward_businessId_fkey";
ALTER TABLE "Reward" ADD CONSTRAINT "Reward_participant_tenant_fkey" FOREIGN KEY ("participantId", "businessId", "environment")
  REFERENCES "Participant" ("id", "businessId", "environment") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "Referral" DROP CONSTRAINT "Referral_referrerId_fkey";
ALTER TABLE "Referral" DROP CONSTRAINT "Referral_referredId_fkey";
ALTER TABLE "Referral" DROP CONSTRAINT "Referral_businessId_fkey";
ALTER TABLE "Referral" ADD CONSTRAINT "Referral_referrer_tenant_fkey" FOREIGN KEY ("referrerId", "businessId", "environment")
  REFERENCES "Participant" ("id", "businessId", "environment") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Referral" ADD CONSTRAINT "Referral_referred_tenant_fkey" FOREIGN KEY ("referredId", "businessId", "environment")
  REFERENCES "Participant" ("id", "businessId", "environment") ON DELETE CASCADE ON UPDATE CASCADE;
