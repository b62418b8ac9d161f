-- Partial refunds: a reward can be reversed in several parts (POST /sdk/rewards/reverse with an
-- eventId and an amount), so a reward has any number of reversals instead of at most one.
DROP INDEX "RewardReversal_rewardId_key";
CREATE INDEX "RewardReversal_rewardId_idx" ON "RewardReversal" ("rewardId");

-- What a reward's reversals add up to, kept by the trigger below from the reversal rows
-- themselves: "reversedWei" all of them, "returnedWei" the part returned to the pool (never paid
-- out: the reward pays "amountWei" - "returnedWei"). The CHECK is the guard that several partial
-- reversals, however they interleave, never reverse more than the reward.
ALTER TABLE "Reward" ADD COLUMN "reversedWei" DECIMAL(78,0) NOT NULL DEFAULT 0;
ALTER TABLE "Reward" ADD COLUMN "returnedWei" DECIMAL(78,0) NOT NULL DEFAULT 0;
UPDATE "Reward" r SET "reversedWei" = v.total, "returnedWei" = v.returned
  FROM (SELECT "rewardId", SUM("amountWei") AS total, COALESCE(SUM("amountWei") FILTER (WHERE "outcome" = 'RETURNED_TO_POOL'), 0) AS returned
          FROM "RewardReversal" GROUP BY "rewardId") v
 WHERE v."rewardId" = r."id";
ALTER TABLE "Reward" ADD CONSTRAINT "Reward_reversed_within" CHECK (
  "returnedWei" >= 0 AND "returnedWei" <= "reversedWei" AND "reversedWei" <= "amountWei");

CREATE OR REPLACE FUNCTION "reward_reversal_sums"() RETURNS trigger AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE "Reward" SET "reversedWei" = "reversedWei" - OLD."amountWei",
                        "returnedWei" = "returnedWei" - CASE WHEN OLD."outcome" = 'RETURNED_TO_POOL' THEN OLD."amountWei" ELSE 0 END
     WHERE "id" = OLD."rewardId";
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE "Reward" SET "reversedWei" = "reversedWei" + NEW."amountWei",
                        "returnedWei" = "returnedWei" + CASE WHEN NEW."outcome" = 'RETURNED_TO_POOL' THEN NEW."amountWei" ELSE 0 END
     WHERE "id" = NEW."rewardId";
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "RewardReversal_sums" AFTER INSERT OR UPDATE OF "amountWei", "outcome", "rewardId" OR DELETE ON "RewardReversal"
  FOR EACH ROW EXECUTE FUNCTION "reward_reversal_sums"();

-- How much of an event's amount has been refunded (in the event's currency): partial refunds add
-- up here, never beyond the event's amount.
ALTER TABLE "TrackedEvent" ADD COLUMN "refundedAmount" DECIMAL(78,18) NOT NULL DEFAULT 0;
ALTER TABLE "TrackedEvent" ADD CONSTRAINT "TrackedEvent_refunded_within" CHECK (
  "refundedAmount" >= 0 AND "refundedAmount" <= COALESCE("amount", 0));
