-- Batch payouts (docs/payouts.md): one transaction through the BatchPayout contract pays many
-- participants. The batch holds the signed transaction (recorded before it is broadcast, like a
-- single payout's); each paid participant keeps their own Payout row, linked by "batchId", with
-- the batch's hash and nonce and their share of its gas. An APPROVAL batch pays nobody: it is
-- the deposit address's one-time approval of the contract for the program's token.
CREATE TYPE "PayoutBatchKind" AS ENUM ('ETH', 'TOKEN', 'APPROVAL');

CREATE TABLE "PayoutBatch" (
  "id"              TEXT NOT NULL,
  "businessId"      TEXT NOT NULL,
  "environment"     "Environment" NOT NULL,
  "kind"            "PayoutBatchKind" NOT NULL,
  "fromAddress"     TEXT NOT NULL,
  "contractAddress" TEXT NOT NULL,
  "tokenAddress"    TEXT,
  "chainId"         INTEGER NOT NULL,
  "chainGenesis"    TEXT,
  "nonce"           INTEGER NOT NULL,
  "txHash"          TEXT NOT NULL,
  "rawTx"           TEXT NOT NULL,
  "status"          "PayoutStatus" NOT NULL DEFAULT 'PENDING',
  "recipients"      INTEGER NOT NULL,
  "amountWei"       DECIMAL(78,0) NOT NULL,
  "gasReservedWei"  DECIMAL(78,0) NOT NULL DEFAULT 0,
  "gasWei"          DECIMAL(78,0),
  "blockNumber"     BIGINT,
  "error"           TEXT,
  "createdAt"       TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "sentAt"          TIMESTAMP(3),
  "confirmedAt"     TIMESTAMP(3),
  "failedAt"        TIMESTAMP(3),
  "updatedAt"       TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "PayoutBatch_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "PayoutBatch_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "PayoutBatch_amounts" CHECK ("amountWei" >= 0 AND "gasReservedWei" >= 0 AND ("gasWei" IS NULL OR "gasWei" >= 0)),
  -- A payment batch pays at least two (one goes as a plain transfer); an approval pays nobody.
  CONSTRAINT "PayoutBatch_kind" CHECK (
    ("kind" = 'APPROVAL' AND "recipients" = 0 AND "amountWei" = 0 AND "tokenAddress" IS NOT NULL)
    OR ("kind" = 'ETH' AND "recipients" >= 2 AND "tokenAddress" IS NULL)
    OR ("kind" = 'TOKEN' AND "recipients" >= 2 AND "tokenAddress" IS NOT NULL)
  )
);
CREATE INDEX "PayoutBatch_businessId_environment_createdAt_idx" ON "PayoutBatch" ("businessId", "environment", "createdAt");
CREATE INDEX "PayoutBatch_status_idx" ON "PayoutBatch" ("status");
-- One live transaction per sender and nonce among batches (and across tables: the trigger below).
CREATE UNIQUE INDEX "PayoutBatch_sender_nonce_key" ON "PayoutBatch" ("environment", "fromAddress", COALESCE("chainGenesis", ''), "nonce")
  WHERE "status" <> 'FAILED';

-- Every signed version of a batch's transaction (a fee bump replaces it at the same nonce).
CREATE TABLE "PayoutBatchTransaction" (
  "id"                   TEXT NOT NULL,
  "batchId"              TEXT NOT NULL,
  "txHash"               TEXT NOT NULL,
  "rawTx"                TEXT NOT NULL,
  "nonce"                INTEGER NOT NULL,
  "maxFeePerGas"         DECIMAL(78,0) NOT NULL,
  "maxPriorityFeePerGas" DECIMAL(78,0) NOT NULL,
  "gasLimit"             DECIMAL(78,0) NOT NULL,
  "createdAt"            TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "PayoutBatchTransaction_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "PayoutBatchTransaction_batchId_fkey" FOREIGN KEY ("batchId") REFERENCES "PayoutBatch"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "PayoutBatchTransaction_txHash_key" ON "PayoutBatchTransaction" ("txHash");
CREATE INDEX "PayoutBatchTransaction_batchId_idx" ON "PayoutBatchTransaction" ("batchId");

ALTER TABLE "Payout" ADD COLUMN "batchId" TEXT;
ALTER TABLE "Payout" ADD CONSTRAINT "Payout_batchId_fkey" FOREIGN KEY ("batchId") REFERENCES "PayoutBatch"("id") ON DELETE NO ACTION ON UPDATE CASCADE;
CREATE INDEX "Payout_batchId_idx" ON "Payout" ("batchId");

-- A payout in a batch carries the batch's hash and nonce; its raw transaction is the batch's.
ALTER TABLE "Payout" DROP CONSTRAINT "Payout_signed_before_sent";
ALTER TABLE "Payout" ADD CONSTRAINT "Payout_signed_before_sent" CHECK (
  "status" IN ('FAILED') OR "amountWei" = 0
  OR ("txHash" IS NOT NULL AND "nonce" IS NOT NULL AND ("rawTx" IS NOT NULL OR "batchId" IS NOT NULL))
);
-- A batch's payouts share its nonce: unique among single payouts only (batches: the index above).
DROP INDEX "Payout_sender_nonce_key";
CREATE UNIQUE INDEX "Payout_sender_nonce_key" ON "Payout" ("environment", "fromAddress", COALESCE("chainGenesis", ''), "nonce")
  WHERE "nonce" IS NOT NULL AND "status" <> 'FAILED' AND "batchId" IS NULL;

-- A nonce is live in one place: a single payout or a batch, never both.
CREATE FUNCTION "payout_nonce_once"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."nonce" IS NULL OR NEW."status" = 'FAILED' THEN RETURN NEW; END IF;
  IF TG_TABLE_NAME = 'Payout' THEN
    IF NEW."batchId" IS NULL AND EXISTS (
      SELECT 1 FROM "PayoutBatch" b WHERE b."environment" = NEW."environment" AND b."fromAddress" = NEW."fromAddress"
        AND COALESCE(b."chainGenesis", '') = COALESCE(NEW."chainGenesis", '') AND b."nonce" = NEW."nonce" AND b."status" <> 'FAILED') THEN
      RAISE EXCEPTION 'NONCE_TAKEN: nonce % of % is a batch''s', NEW."nonce", NEW."fromAddress" USING ERRCODE = '23514';
    END IF;
  ELSIF EXISTS (
      SELECT 1 FROM "Payout" p WHERE p."environment" = NEW."environment" AND p."fromAddress" = NEW."fromAddress" AND p."batchId" IS NULL
        AND COALESCE(p."chainGenesis", '') = COALESCE(NEW."chainGenesis", '') AND p."nonce" = NEW."nonce" AND p."status" <> 'FAILED') THEN
    RAISE EXCEPTION 'NONCE_TAKEN: nonce % of % is a single payout''s', NEW."nonce", NEW."fromAddress" USING ERRCODE = '23514';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER "Payout_nonce_once" BEFORE INSERT ON "Payout" FOR EACH ROW EXECUTE FUNCTION "payout_nonce_once"();
CREATE TRIGGER "PayoutBatch_nonce_once" BEFORE INSERT ON "PayoutBatch" FOR EACH ROW EXECUTE FUNCTION "payout_nonce_once"();

-- A batch's payout moves with its batch: it enters the batch it was signed in, never leaves it,
-- and takes each status only when the batch has it (so no payout is CONFIRMED by a batch that
-- is not, nor FAILED out of a batch that can still be mined).
CREATE FUNCTION "payout_follows_batch"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD."batchId" IS DISTINCT FROM NEW."batchId" THEN
    RAISE EXCEPTION 'A payout''s batch never changes (payout %)', NEW."id" USING ERRCODE = '23514';
  END IF;
  IF NEW."batchId" IS NOT NULL AND (TG_OP = 'INSERT' OR OLD."status" IS DISTINCT FROM NEW."status")
     AND NOT EXISTS (SELECT 1 FROM "PayoutBatch" b WHERE b."id" = NEW."batchId" AND b."status" = NEW."status") THEN
    RAISE EXCEPTION 'BATCH_STATUS: payout % cannot be % while its batch % is not', NEW."id", NEW."status", NEW."batchId" USING ERRCODE = '23514';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER "Payout_follows_batch" BEFORE INSERT OR UPDATE ON "Payout" FOR EACH ROW EXECUTE FUNCTION "payout_follows_batch"();
