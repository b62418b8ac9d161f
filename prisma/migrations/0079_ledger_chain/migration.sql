-- A tamper-evident ledger (docs/trust.md): every LedgerEntry carries
--   seq  = its position in the chain of its business and environment (1, 2, 3, …), and
--   hash = sha256(previous entry's hash ‖ canonical fields), the first entry chaining to 64 zeros,
-- computed by the database as the row is written, whatever code wrote it (single writes, worker
-- batches, raw SQL). The chain's lock is the Pool row of the business and environment, which every
-- ledger writer already locks: concurrent writers serialise on it. The Pool row keeps the chain's
-- head (ledgerSeq, ledgerHead), set by the statement trigger that already keeps its balance, so a
-- removed last entry is noticed too. Rows can be neither updated nor deleted, except by deleting
-- the whole business (the cascade runs once its row is gone).
-- Canonical fields (server/domain/ledger/chain.ts computes the same): each value as
-- "<UTF-8 byte length>:<text>", NULL as "-", in this order: seq, id, businessId, environment,
-- kind, amountWei, txHash, rewardId, memo, createdAt (ISO 8601, milliseconds, "Z").

ALTER TABLE "LedgerEntry" ADD COLUMN "seq" BIGINT, ADD COLUMN "hash" TEXT;
ALTER TABLE "Pool" ADD COLUMN "ledgerSeq" BIGINT NOT NULL DEFAULT 0, ADD COLUMN "ledgerHead" TEXT;

CREATE FUNCTION "chain_field"(v text) RETURNS text LANGUAGE sql IMMUTABLE AS
$fn$ SELECT CASE WHEN v IS NULL THEN '-' ELSE octet_length(v)::text || ':' || v END $fn$;

CREATE FUNCTION "chain_time"(t timestamp) RETURNS text LANGUAGE sql IMMUTABLE AS
$fn$ SELECT to_char(t, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $fn$;

CREATE FUNCTION "chain_hash"(prev text, body text) RETURNS text LANGUAGE sql IMMUTABLE AS
$fn$ SELECT encode(sha256(convert_to(COALESCE(prev, repeat('0', 64)) || body, 'UTF8')), 'hex') $fn$;

CREATE FUNCTION "LedgerEntry_canonical"(e "LedgerEntry") RETURNS text LANGUAGE sql IMMUTABLE AS
$fn$ SELECT "chain_field"(e."seq"::text) || "chain_field"(e."id") || "chain_field"(e."businessId") || "chain_field"(e."environment"::text)
  || "chain_field"(e."kind"::text) || "chain_field"(e."amountWei"::text) || "chain_field"(e."txHash") || "chain_field"(e."rewardId")
  || "chain_field"(e."memo") || "chain_field"("chain_time"(e."createdAt")) $fn$;

-- Backfill: existing entries are chained in the order they were written (createdAt, then id).
UPDATE "LedgerEntry" l SET "seq" = o.n
  FROM (SELECT id, row_number() OVER (PARTITION BY "businessId", "environment" ORDER BY "createdAt", id) AS n FROM "LedgerEntry") o
 WHERE l.id = o.id;
DO $do$
DECLARE r record; prev text; b text; v text;
BEGIN
  FOR r IN SELECT l.id, l."businessId", l."environment"::text AS env, "LedgerEntry_canonical"(l) AS body
             FROM "LedgerEntry" l ORDER BY l."businessId", l."environment", l."seq" LOOP
    IF r."businessId" IS DISTINCT FROM b OR r.env IS DISTINCT FROM v THEN prev := NULL; b := r."businessId"; v := r.env; END IF;
    prev := "chain_hash"(prev, r.body);
    UPDATE "LedgerEntry" SET "hash" = prev WHERE id = r.id;
  END LOOP;
END
$do$;
UPDATE "Pool" p SET "ledgerSeq" = l."seq", "ledgerHead" = l."hash"
  FROM (SELECT DISTINCT ON ("businessId", "environment") "businessId", "environment", "seq", "hash"
          FROM "LedgerEntry" ORDER BY "businessId", "environment", "seq" DESC) l
 WHERE p."businessId" = l."businessId" AND p."environment" = l."environment";

ALTER TABLE "LedgerEntry" ALTER COLUMN "seq" SET NOT NULL, ALTER COLUMN "hash" SET NOT NULL;
-- The chain's order, and the lookup of its last entry.
CREATE UNIQUE INDEX "LedgerEntry_businessId_environment_seq_key" ON "LedgerEntry" ("businessId", "environment", "seq");

-- Each new row: lock the chain (the pool row, created when missing), take the next seq, hash.
-- Rows written earlier by the same statement are visible here, so a batch chains row by row.
CREATE FUNCTION "LedgerEntry_chain"() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE prev_seq bigint; prev_hash text;
BEGIN
  PERFORM 1 FROM "Pool" WHERE "businessId" = NEW."businessId" AND "environment" = NEW."environment" FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO "Pool" ("id", "businessId", "environment", "belowThreshold", "createdAt", "updatedAt")
    VALUES (gen_random_uuid()::text, NEW."businessId", NEW."environment", false, (now() AT TIME ZONE 'UTC'), (now() AT TIME ZONE 'UTC'))
    ON CONFLICT ("businessId", "environment") DO NOTHING;
    PERFORM 1 FROM "Pool" WHERE "businessId" = NEW."businessId" AND "environment" = NEW."environment" FOR UPDATE;
  END IF;
  SELECT l."seq", l."hash" INTO prev_seq, prev_hash FROM "LedgerEntry" l
   WHERE l."businessId" = NEW."businessId" AND l."environment" = NEW."environment"
   ORDER BY l."seq" DESC LIMIT 1;
  NEW."seq" := COALESCE(prev_seq, 0) + 1;
  NEW."hash" := "chain_hash"(prev_hash, "LedgerEntry_canonical"(NEW));
  RETURN NEW;
END
$fn$;

CREATE TRIGGER "LedgerEntry_chain" BEFORE INSERT ON "LedgerEntry" FOR EACH ROW EXECUTE FUNCTION "LedgerEntry_chain"();

-- The statement trigger of migration 0010 also moves the chain's head on the pool row.
CREATE OR REPLACE FUNCTION "LedgerEntry_apply_to_pool"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  UPDATE "Pool" p SET "balanceWei" = p."balanceWei" + s.amount, "ledgerSeq" = s.seq, "ledgerHead" = s.hash,
         "updatedAt" = (now() AT TIME ZONE 'UTC')
    FROM (SELECT n."businessId", n."environment", SUM(n."amountWei") AS amount, MAX(n."seq") AS seq,
                 (array_agg(n."hash" ORDER BY n."seq" DESC))[1] AS hash
            FROM new_entries n GROUP BY n."businessId", n."environment") s
   WHERE p."businessId" = s."businessId" AND p."environment" = s."environment";
  RETURN NULL;
END
$fn$;

-- Append-only, whole rows: no UPDATE, no DELETE. Deleting a business deletes its books with it
-- (its cascades run after the business row is gone; a reward's deletion then clears rewardId).
CREATE OR REPLACE FUNCTION "LedgerEntry_append_only"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "Business" b WHERE b.id = OLD."businessId") THEN
    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'LedgerEntry is append-only: entries cannot be updated or deleted'
    USING ERRCODE = 'check_violation';
END
$fn$;

CREATE TRIGGER "LedgerEntry_no_delete" BEFORE DELETE ON "LedgerEntry"
  FOR EACH ROW EXECUTE FUNCTION "LedgerEntry_append_only"();
