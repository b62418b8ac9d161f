-- A handle is a business's own name for a participant (POST /track's referrer may be one), and
-- also a public link of the whole installation (/r/<handle>). That link leads to the business
-- that first gave a participant the handle: a business that gives the same handle later can
-- neither take nor break it. Kept by triggers on Participant; gone when none of the business's
-- participants has the handle any more (an erasure, a change), so no erased handle stays here.
CREATE TABLE "LinkHandle" (
  "handle" TEXT NOT NULL PRIMARY KEY,
  "businessId" TEXT NOT NULL REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX "LinkHandle_businessId_idx" ON "LinkHandle" ("businessId");

-- Today's handles: a handle of one business is that business's; one several businesses gave goes
-- to the business of its oldest participant (the best guess of who gave it first).
INSERT INTO "LinkHandle" ("handle", "businessId")
SELECT DISTINCT ON (p."handle") p."handle", p."businessId" FROM "Participant" p
 WHERE p."handle" IS NOT NULL ORDER BY p."handle", p."createdAt", p."id";

CREATE FUNCTION "Participant_link_handle"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD."handle" IS NOT NULL AND (TG_OP = 'DELETE' OR NEW."handle" IS DISTINCT FROM OLD."handle") THEN
    DELETE FROM "LinkHandle" h WHERE h."handle" = OLD."handle" AND h."businessId" = OLD."businessId"
       AND NOT EXISTS (SELECT 1 FROM "Participant" p WHERE p."businessId" = OLD."businessId" AND p."handle" = OLD."handle" AND p."id" <> OLD."id");
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW."handle" IS NOT NULL THEN
    INSERT INTO "LinkHandle" ("handle", "businessId") VALUES (NEW."handle", NEW."businessId") ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER "Participant_link_handle_insert" AFTER INSERT ON "Participant"
  FOR EACH ROW WHEN (NEW."handle" IS NOT NULL) EXECUTE FUNCTION "Participant_link_handle"();
CREATE TRIGGER "Participant_link_handle_update" AFTER UPDATE OF "handle" ON "Participant"
  FOR EACH ROW EXECUTE FUNCTION "Participant_link_handle"();
CREATE TRIGGER "Participant_link_handle_delete" AFTER DELETE ON "Participant"
  FOR EACH ROW WHEN (OLD."handle" IS NOT NULL) EXECUTE FUNCTION "Participant_link_handle"();
