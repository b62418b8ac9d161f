-- The audit log's head kept outside its rows (docs/trust.md), as the Pool keeps the ledger's: the
-- chain trigger (migration 0080) now reads the previous entry from AuditLogHead and moves it on
-- with every entry, so `GET /business/audit-log/verify` notices newest entries deleted (the chain
-- that is left is whole, but shorter than its head says).
-- Entries made through an API key name it (actorApiKeyId, e.g. a wallet set by POST
-- /sdk/participants). It is hashed after the twelve fields of migration 0080 only when present,
-- so every entry written before keeps its hash.

CREATE TABLE "AuditLogHead" (
  "businessId" TEXT NOT NULL,
  "seq"        BIGINT NOT NULL,
  "head"       TEXT NOT NULL,
  CONSTRAINT "AuditLogHead_pkey" PRIMARY KEY ("businessId"),
  CONSTRAINT "AuditLogHead_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

INSERT INTO "AuditLogHead" ("businessId", "seq", "head")
SELECT DISTINCT ON ("businessId") "businessId", "seq", "hash" FROM "AuditLog" ORDER BY "businessId", "seq" DESC;

ALTER TABLE "AuditLog" ADD COLUMN "actorApiKeyId" TEXT;

CREATE OR REPLACE FUNCTION "AuditLog_canonical"(e "AuditLog") RETURNS text LANGUAGE sql IMMUTABLE AS
$fn$ SELECT "chain_field"(e."seq"::text) || "chain_field"(e."id") || "chain_field"(e."businessId") || "chain_field"(e."environment"::text)
  || "chain_field"("chain_time"(e."at")) || "chain_field"(e."actorUserId") || "chain_field"(e."actorEmail") || "chain_field"(e."action")
  || "chain_field"(e."target") || "chain_field"(e."before") || "chain_field"(e."after") || "chain_field"(e."ipHash")
  || CASE WHEN e."actorApiKeyId" IS NULL THEN '' ELSE "chain_field"(e."actorApiKeyId") END $fn$;

CREATE OR REPLACE FUNCTION "AuditLog_chain"() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE prev_seq bigint; prev_hash text;
BEGIN
  PERFORM 1 FROM "Business" WHERE id = NEW."businessId" FOR NO KEY UPDATE;
  SELECT h."seq", h."head" INTO prev_seq, prev_hash FROM "AuditLogHead" h WHERE h."businessId" = NEW."businessId";
  NEW."seq" := COALESCE(prev_seq, 0) + 1;
  NEW."hash" := "chain_hash"(prev_hash, "AuditLog_canonical"(NEW));
  INSERT INTO "AuditLogHead" ("businessId", "seq", "head") VALUES (NEW."businessId", NEW."seq", NEW."hash")
    ON CONFLICT ("businessId") DO UPDATE SET "seq" = EXCLUDED."seq", "head" = EXCLUDED."head";
  RETURN NEW;
END
$fn$;
