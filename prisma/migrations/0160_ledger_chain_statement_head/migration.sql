-- The chain's head carried from row to row within a statement. The row trigger of 0079/0131 locked
-- the pool row and looked the last entry up for every row, so a statement writing hundreds of
-- debits (a worker's chunk) paid both per row. Now the first row of a statement does that; each
-- row then leaves its own seq and hash in a transaction-local setting (rts.ledger_head, keyed by
-- business and environment) for the next row of the same statement, and the statement trigger
-- clears it. A row counted there but then not written (an INSERT … ON CONFLICT DO NOTHING that
-- skipped it after its BEFORE trigger ran) would leave a gap in the chain: the statement trigger
-- checks that each pool's new entries follow its head without one, and refuses the statement
-- otherwise. A failed statement's setting goes with its transaction or savepoint.
CREATE OR REPLACE FUNCTION "LedgerEntry_chain"() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  prev_seq bigint; prev_hash text;
  chain text := NEW."businessId" || chr(31) || NEW."environment"::text;
  head text := current_setting('rts.ledger_head', true);
BEGIN
  IF head IS NOT NULL AND split_part(head, chr(30), 1) = chain THEN
    prev_seq := split_part(head, chr(30), 2)::bigint;
    prev_hash := NULLIF(split_part(head, chr(30), 3), '');
  ELSE
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
  END IF;
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
  PERFORM set_config('rts.ledger_head', chain || chr(30) || NEW."seq"::text || chr(30) || NEW."hash", true);
  RETURN NEW;
END
$fn$;

CREATE OR REPLACE FUNCTION "LedgerEntry_apply_to_pool"() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE pools int; moved int;
BEGIN
  PERFORM set_config('rts.ledger_head', '', true);
  WITH s AS (
    SELECT n."businessId", n."environment", SUM(n."amountWei") AS amount, MIN(n."seq") AS first, MAX(n."seq") AS seq, COUNT(*) AS n,
           (array_agg(n."hash" ORDER BY n."seq" DESC))[1] AS hash
      FROM new_entries n GROUP BY n."businessId", n."environment"),
  u AS (
    UPDATE "Pool" p SET "balanceWei" = p."balanceWei" + s.amount, "ledgerSeq" = s.seq, "ledgerHead" = s.hash,
           "updatedAt" = (now() AT TIME ZONE 'UTC')
      FROM s
     WHERE p."businessId" = s."businessId" AND p."environment" = s."environment"
       AND s.first = p."ledgerSeq" + 1 AND s.n = s.seq - s.first + 1
    RETURNING 1)
  SELECT (SELECT count(*) FROM s), (SELECT count(*) FROM u) INTO pools, moved;
  IF moved <> pools THEN
    RAISE EXCEPTION 'LedgerEntry: the new entries do not follow the chain''s head without a gap (a row skipped after it was chained)'
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END
$fn$;
