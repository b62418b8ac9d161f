-- Settings that may differ between TEST and LIVE: reward amounts, caps, the low-pool alert and
-- auto-refill. A row per business and environment once that environment was configured on its
-- own; without a row the environment uses the business-wide values in "BusinessConfig".
CREATE TABLE "EnvironmentConfig" (
    "businessId" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "referralRewardWei" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "bonusWei" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "maxEthPerDayPerUserWei" DECIMAL(78,0),
    "maxReferralEthPerEventWei" DECIMAL(78,0),
    "maxBonusEthPerEventWei" DECIMAL(78,0),
    "lowPoolAlertWei" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "autoRefillEnabled" BOOLEAN NOT NULL DEFAULT false,
    "autoRefillAmountWei" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "EnvironmentConfig_pkey" PRIMARY KEY ("businessId", "environment"),
    CONSTRAINT "EnvironmentConfig_amounts_check" CHECK (
        "referralRewardWei" >= 0 AND "bonusWei" >= 0 AND "lowPoolAlertWei" >= 0 AND "autoRefillAmountWei" >= 0
        AND ("maxEthPerDayPerUserWei" IS NULL OR "maxEthPerDayPerUserWei" >= 0)
        AND ("maxReferralEthPerEventWei" IS NULL OR "maxReferralEthPerEventWei" >= 0)
        AND ("maxBonusEthPerEventWei" IS NULL OR "maxBonusEthPerEventWei" >= 0)
    )
);

ALTER TABLE "EnvironmentConfig" ADD CONSTRAINT "EnvironmentConfig_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE;
