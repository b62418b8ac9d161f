-- Two per-row costs of the worker's chunk statements, cut without changing what they compute.
--
-- "reward_payout_of" (0069) returned a record through OUT parameters, which the planner cannot
-- inline: the bulk reward insert ran it as a function scan per row. Declared RETURNS TABLE, a
-- single SELECT, it is inlined into the statement (and the Reward_payout_state trigger reads it
-- the same way). Same arguments, same expression.
DROP FUNCTION "reward_payout_of"(TIMESTAMP(3), INTEGER);
CREATE FUNCTION "reward_payout_of"(paid TIMESTAMP(3), hold INTEGER)
  RETURNS TABLE ("payoutStatus" "RewardPayoutStatus", "payableAt" TIMESTAMP(3)) LANGUAGE sql STABLE AS $fn$
  SELECT CASE WHEN hold = 0 THEN 'PAYABLE'::"RewardPayoutStatus" ELSE 'ON_HOLD'::"RewardPayoutStatus" END,
         COALESCE(paid, CURRENT_TIMESTAMP) + make_interval(days => hold)
$fn$;

-- "Participant_keep_erased" (0081) hashed each identity of every new or renamed participant and
-- looked each hash up, also for the many businesses that never erased anyone: one look-up first
-- whether the business and environment have any erased identity at all.
CREATE OR REPLACE FUNCTION "Participant_keep_erased"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "ErasedIdentity" e WHERE e."businessId" = NEW."businessId" AND e."environment" = NEW."environment") THEN
    RETURN NEW;
  END IF;
  IF NEW."email" IS NOT NULL AND EXISTS (SELECT 1 FROM "ErasedIdentity" e WHERE e."businessId" = NEW."businessId"
       AND e."environment" = NEW."environment" AND e."kind" = 'email' AND e."valueHash" = "erasure_hash"(NEW."email")) THEN
    NEW."email" := NULL; NEW."name" := NULL;
  END IF;
  IF NEW."externalId" IS NOT NULL AND EXISTS (SELECT 1 FROM "ErasedIdentity" e WHERE e."businessId" = NEW."businessId"
       AND e."environment" = NEW."environment" AND e."kind" = 'externalId' AND e."valueHash" = "erasure_hash"(NEW."externalId")) THEN
    NEW."externalId" := NULL; NEW."name" := NULL;
  END IF;
  IF NEW."handle" IS NOT NULL AND EXISTS (SELECT 1 FROM "ErasedIdentity" e WHERE e."businessId" = NEW."businessId"
       AND e."environment" = NEW."environment" AND e."kind" = 'handle' AND e."valueHash" = "erasure_hash"(NEW."handle")) THEN
    NEW."handle" := NULL;
  END IF;
  IF TG_OP = 'UPDATE' AND EXISTS (SELECT 1 FROM "ErasedIdentity" e WHERE e."businessId" = NEW."businessId"
       AND e."environment" = NEW."environment" AND e."kind" = 'participant' AND e."valueHash" = "erasure_hash"(NEW."id")) THEN
    NEW."email" := NULL; NEW."name" := NULL; NEW."externalId" := NULL; NEW."handle" := NULL;
  END IF;
  RETURN NEW;
END
$fn$;
