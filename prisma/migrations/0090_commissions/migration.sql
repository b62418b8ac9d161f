-- Commissions (issue 27): amounts on events, commission rules per business and environment,
-- the prices that convert an event's currency to ETH, and what each commission reward was
-- computed from (rule, base amount, rate), so a reward can be audited after the rule or the
-- price changed.

-- An event's amount: exact decimal (ETH up to 18 decimals, fiat in its minor units), positive,
-- and always with its currency.
ALTER TABLE "TrackedEvent" ADD COLUMN "amount" NUMERIC(78, 18),
  ADD COLUMN "currency" TEXT,
  ADD CONSTRAINT "TrackedEvent_amount_check" CHECK ("amount" IS NULL OR "amount" > 0),
  ADD CONSTRAINT "TrackedEvent_amount_currency_check" CHECK (("amount" IS NULL) = ("currency" IS NULL));

-- The currency of an amount sent without one; per environment like the amounts (config/effective.ts).
ALTER TABLE "BusinessConfig" ADD COLUMN "defaultCurrency" TEXT NOT NULL DEFAULT 'USD';
ALTER TABLE "EnvironmentConfig" ADD COLUMN "defaultCurrency" TEXT NOT NULL DEFAULT 'USD';

-- A commission reward: what a commission rule pays (beside the one-time REFERRAL and BONUS).
ALTER TYPE "RewardKind" ADD VALUE IF NOT EXISTS 'COMMISSION';

CREATE TABLE "CommissionRule" (
  "id" TEXT PRIMARY KEY,
  "businessId" TEXT NOT NULL REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  "environment" "Environment" NOT NULL,
  "name" TEXT NOT NULL,
  "eventName" TEXT NOT NULL,
  "recipient" TEXT NOT NULL,
  "type" TEXT NOT NULL,
  "percent" NUMERIC(5, 2),
  "amount" NUMERIC(78, 18),
  "currency" TEXT,
  "durationMonths" INTEGER,
  "maxRewardsPerReferral" INTEGER,
  "tierPercents" JSONB NOT NULL DEFAULT '{}',
  "enabled" BOOLEAN NOT NULL DEFAULT true,
  "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updatedAt" TIMESTAMP(3) NOT NULL,
  -- Deleted rules stay (rewards name them) but no longer apply nor list.
  "deletedAt" TIMESTAMP(3),
  CONSTRAINT "CommissionRule_recipient_check" CHECK ("recipient" IN ('REFERRER', 'REFERRED')),
  CONSTRAINT "CommissionRule_type_check" CHECK (
    ("type" = 'PERCENT' AND "percent" > 0 AND "percent" <= 100)
    OR ("type" = 'FIXED' AND "amount" > 0 AND "currency" IS NOT NULL)),
  CONSTRAINT "CommissionRule_duration_check" CHECK ("durationMonths" IS NULL OR "durationMonths" BETWEEN 1 AND 120),
  CONSTRAINT "CommissionRule_max_check" CHECK ("maxRewardsPerReferral" IS NULL OR "maxRewardsPerReferral" >= 1)
);
CREATE INDEX "CommissionRule_businessId_environment_idx" ON "CommissionRule"("businessId", "environment");

-- How an environment prices 1 ETH in other currencies: FIXED rates, or Chainlink feeds.
CREATE TABLE "PricingConfig" (
  "businessId" TEXT NOT NULL REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  "environment" "Environment" NOT NULL,
  "source" TEXT NOT NULL DEFAULT 'FIXED',
  "rates" JSONB NOT NULL DEFAULT '{}',
  "feeds" JSONB NOT NULL DEFAULT '{}',
  "maxAgeSeconds" INTEGER NOT NULL DEFAULT 3600,
  "updatedAt" TIMESTAMP(3) NOT NULL,
  PRIMARY KEY ("businessId", "environment"),
  CONSTRAINT "PricingConfig_source_check" CHECK ("source" IN ('FIXED', 'CHAINLINK')),
  CONSTRAINT "PricingConfig_max_age_check" CHECK ("maxAgeSeconds" BETWEEN 1 AND 604800)
);

-- What a commission reward was computed from.
ALTER TABLE "Reward" ADD COLUMN "ruleId" TEXT REFERENCES "CommissionRule"("id") ON DELETE SET NULL ON UPDATE CASCADE,
  ADD COLUMN "baseAmount" NUMERIC(78, 18),
  ADD COLUMN "baseCurrency" TEXT,
  ADD COLUMN "rate" NUMERIC(78, 18),
  ADD COLUMN "rateSource" TEXT,
  ADD COLUMN "rateAt" TIMESTAMP(3);

-- A replayed or retried event never earns twice: one reward per event, rule and participant.
CREATE UNIQUE INDEX "Reward_commission_once_idx" ON "Reward"("eventId", "ruleId", "participantId") WHERE "ruleId" IS NOT NULL;
-- The rules core counts a rule's rewards per referral (maxRewardsPerReferral).
CREATE INDEX "Reward_ruleId_referralId_idx" ON "Reward"("ruleId", "referralId") WHERE "ruleId" IS NOT NULL;
