-- A handle another business already uses for its /r/ links is refused when given (before, the
-- later business's participant kept it silently while its /r/ links led to the first business).
-- The service says so in words first (participants/service.ts); this is the rule where races meet
-- it. Handles several businesses already shared before stay as they are.
CREATE OR REPLACE FUNCTION "Participant_link_handle"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD."handle" IS NOT NULL AND (TG_OP = 'DELETE' OR NEW."handle" IS DISTINCT FROM OLD."handle") THEN
    DELETE FROM "LinkHandle" h WHERE h."handle" = OLD."handle" AND h."businessId" = OLD."businessId"
       AND NOT EXISTS (SELECT 1 FROM "Participant" p WHERE p."businessId" = OLD."businessId" AND p."handle" = OLD."handle" AND p."id" <> OLD."id");
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW."handle" IS NOT NULL AND (TG_OP = 'INSERT' OR NEW."handle" IS DISTINCT FROM OLD."handle") THEN
    INSERT INTO "LinkHandle" ("handle", "businessId") VALUES (NEW."handle", NEW."businessId") ON CONFLICT DO NOTHING;
    IF NOT EXISTS (SELECT 1 FROM "LinkHandle" h WHERE h."handle" = NEW."handle" AND h."businessId" = NEW."businessId") THEN
      RAISE EXCEPTION 'The handle "%" is another business''s /r/ link', NEW."handle"
        USING ERRCODE = 'unique_violation', CONSTRAINT = 'LinkHandle_pkey';
    END IF;
  END IF;
  RETURN NULL;
END
$fn$;
