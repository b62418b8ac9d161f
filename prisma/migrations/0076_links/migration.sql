-- Referral links (docs/api.md, "Referral links"): GET /r/:code redirects to the environment's
-- destination and records a click off the request path; a referral may name the click that
-- brought its user (clickId), which ties it to a campaign and UTM source; fraud signals read
-- the clicks and the payout wallets.

-- Link settings, per environment like the amounts (config/effective.ts).
ALTER TABLE "BusinessConfig" ADD COLUMN "linkDestinationUrl" TEXT,
  ADD COLUMN "linkParam" TEXT NOT NULL DEFAULT 'ref',
  ADD COLUMN "attribution" TEXT NOT NULL DEFAULT 'LAST_CLICK',
  ADD CONSTRAINT "BusinessConfig_attribution_check" CHECK ("attribution" IN ('FIRST_CLICK', 'LAST_CLICK')),
  -- The business-wide value applies to LIVE too: https only.
  ADD CONSTRAINT "BusinessConfig_link_https_check" CHECK ("linkDestinationUrl" IS NULL OR "linkDestinationUrl" LIKE 'https://%');
ALTER TABLE "EnvironmentConfig" ADD COLUMN "linkDestinationUrl" TEXT,
  ADD COLUMN "linkParam" TEXT NOT NULL DEFAULT 'ref',
  ADD COLUMN "attribution" TEXT NOT NULL DEFAULT 'LAST_CLICK',
  ADD CONSTRAINT "EnvironmentConfig_attribution_check" CHECK ("attribution" IN ('FIRST_CLICK', 'LAST_CLICK')),
  -- LIVE links lead to https only; TEST may use http (a local landing page).
  ADD CONSTRAINT "EnvironmentConfig_link_https_check" CHECK ("environment" = 'TEST' OR "linkDestinationUrl" IS NULL OR "linkDestinationUrl" LIKE 'https://%');

-- Fraud-signal rules: OFF, FLAG (hold for review) or REJECT.
ALTER TABLE "ReferralSettings" ADD COLUMN "sameVisitorRule" TEXT NOT NULL DEFAULT 'OFF',
  ADD COLUMN "clickVelocityRule" TEXT NOT NULL DEFAULT 'OFF',
  ADD COLUMN "walletSharedRule" TEXT NOT NULL DEFAULT 'OFF',
  ADD COLUMN "noClickRule" TEXT NOT NULL DEFAULT 'OFF',
  ADD COLUMN "clickVelocityPerHour" INTEGER NOT NULL DEFAULT 20,
  ADD CONSTRAINT "ReferralSettings_signal_rules_check" CHECK (
    "sameVisitorRule" IN ('OFF', 'FLAG', 'REJECT') AND "clickVelocityRule" IN ('OFF', 'FLAG', 'REJECT')
    AND "walletSharedRule" IN ('OFF', 'FLAG', 'REJECT') AND "noClickRule" IN ('OFF', 'FLAG', 'REJECT')
    AND "clickVelocityPerHour" >= 1);

-- Referral codes are unique across the installation (random, 8 characters), so /r/:code needs no
-- business in its path; handles are per business and found by this index.
CREATE UNIQUE INDEX "Participant_referralCode_key" ON "Participant" ("referralCode");
CREATE INDEX "Participant_handle_idx" ON "Participant" ("handle") WHERE "handle" IS NOT NULL;
-- WALLET_SHARED: the participants of a business and environment with this payout wallet.
CREATE INDEX "Participant_wallet_idx" ON "Participant" ("businessId", "environment", "walletAddress") WHERE "walletAddress" IS NOT NULL;

-- One click on a participant's link. No IP address or user agent is stored: visitorHash is an
-- HMAC of both under a key that changes every UTC day. `counted` marks the one click per
-- visitor, link and hour that analytics counts (bots and repeats are kept, uncounted).
CREATE TABLE "LinkClick" (
    "id" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "participantId" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "visitorHash" TEXT NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "refererHost" TEXT,
    "utmSource" TEXT,
    "utmMedium" TEXT,
    "utmCampaign" TEXT,
    "utmTerm" TEXT,
    "utmContent" TEXT,
    "bot" BOOLEAN NOT NULL DEFAULT false,
    "counted" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "LinkClick_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "LinkClick_counted_check" CHECK (NOT ("bot" AND "counted"))
);
ALTER TABLE "LinkClick" ADD CONSTRAINT "LinkClick_participant_tenant_fkey" FOREIGN KEY ("participantId", "businessId", "environment")
  REFERENCES "Participant" ("id", "businessId", "environment") ON DELETE CASCADE ON UPDATE CASCADE;
-- The dedup rule, held by the database: at most one counted click per visitor, link and hour.
CREATE UNIQUE INDEX "LinkClick_counted_key" ON "LinkClick" ("participantId", "visitorHash", "hour") WHERE "counted";
CREATE INDEX "LinkClick_businessId_environment_createdAt_idx" ON "LinkClick" ("businessId", "environment", "createdAt");
-- A visitor's clicks (attribution, SAME_VISITOR, CLICK_VELOCITY).
CREATE INDEX "LinkClick_businessId_environment_visitorHash_idx" ON "LinkClick" ("businessId", "environment", "visitorHash", "createdAt");
CREATE INDEX "LinkClick_participantId_createdAt_idx" ON "LinkClick" ("participantId", "createdAt");
CREATE INDEX "LinkClick_createdAt_idx" ON "LinkClick" ("createdAt");

-- Daily rollups of counted clicks, kept after the raw clicks are deleted (CLICK_RETENTION_DAYS).
CREATE TABLE "LinkClickDay" (
    "businessId" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "day" DATE NOT NULL,
    "participantId" TEXT NOT NULL,
    "campaign" TEXT NOT NULL DEFAULT '',
    "utmSource" TEXT NOT NULL DEFAULT '',
    "clicks" INTEGER NOT NULL,
    "uniqueClicks" INTEGER NOT NULL,
    CONSTRAINT "LinkClickDay_pkey" PRIMARY KEY ("businessId", "environment", "day", "participantId", "campaign", "utmSource")
);
ALTER TABLE "LinkClickDay" ADD CONSTRAINT "LinkClickDay_participant_tenant_fkey" FOREIGN KEY ("participantId", "businessId", "environment")
  REFERENCES "Participant" ("id", "businessId", "environment") ON DELETE CASCADE ON UPDATE CASCADE;

-- UTC days whose clicks are in LinkClickDay (every business at once): analytics reads the
-- rollups for these days and the raw clicks for the others.
CREATE TABLE "LinkClickRollup" (
    "day" DATE NOT NULL,
    "computedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "LinkClickRollup_pkey" PRIMARY KEY ("day")
);

-- The click a referral came from. No foreign key to LinkClick: the click may still be in an
-- instance's buffer when its referral is made, and clicks are deleted after the retention period.
CREATE TABLE "ReferralClick" (
    "referralId" TEXT NOT NULL,
    "clickId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ReferralClick_pkey" PRIMARY KEY ("referralId")
);
ALTER TABLE "ReferralClick" ADD CONSTRAINT "ReferralClick_referralId_fkey" FOREIGN KEY ("referralId") REFERENCES "Referral"("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX "ReferralClick_clickId_idx" ON "ReferralClick" ("clickId");

-- POST /track's clickId, kept on the event. When the event is linked to a referral (by any
-- processing path), the referral is linked to that click, once.
ALTER TABLE "TrackedEvent" ADD COLUMN "clickId" TEXT;
CREATE FUNCTION "TrackedEvent_link_click"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO "ReferralClick" ("referralId", "clickId") VALUES (NEW."referralId", NEW."clickId") ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER "TrackedEvent_link_click_insert" AFTER INSERT ON "TrackedEvent"
  FOR EACH ROW WHEN (NEW."clickId" IS NOT NULL AND NEW."referralId" IS NOT NULL) EXECUTE FUNCTION "TrackedEvent_link_click"();
CREATE TRIGGER "TrackedEvent_link_click_update" AFTER UPDATE OF "referralId" ON "TrackedEvent"
  FOR EACH ROW WHEN (NEW."clickId" IS NOT NULL AND NEW."referralId" IS NOT NULL) EXECUTE FUNCTION "TrackedEvent_link_click"();
