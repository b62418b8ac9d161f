-- Wallets proven by signature (the portal's Sign-In with Ethereum step), and the settings that use
-- them. The database holds the rules:
--  * walletVerified ⇔ walletVerifiedAt is set, and only with a wallet;
--  * a wallet changed by any other path (SDK, dashboard) is unverified until signed again: the
--    trigger clears the flag unless the same statement sets a new walletVerifiedAt;
--  * one verified owner per wallet within a business and environment (WALLET_IN_USE).
ALTER TABLE "Participant" ADD COLUMN "walletVerified" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Participant" ADD COLUMN "walletVerifiedAt" TIMESTAMP(3);
ALTER TABLE "Participant" ADD CONSTRAINT "Participant_wallet_verified_check"
  CHECK ("walletVerified" = ("walletVerifiedAt" IS NOT NULL) AND (NOT "walletVerified" OR "walletAddress" IS NOT NULL));
CREATE UNIQUE INDEX "Participant_verified_wallet_key" ON "Participant" ("businessId", "environment", "walletAddress") WHERE "walletVerified";

CREATE FUNCTION "participant_wallet_unverify"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW."walletAddress" IS DISTINCT FROM OLD."walletAddress" AND NEW."walletVerifiedAt" IS NOT DISTINCT FROM OLD."walletVerifiedAt" THEN
    NEW."walletVerified" := false;
    NEW."walletVerifiedAt" := NULL;
  END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER "Participant_wallet_unverify" BEFORE UPDATE OF "walletAddress" ON "Participant"
  FOR EACH ROW EXECUTE FUNCTION "participant_wallet_unverify"();

-- Payouts go only to verified wallets when set (one payout policy per business, like the hold).
ALTER TABLE "BusinessConfig" ADD COLUMN "requireVerifiedWallet" BOOLEAN NOT NULL DEFAULT false;
-- The portal's leaderboard is opt-in, per environment (business-wide value, environment override).
ALTER TABLE "BusinessConfig" ADD COLUMN "leaderboardEnabled" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "EnvironmentConfig" ADD COLUMN "leaderboardEnabled" BOOLEAN NOT NULL DEFAULT false;
