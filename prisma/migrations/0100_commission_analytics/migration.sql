-- Commission analytics (GET /business/analytics/commissions): revenue attributed to referrals
-- and commissions granted over a range of days. Partial and covering, so that each holds only
-- the rows its query asks for (events of referred users that carry an amount; earned rewards of
-- commission rules) and answers from the index alone; every other event or reward writes no
-- entry here.
CREATE INDEX "TrackedEvent_revenue_idx" ON "TrackedEvent" ("businessId", "environment", "createdAt")
  INCLUDE ("currency", "amount", "status")
  WHERE "referralId" IS NOT NULL AND "amount" IS NOT NULL;

CREATE INDEX "Reward_commission_paid_idx" ON "Reward" ("businessId", "environment", "paidAt")
  INCLUDE ("ruleId", "amountWei")
  WHERE "ruleId" IS NOT NULL AND "status" = 'PAID';
