-- The pool row holds its running balance, and the database guards it (docs/operations.md,
-- "The balance invariant"):
--   * every INSERT into "LedgerEntry" adds the inserted amounts to "Pool"."balanceWei" in the
--     same statement (a statement-level trigger; kind-agnostic: the sign of amountWei decides),
--     creating the pool row when it is missing;
--   * CHECK (balanceWei >= 0): a write that would overspend the pool fails, whatever code did it;
--   * ledger rows are append-only: amountWei, businessId and environment cannot be updated.
-- The ledger stays the audit trail: balanceWei = SUM(LedgerEntry.amountWei) per business+env.

ALTER TABLE "Pool" ADD COLUMN "balanceWei" DECIMAL(78,0) NOT NULL DEFAULT 0;

-- Backfill: a pool row for every business+environment with ledger entries, balance = ledger sum.
INSERT INTO "Pool" ("id", "businessId", "environment", "belowThreshold", "balanceWei", "createdAt", "updatedAt")
SELECT gen_random_uuid()::text, l."businessId", l."environment", false, 0, (now() AT TIME ZONE 'UTC'), (now() AT TIME ZONE 'UTC')
  FROM "LedgerEntry" l GROUP BY l."businessId", l."environment"
ON CONFLICT ("businessId", "environment") DO NOTHING;

UPDATE "Pool" p SET "balanceWei" = COALESCE(
  (SELECT SUM(l."amountWei") FROM "LedgerEntry" l WHERE l."businessId" = p."businessId" AND l."environment" = p."environment"), 0);

ALTER TABLE "Pool" ADD CONSTRAINT "Pool_balanceWei_nonnegative" CHECK ("balanceWei" >= 0);

CREATE FUNCTION "LedgerEntry_apply_to_pool"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  -- Existing pools first (an INSERT … ON CONFLICT would check the CHECK on the candidate row, i.e.
  -- on the entry's own amount, before finding the conflict), then pools seen for the first time.
  UPDATE "Pool" p SET "balanceWei" = p."balanceWei" + s.amount, "updatedAt" = (now() AT TIME ZONE 'UTC')
    FROM (SELECT n."businessId", n."environment", SUM(n."amountWei") AS amount
            FROM new_entries n GROUP BY n."businessId", n."environment") s
   WHERE p."businessId" = s."businessId" AND p."environment" = s."environment";
  INSERT INTO "Pool" ("id", "businessId", "environment", "belowThreshold", "balanceWei", "createdAt", "updatedAt")
  SELECT gen_random_uuid()::text, n."businessId", n."environment", false, SUM(n."amountWei"), (now() AT TIME ZONE 'UTC'), (now() AT TIME ZONE 'UTC')
    FROM new_entries n
   WHERE NOT EXISTS (SELECT 1 FROM "Pool" p WHERE p."businessId" = n."businessId" AND p."environment" = n."environment")
   GROUP BY n."businessId", n."environment"
  ON CONFLICT ("businessId", "environment")
  DO UPDATE SET "balanceWei" = "Pool"."balanceWei" + EXCLUDED."balanceWei", "updatedAt" = EXCLUDED."updatedAt";
  RETURN NULL;
END
$fn$;

CREATE TRIGGER "LedgerEntry_apply_to_pool" AFTER INSERT ON "LedgerEntry"
  REFERENCING NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION "LedgerEntry_apply_to_pool"();

CREATE FUNCTION "LedgerEntry_append_only"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW."amountWei" IS DISTINCT FROM OLD."amountWei" OR NEW."businessId" IS DISTINCT FROM OLD."businessId"
     OR NEW."environment" IS DISTINCT FROM OLD."environment" THEN
    RAISE EXCEPTION 'LedgerEntry is append-only: amountWei, businessId and environment cannot change'
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$fn$;

CREATE TRIGGER "LedgerEntry_append_only" BEFORE UPDATE ON "LedgerEntry"
  FOR EACH ROW EXECUTE FUNCTION "LedgerEntry_append_only"();

-- One ledger entry per reward and kind (a reward is debited once; a reversal or gas entry of the
-- same reward is another kind). Also serves lookups by rewardId (leading column).
CREATE UNIQUE INDEX "LedgerEntry_rewardId_kind_key" ON "LedgerEntry"("rewardId", "kind");

-- At most one paid REFERRAL reward (and one paid BONUS) per referral.
CREATE UNIQUE INDEX "Reward_referralId_kind_paid_key" ON "Reward"("referralId", "kind")
  WHERE "status" = 'PAID' AND "kind" IN ('REFERRAL', 'BONUS');

-- A txHash is credited once per environment: already "LedgerEntry_environment_txHash_key" (0001).
