-- The payout state a reward gets when it becomes PAID, written once: a SQL function (inlined by
-- the planner) that both the Reward_payout_state trigger and the rules core's bulk reward insert
-- call, so that the holding-period expression exists in one place.
CREATE OR REPLACE FUNCTION "reward_payout_of"(paid TIMESTAMP(3), hold INTEGER, OUT "payoutStatus" "RewardPayoutStatus", OUT "payableAt" TIMESTAMP(3))
  LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN hold = 0 THEN 'PAYABLE'::"RewardPayoutStatus" ELSE 'ON_HOLD'::"RewardPayoutStatus" END,
         COALESCE(paid, CURRENT_TIMESTAMP) + make_interval(days => hold)
$$;

-- The business's holding period in days (0 without a config row).
CREATE OR REPLACE FUNCTION "reward_hold_days"(business TEXT) RETURNS INTEGER
  LANGUAGE sql STABLE AS $$
  SELECT COALESCE((SELECT "payoutHoldDays" FROM "BusinessConfig" WHERE "businessId" = business), 0)
$$;

CREATE OR REPLACE FUNCTION "reward_payout_state"() RETURNS trigger AS $$
BEGIN
  IF NEW."status" = 'PAID' AND NEW."payoutStatus" IS NULL THEN
    SELECT s."payoutStatus", s."payableAt" INTO NEW."payoutStatus", NEW."payableAt"
      FROM "reward_payout_of"(NEW."paidAt", "reward_hold_days"(NEW."businessId")) AS s;
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
