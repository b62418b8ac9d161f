-- Payout wallets that no participant can use to block or bleed a payout run
-- (docs/operations.md, "Payouts").
--
-- walletFailure / walletFailedAt: the participant's wallet refused a payout (its transfer reverted
-- in estimation or on chain, or it needs more gas than PAYOUT_MAX_GAS). Payout runs skip the
-- participant until the wallet changes; changing the wallet clears the mark (trigger below), and
-- the dashboard's wallet form clears it when the same wallet is saved again (a deliberate retry).
ALTER TABLE "Participant" ADD COLUMN "walletFailure" TEXT;
ALTER TABLE "Participant" ADD COLUMN "walletFailedAt" TIMESTAMP(3);

CREATE FUNCTION "participant_wallet_changed"() RETURNS trigger AS $$
BEGIN
  IF NEW."walletAddress" IS DISTINCT FROM OLD."walletAddress" THEN
    NEW."walletFailure" := NULL;
    NEW."walletFailedAt" := NULL;
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "Participant_wallet_changed" BEFORE UPDATE OF "walletAddress" ON "Participant"
  FOR EACH ROW EXECUTE FUNCTION "participant_wallet_changed"();

-- No wallet in the reserved low range: the zero address, the precompiles (0x…01–0x…11 today,
-- 0x…0100 for P-256) and every address up to 0x…ffff, where precompiles and protocol addresses
-- are placed. Addresses are stored checksummed (digits only in this range, so case is moot).
-- NOT VALID: rows written before this migration are not rechecked (payout runs refuse them).
ALTER TABLE "Participant" ADD CONSTRAINT "Participant_wallet_not_reserved"
  CHECK ("walletAddress" IS NULL OR lower("walletAddress") !~ '^0x0{36}') NOT VALID;
