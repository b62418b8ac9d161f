-- Erasure of a participant's personal data (docs/trust.md, "Privacy"): the participant row stays
-- (its id, rewards, ledger entries and proofs are untouched) with email, name, external id and
-- handle cleared. What was erased is kept only as SHA-256 hashes of the lower-cased values, so
-- that later events naming the same person do not bring the data back: a trigger clears any such
-- value a later insert or update of a participant would write. The erasure itself is the row of
-- kind 'participant' (valueHash = the participant id's hash); its fields stay cleared for good.

CREATE TABLE "ErasedIdentity" (
  "businessId"    TEXT NOT NULL,
  "environment"   "Environment" NOT NULL,
  "kind"          TEXT NOT NULL,
  "valueHash"     TEXT NOT NULL,
  "participantId" TEXT NOT NULL,
  "erasedAt"      TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "ErasedIdentity_pkey" PRIMARY KEY ("businessId", "environment", "kind", "valueHash"),
  CONSTRAINT "ErasedIdentity_kind_check" CHECK ("kind" IN ('participant', 'email', 'externalId', 'handle')),
  CONSTRAINT "ErasedIdentity_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE FUNCTION "erasure_hash"(v text) RETURNS text LANGUAGE sql IMMUTABLE AS
$fn$ SELECT encode(sha256(convert_to(lower(v), 'UTF8')), 'hex') $fn$;

CREATE FUNCTION "Participant_keep_erased"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW."email" IS NOT NULL AND EXISTS (SELECT 1 FROM "ErasedIdentity" e WHERE e."businessId" = NEW."businessId"
       AND e."environment" = NEW."environment" AND e."kind" = 'email' AND e."valueHash" = "erasure_hash"(NEW."email")) THEN
    NEW."email" := NULL; NEW."name" := NULL;
  END IF;
  IF NEW."externalId" IS NOT NULL AND EXISTS (SELECT 1 FROM "ErasedIdentity" e WHERE e."businessId" = NEW."businessId"
       AND e."environment" = NEW."environment" AND e."kind" = 'externalId' AND e."valueHash" = "erasure_hash"(NEW."externalId")) THEN
    NEW."externalId" := NULL; NEW."name" := NULL;
  END IF;
  IF NEW."handle" IS NOT NULL AND EXISTS (SELECT 1 FROM "ErasedIdentity" e WHERE e."businessId" = NEW."businessId"
       AND e."environment" = NEW."environment" AND e."kind" = 'handle' AND e."valueHash" = "erasure_hash"(NEW."handle")) THEN
    NEW."handle" := NULL;
  END IF;
  IF TG_OP = 'UPDATE' AND EXISTS (SELECT 1 FROM "ErasedIdentity" e WHERE e."businessId" = NEW."businessId"
       AND e."environment" = NEW."environment" AND e."kind" = 'participant' AND e."valueHash" = "erasure_hash"(NEW."id")) THEN
    NEW."email" := NULL; NEW."name" := NULL; NEW."externalId" := NULL; NEW."handle" := NULL;
  END IF;
  RETURN NEW;
END
$fn$;

-- Only when a personal field is written: other updates (say, a wallet) skip it.
CREATE TRIGGER "Participant_keep_erased" BEFORE INSERT OR UPDATE OF "email", "externalId", "handle", "name" ON "Participant"
  FOR EACH ROW EXECUTE FUNCTION "Participant_keep_erased"();
