-- The staff audit log (docs/trust.md): one row per change made through /business or the
-- dashboard, append-only and hash-chained per business by the same mechanism as the ledger
-- (migration 0079: chain_field, chain_hash): the trigger locks the business row (FOR NO KEY
-- UPDATE, which foreign-key checks do not wait for), takes the next seq and computes the hash.
-- before / after hold JSON text exactly as written, so an export can be re-hashed offline.
-- Canonical fields, in order: seq, id, businessId, environment, at, actorUserId, actorEmail,
-- action, target, before, after, ipHash.

CREATE TABLE "AuditLog" (
  "id"          TEXT NOT NULL,
  "businessId"  TEXT NOT NULL,
  "environment" "Environment",
  "seq"         BIGINT NOT NULL,
  "at"          TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "actorUserId" TEXT,
  "actorEmail"  TEXT,
  "action"      TEXT NOT NULL,
  "target"      TEXT,
  "before"      TEXT,
  "after"       TEXT,
  "ipHash"      TEXT,
  "hash"        TEXT NOT NULL,
  CONSTRAINT "AuditLog_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "AuditLog_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "AuditLog_businessId_seq_key" ON "AuditLog" ("businessId", "seq");
CREATE INDEX "AuditLog_businessId_at_idx" ON "AuditLog" ("businessId", "at");

CREATE FUNCTION "AuditLog_canonical"(e "AuditLog") RETURNS text LANGUAGE sql IMMUTABLE AS
$fn$ SELECT "chain_field"(e."seq"::text) || "chain_field"(e."id") || "chain_field"(e."businessId") || "chain_field"(e."environment"::text)
  || "chain_field"("chain_time"(e."at")) || "chain_field"(e."actorUserId") || "chain_field"(e."actorEmail") || "chain_field"(e."action")
  || "chain_field"(e."target") || "chain_field"(e."before") || "chain_field"(e."after") || "chain_field"(e."ipHash") $fn$;

CREATE FUNCTION "AuditLog_chain"() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE prev_seq bigint; prev_hash text;
BEGIN
  PERFORM 1 FROM "Business" WHERE id = NEW."businessId" FOR NO KEY UPDATE;
  SELECT a."seq", a."hash" INTO prev_seq, prev_hash FROM "AuditLog" a
   WHERE a."businessId" = NEW."businessId" ORDER BY a."seq" DESC LIMIT 1;
  NEW."seq" := COALESCE(prev_seq, 0) + 1;
  NEW."hash" := "chain_hash"(prev_hash, "AuditLog_canonical"(NEW));
  RETURN NEW;
END
$fn$;

CREATE TRIGGER "AuditLog_chain" BEFORE INSERT ON "AuditLog" FOR EACH ROW EXECUTE FUNCTION "AuditLog_chain"();

-- Append-only like the ledger: only deleting the business itself takes its log with it.
CREATE FUNCTION "AuditLog_append_only"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "Business" b WHERE b.id = OLD."businessId") THEN
    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'AuditLog is append-only: entries cannot be updated or deleted'
    USING ERRCODE = 'check_violation';
END
$fn$;

CREATE TRIGGER "AuditLog_append_only" BEFORE UPDATE OR DELETE ON "AuditLog"
  FOR EACH ROW EXECUTE FUNCTION "AuditLog_append_only"();
