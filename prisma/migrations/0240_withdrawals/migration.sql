-- Withdrawals requested by the referrer in the portal (docs/payouts.md, Withdrawals). Business-wide
-- settings: off by default; the minimum defaults to minPayoutWei while null.
ALTER TABLE "BusinessConfig" ADD COLUMN "withdrawalsEnabled" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "BusinessConfig" ADD COLUMN "minWithdrawalWei" DECIMAL(78,0) CHECK ("minWithdrawalWei" >= 0);

CREATE TYPE "WithdrawalStatus" AS ENUM ('REQUESTED', 'SENT', 'PAID', 'FAILED');

CREATE TABLE "Withdrawal" (
  "id"            TEXT NOT NULL,
  "businessId"    TEXT NOT NULL,
  "environment"   "Environment" NOT NULL,
  "participantId" TEXT NOT NULL,
  "amountWei"     DECIMAL(78,0) NOT NULL CHECK ("amountWei" > 0),
  "status"        "WithdrawalStatus" NOT NULL DEFAULT 'REQUESTED',
  "payoutId"      TEXT,
  "failureCode"   TEXT,
  "failure"       TEXT,
  "createdAt"     TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "settledAt"     TIMESTAMP(3),
  "updatedAt"     TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "Withdrawal_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "Withdrawal_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "Withdrawal_participantId_fkey" FOREIGN KEY ("participantId") REFERENCES "Participant"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "Withdrawal_payoutId_fkey" FOREIGN KEY ("payoutId") REFERENCES "Payout"("id") ON DELETE SET NULL ON UPDATE CASCADE,
  -- A request waiting for its run has no payout yet; one being paid or paid has one.
  CONSTRAINT "Withdrawal_payout" CHECK ("status" = 'FAILED' OR ("status" = 'REQUESTED') = ("payoutId" IS NULL))
);
CREATE INDEX "Withdrawal_participantId_createdAt_idx" ON "Withdrawal"("participantId", "createdAt");
CREATE INDEX "Withdrawal_businessId_environment_status_idx" ON "Withdrawal"("businessId", "environment", "status");
CREATE INDEX "Withdrawal_payoutId_idx" ON "Withdrawal"("payoutId");
-- One open request per referrer (409 WITHDRAWAL_PENDING): SQL only, Prisma has no partial index.
CREATE UNIQUE INDEX "Withdrawal_one_open" ON "Withdrawal"("participantId") WHERE "status" IN ('REQUESTED', 'SENT');

-- A withdrawal follows the payout that pays it, whoever writes payouts: the participant's first
-- payout recorded after the request takes it (SENT, PAID when confirmed, FAILED when refused).
CREATE FUNCTION "withdrawal_status_of"(s "PayoutStatus") RETURNS "WithdrawalStatus" LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE s WHEN 'CONFIRMED' THEN 'PAID'::"WithdrawalStatus" WHEN 'FAILED' THEN 'FAILED'::"WithdrawalStatus" ELSE 'SENT'::"WithdrawalStatus" END
$$;

CREATE FUNCTION "withdrawal_follow_payout"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  st "WithdrawalStatus" := "withdrawal_status_of"(NEW."status");
  done TIMESTAMP(3) := CASE WHEN NEW."status" IN ('CONFIRMED', 'FAILED') THEN COALESCE(NEW."confirmedAt", NEW."failedAt", CURRENT_TIMESTAMP) END;
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE "Withdrawal" SET "payoutId" = NEW."id", "status" = st, "settledAt" = done, "updatedAt" = CURRENT_TIMESTAMP,
           "failureCode" = CASE WHEN st = 'FAILED' THEN 'PAYOUT_FAILED' END,
           "failure" = CASE WHEN st = 'FAILED' THEN NEW."error" END
     WHERE "participantId" = NEW."participantId" AND "environment" = NEW."environment" AND "status" = 'REQUESTED';
  ELSIF NEW."status" IS DISTINCT FROM OLD."status" THEN
    UPDATE "Withdrawal" SET "status" = st, "settledAt" = done, "updatedAt" = CURRENT_TIMESTAMP,
           "failureCode" = CASE WHEN st = 'FAILED' THEN 'PAYOUT_FAILED' END,
           "failure" = CASE WHEN st = 'FAILED' THEN NEW."error" END
     WHERE "payoutId" = NEW."id";
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER "Payout_withdrawal" AFTER INSERT OR UPDATE OF "status" ON "Payout"
  FOR EACH ROW EXECUTE FUNCTION "withdrawal_follow_payout"();
