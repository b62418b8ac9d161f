-- Who reversed a reward from the dashboard (the staff user's id); null for reversals sent by the
-- API (POST /sdk/rewards/reverse) or by a tracked reversal event.
ALTER TABLE "RewardReversal" ADD COLUMN "reversedByUserId" TEXT;
