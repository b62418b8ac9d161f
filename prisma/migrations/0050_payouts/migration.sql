-- Payouts: participants' wallets, the payout state of each reward, on-chain payouts signed and
-- recorded before broadcast, reversals (refunds, chargebacks), and the ledger kinds they write.

ALTER TYPE "LedgerKind" ADD VALUE IF NOT EXISTS 'GAS';
ALTER TYPE "LedgerKind" ADD VALUE IF NOT EXISTS 'REVERSAL';
ALTER TYPE "JobType" ADD VALUE IF NOT EXISTS 'REWARD_PAYOUT';

-- Checksummed EVM address (validated and checksummed by the service).
ALTER TABLE "Participant" ADD COLUMN "walletAddress" TEXT;
ALTER TABLE "Participant" ADD CONSTRAINT "Participant_walletAddress_format" CHECK ("walletAddress" IS NULL OR "walletAddress" ~ '^0x[0-9a-fA-F]{40}$');

ALTER TABLE "BusinessConfig" ADD COLUMN "payoutHoldDays" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "BusinessConfig" ADD COLUMN "minPayoutWei" DECIMAL(78,0) NOT NULL DEFAULT 0;
ALTER TABLE "BusinessConfig" ADD COLUMN "autoPayoutEnabled" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "BusinessConfig" ADD COLUMN "reversalEvents" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "BusinessConfig" ADD CONSTRAINT "BusinessConfig_payoutHoldDays_range" CHECK ("payoutHoldDays" BETWEEN 0 AND 90);
ALTER TABLE "BusinessConfig" ADD CONSTRAINT "BusinessConfig_minPayoutWei_nonneg" CHECK ("minPayoutWei" >= 0);

CREATE TYPE "PayoutStatus" AS ENUM ('PENDING', 'SENT', 'CONFIRMED', 'FAILED');
CREATE TYPE "RewardPayoutStatus" AS ENUM ('ON_HOLD', 'PAYABLE', 'IN_PAYOUT', 'PAID_OUT', 'REVERSED');
CREATE TYPE "ReversalOutcome" AS ENUM ('RETURNED_TO_POOL', 'CLAWBACK');

CREATE TABLE "Payout" (
  "id" TEXT NOT NULL,
  "businessId" TEXT NOT NULL,
  "environment" "Environment" NOT NULL,
  "participantId" TEXT NOT NULL,
  "walletAddress" TEXT NOT NULL,
  "fromAddress" TEXT NOT NULL,
  -- What the transaction sends: the rewards' sum minus the participant's clawbacks it offsets.
  "amountWei" DECIMAL(78,0) NOT NULL,
  "rewardsWei" DECIMAL(78,0) NOT NULL,
  "offsetWei" DECIMAL(78,0) NOT NULL DEFAULT 0,
  -- Gas reserved from the pool at signing (gas limit × max fee), and what the mined transaction cost.
  "gasReservedWei" DECIMAL(78,0) NOT NULL DEFAULT 0,
  "gasWei" DECIMAL(78,0),
  "status" "PayoutStatus" NOT NULL DEFAULT 'PENDING',
  -- The rewards this payout carries (kept when it fails and they return to PAYABLE).
  "rewardIds" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
  "chainId" INTEGER,
  "nonce" INTEGER,
  "txHash" TEXT,
  "rawTx" TEXT,
  "blockNumber" BIGINT,
  "error" TEXT,
  "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "sentAt" TIMESTAMP(3),
  "confirmedAt" TIMESTAMP(3),
  "failedAt" TIMESTAMP(3),
  "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "Payout_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "Payout_amounts_nonneg" CHECK ("amountWei" >= 0 AND "rewardsWei" >= 0 AND "offsetWei" >= 0 AND "amountWei" = "rewardsWei" - "offsetWei"),
  -- Signed and recorded before broadcast: a PENDING/SENT/CONFIRMED payout that moves ETH has its transaction.
  CONSTRAINT "Payout_signed_before_sent" CHECK ("status" IN ('FAILED') OR "amountWei" = 0 OR ("txHash" IS NOT NULL AND "rawTx" IS NOT NULL AND "nonce" IS NOT NULL))
);
CREATE INDEX "Payout_businessId_environment_createdAt_idx" ON "Payout" ("businessId", "environment", "createdAt");
CREATE INDEX "Payout_participantId_createdAt_idx" ON "Payout" ("participantId", "createdAt");
CREATE INDEX "Payout_status_idx" ON "Payout" ("status");
-- One live transaction per sender and nonce: two payouts can never be signed at the same nonce.
CREATE UNIQUE INDEX "Payout_sender_nonce_key" ON "Payout" ("environment", "fromAddress", "nonce") WHERE "nonce" IS NOT NULL AND "status" <> 'FAILED';
ALTER TABLE "Payout" ADD CONSTRAINT "Payout_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Payout" ADD CONSTRAINT "Payout_participantId_fkey" FOREIGN KEY ("participantId") REFERENCES "Participant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Every signed transaction of a payout: the original and its fee-bump replacements (same nonce).
CREATE TABLE "PayoutTransaction" (
  "id" TEXT NOT NULL,
  "payoutId" TEXT NOT NULL,
  "txHash" TEXT NOT NULL,
  "rawTx" TEXT NOT NULL,
  "nonce" INTEGER NOT NULL,
  "maxFeePerGas" DECIMAL(78,0) NOT NULL,
  "maxPriorityFeePerGas" DECIMAL(78,0) NOT NULL,
  "gasLimit" DECIMAL(78,0) NOT NULL,
  "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "PayoutTransaction_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "PayoutTransaction_txHash_key" ON "PayoutTransaction" ("txHash");
CREATE INDEX "PayoutTransaction_payoutId_idx" ON "PayoutTransaction" ("payoutId");
ALTER TABLE "PayoutTransaction" ADD CONSTRAINT "PayoutTransaction_payoutId_fkey" FOREIGN KEY ("payoutId") REFERENCES "Payout"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The per-sender lock: one row per sending address, locked FOR UPDATE while a nonce is taken.
CREATE TABLE "PayoutSender" (
  "environment" "Environment" NOT NULL,
  "address" TEXT NOT NULL,
  "businessId" TEXT NOT NULL,
  "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "PayoutSender_pkey" PRIMARY KEY ("environment", "address")
);
ALTER TABLE "PayoutSender" ADD CONSTRAINT "PayoutSender_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "Reward" ADD COLUMN "payoutStatus" "RewardPayoutStatus";
ALTER TABLE "Reward" ADD COLUMN "payableAt" TIMESTAMP(3);
ALTER TABLE "Reward" ADD COLUMN "payoutId" TEXT;
ALTER TABLE "Reward" ADD COLUMN "reversedAt" TIMESTAMP(3);
ALTER TABLE "Reward" ADD COLUMN "reversalReason" TEXT;
ALTER TABLE "Reward" ADD CONSTRAINT "Reward_payoutId_fkey" FOREIGN KEY ("payoutId") REFERENCES "Payout"("id") ON DELETE SET NULL ON UPDATE CASCADE;
-- A reward inside a payout is IN_PAYOUT or PAID_OUT (or reversed after), never PAYABLE/ON_HOLD.
ALTER TABLE "Reward" ADD CONSTRAINT "Reward_payout_link" CHECK (
  ("payoutStatus" IN ('IN_PAYOUT', 'PAID_OUT') AND "payoutId" IS NOT NULL)
  OR ("payoutStatus" IN ('ON_HOLD', 'PAYABLE') AND "payoutId" IS NULL)
  OR "payoutStatus" = 'REVERSED' OR "payoutStatus" IS NULL);
-- Rewards paid before payouts existed are payable now.
UPDATE "Reward" SET "payoutStatus" = 'PAYABLE', "payableAt" = COALESCE("paidAt", "createdAt") WHERE "status" = 'PAID';
CREATE INDEX "Reward_businessId_environment_payoutStatus_idx" ON "Reward" ("businessId", "environment", "payoutStatus", "participantId");
CREATE INDEX "Reward_payoutId_idx" ON "Reward" ("payoutId");

-- Earned at once, payable after the business's holding period: every reward that becomes PAID
-- (granted by the engine, released after review, or granted manually) gets its payout state
-- here, in the database, whichever code path wrote it.
CREATE OR REPLACE FUNCTION "reward_payout_state"() RETURNS trigger AS $$
DECLARE hold INTEGER;
BEGIN
  IF NEW."status" = 'PAID' AND NEW."payoutStatus" IS NULL THEN
    SELECT COALESCE((SELECT "payoutHoldDays" FROM "BusinessConfig" WHERE "businessId" = NEW."businessId"), 0) INTO hold;
    NEW."payableAt" := COALESCE(NEW."paidAt", CURRENT_TIMESTAMP) + make_interval(days => hold);
    NEW."payoutStatus" := CASE WHEN hold = 0 THEN 'PAYABLE'::"RewardPayoutStatus" ELSE 'ON_HOLD'::"RewardPayoutStatus" END;
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "Reward_payout_state" BEFORE INSERT OR UPDATE OF "status" ON "Reward"
  FOR EACH ROW EXECUTE FUNCTION "reward_payout_state"();

-- Reversals (refunds, chargebacks): one per reward. RETURNED_TO_POOL credits the pool at once;
-- CLAWBACK (already paid out) leaves a debt that the participant's next payouts offset.
CREATE TABLE "RewardReversal" (
  "id" TEXT NOT NULL,
  "businessId" TEXT NOT NULL,
  "environment" "Environment" NOT NULL,
  "rewardId" TEXT NOT NULL,
  "participantId" TEXT NOT NULL,
  "amountWei" DECIMAL(78,0) NOT NULL,
  "outcome" "ReversalOutcome" NOT NULL,
  "reason" TEXT NOT NULL,
  "eventName" TEXT,
  "eventId" TEXT,
  "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "RewardReversal_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "RewardReversal_amount_nonneg" CHECK ("amountWei" >= 0)
);
CREATE UNIQUE INDEX "RewardReversal_rewardId_key" ON "RewardReversal" ("rewardId");
CREATE INDEX "RewardReversal_participantId_idx" ON "RewardReversal" ("participantId", "outcome");
CREATE INDEX "RewardReversal_businessId_environment_createdAt_idx" ON "RewardReversal" ("businessId", "environment", "createdAt");
ALTER TABLE "RewardReversal" ADD CONSTRAINT "RewardReversal_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "RewardReversal" ADD CONSTRAINT "RewardReversal_rewardId_fkey" FOREIGN KEY ("rewardId") REFERENCES "Reward"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "RewardReversal" ADD CONSTRAINT "RewardReversal_participantId_fkey" FOREIGN KEY ("participantId") REFERENCES "Participant"("id") ON DELETE CASCADE ON UPDATE CASCADE;
