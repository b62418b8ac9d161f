-- The asset an environment's program counts its money in (docs/payouts.md): no row is ETH. A
-- token is an ERC-20 read on the environment's chain (symbol, decimals 0-18).
CREATE TABLE "EnvironmentAsset" (
  "businessId"   TEXT NOT NULL,
  "environment"  "Environment" NOT NULL,
  "asset"        TEXT NOT NULL DEFAULT 'ETH',
  "tokenAddress" TEXT,
  "symbol"       TEXT NOT NULL DEFAULT 'ETH',
  "decimals"     INTEGER NOT NULL DEFAULT 18,
  "updatedAt"    TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "EnvironmentAsset_pkey" PRIMARY KEY ("businessId", "environment"),
  CONSTRAINT "EnvironmentAsset_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "EnvironmentAsset_kind" CHECK (
    ("asset" = 'ETH' AND "tokenAddress" IS NULL AND "decimals" = 18)
    OR ("asset" = 'ERC20' AND "tokenAddress" ~ '^0x[0-9a-fA-F]{40}$' AND "decimals" BETWEEN 0 AND 18)
  )
);

-- A program's money stays in one asset: once the environment has a ledger entry, its asset can
-- no longer change (the service answers 422 ASSET_LOCKED first; this holds for any writer).
CREATE FUNCTION "environment_asset_locked"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  b TEXT := COALESCE(NEW."businessId", OLD."businessId");
  e "Environment" := COALESCE(NEW."environment", OLD."environment");
  old_kind TEXT := CASE WHEN TG_OP = 'INSERT' THEN 'ETH' ELSE OLD."asset" END;
  old_token TEXT := CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE lower(OLD."tokenAddress") END;
  new_kind TEXT := CASE WHEN TG_OP = 'DELETE' THEN 'ETH' ELSE NEW."asset" END;
  new_token TEXT := CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE lower(NEW."tokenAddress") END;
BEGIN
  IF (old_kind, old_token) IS DISTINCT FROM (new_kind, new_token)
     AND EXISTS (SELECT 1 FROM "LedgerEntry" WHERE "businessId" = b AND "environment" = e) THEN
    RAISE EXCEPTION 'ASSET_LOCKED: the environment has ledger entries; its asset cannot change' USING ERRCODE = '23514';
  END IF;
  RETURN COALESCE(NEW, OLD);
END $$;
CREATE TRIGGER "EnvironmentAsset_locked" BEFORE INSERT OR UPDATE OR DELETE ON "EnvironmentAsset"
  FOR EACH ROW EXECUTE FUNCTION "environment_asset_locked"();

-- Each token Transfer log credited by a funding verification, once ever: the transaction's one
-- ledger credit sums them (LedgerEntry's unique (environment, txHash) holds the transaction once).
CREATE TABLE "FundingTransfer" (
  "environment"   "Environment" NOT NULL,
  "txHash"        TEXT NOT NULL,
  "logIndex"      INTEGER NOT NULL,
  "businessId"    TEXT NOT NULL,
  "ledgerEntryId" TEXT NOT NULL,
  "tokenAddress"  TEXT NOT NULL,
  "fromAddress"   TEXT NOT NULL,
  "amount"        DECIMAL(78,0) NOT NULL CHECK ("amount" > 0),
  "createdAt"     TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "FundingTransfer_pkey" PRIMARY KEY ("environment", "txHash", "logIndex"),
  CONSTRAINT "FundingTransfer_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "FundingTransfer_ledgerEntryId_fkey" FOREIGN KEY ("ledgerEntryId") REFERENCES "LedgerEntry"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "FundingTransfer_ledgerEntryId_idx" ON "FundingTransfer"("ledgerEntryId");
