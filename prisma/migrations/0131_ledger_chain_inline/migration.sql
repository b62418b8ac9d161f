-- The ledger chain's hash, computed with the canonical fields written out in the trigger itself.
-- The trigger of 0079 called "LedgerEntry_canonical"(NEW), a SQL function over the whole row,
-- which PostgreSQL cannot inline: every ledger row paid for a function call per field. The
-- encoding is unchanged (each value "<UTF-8 byte length>:<text>", NULL "-", in the order of 0079),
-- so every stored hash still verifies; server/domain/ledger/export-format.ts is its other reading.
CREATE OR REPLACE FUNCTION "LedgerEntry_chain"() RETURNS trigger LANGUAGE plpgsql AS $fn$
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
  NEW."hash" := encode(sha256(convert_to(COALESCE(prev_hash, repeat('0', 64))
    || octet_length(NEW."seq"::text)::text || ':' || NEW."seq"::text
    || octet_length(NEW."id")::text || ':' || NEW."id"
    || octet_length(NEW."businessId")::text || ':' || NEW."businessId"
    || octet_length(NEW."environment"::text)::text || ':' || NEW."environment"::text
    || octet_length(NEW."kind"::text)::text || ':' || NEW."kind"::text
    || octet_length(NEW."amountWei"::text)::text || ':' || NEW."amountWei"::text
    || CASE WHEN NEW."txHash" IS NULL THEN '-' ELSE octet_length(NEW."txHash")::text || ':' || NEW."txHash" END
    || CASE WHEN NEW."rewardId" IS NULL THEN '-' ELSE octet_length(NEW."rewardId")::text || ':' || NEW."rewardId" END
    || CASE WHEN NEW."memo" IS NULL THEN '-' ELSE octet_length(NEW."memo")::text || ':' || NEW."memo" END
    || CASE WHEN NEW."createdAt" IS NULL THEN '-' ELSE '24:' || to_char(NEW."createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END,
    'UTF8')), 'hex');
  RETURN NEW;
END
$fn$;

-- Nothing else reads the whole-row encoding: the trigger above is its one SQL form.
DROP FUNCTION "LedgerEntry_canonical"("LedgerEntry");
