-- A per-environment choice: grant no customer bonus to a referred customer who has no payout
-- wallet when the qualifying event is decided (rules/bonus-wallet.ts). Default off.
ALTER TABLE "BusinessConfig" ADD COLUMN "bonusRequiresWallet" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "EnvironmentConfig" ADD COLUMN "bonusRequiresWallet" BOOLEAN NOT NULL DEFAULT false;
