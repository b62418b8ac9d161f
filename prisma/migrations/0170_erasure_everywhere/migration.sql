-- Erasure replaces a person's values wherever the business stores them (docs/trust.md, "Privacy"),
-- inside longer text and at any depth of JSON, with one rule written here once:
-- a value matches case-insensitively as a whole token (not inside a longer word, address or
-- number: "bob@x.com" is not found in "jim.bob@x.com", "1" not in "12"). Strings of JSON are
-- rewritten one by one (keys too), so numbers, booleans and the document's shape stay as they were.

-- The ARE that finds v as a token: the characters of v escaped, no word or address character
-- (nor a backslash, so a JSON escape is never cut in two) before it, none after it.
CREATE FUNCTION "erasure_pattern"(v text) RETURNS text LANGUAGE sql IMMUTABLE AS
$fn$ SELECT '(?<![[:alnum:]_.%+\\-])' || regexp_replace(v, '([.^$*+?(){}|\[\]\\])', '\\\1', 'g') || '(?![[:alnum:]_%+-]|\.[[:alnum:]])' $fn$;

-- Does t contain one of vals (case-insensitively)? A cheap first look before the patterns run.
CREATE FUNCTION "erasure_mentions"(t text, vals text[]) RETURNS boolean LANGUAGE sql IMMUTABLE AS
$fn$ SELECT t IS NOT NULL AND EXISTS (SELECT 1 FROM unnest(vals) v WHERE v <> '' AND strpos(lower(t), lower(v)) > 0) $fn$;

-- t with every token of vals replaced by [erased] (give longer values first).
CREATE FUNCTION "erasure_scrub"(t text, vals text[]) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $fn$
DECLARE v text;
BEGIN
  IF t IS NULL OR NOT "erasure_mentions"(t, vals) THEN RETURN t; END IF;
  FOREACH v IN ARRAY vals LOOP
    IF v <> '' THEN t := regexp_replace(t, "erasure_pattern"(v), '[erased]', 'gi'); END IF;
  END LOOP;
  RETURN t;
END
$fn$;

-- The same in every string (and key) of a JSON document, at any depth.
CREATE FUNCTION "erasure_scrub_json"(j jsonb, vals text[]) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $fn$
BEGIN
  IF j IS NULL OR NOT "erasure_mentions"(j::text, vals) THEN RETURN j; END IF;
  CASE jsonb_typeof(j)
    WHEN 'string' THEN RETURN to_jsonb("erasure_scrub"(j #>> '{}', vals));
    WHEN 'object' THEN
      RETURN COALESCE((SELECT jsonb_object_agg("erasure_scrub"(e.k, vals), "erasure_scrub_json"(e.x, vals)) FROM jsonb_each(j) AS e(k, x)), '{}'::jsonb);
    WHEN 'array' THEN
      RETURN COALESCE((SELECT jsonb_agg("erasure_scrub_json"(a.x, vals) ORDER BY a.i) FROM jsonb_array_elements(j) WITH ORDINALITY AS a(x, i)), '[]'::jsonb);
    ELSE RETURN j;
  END CASE;
END
$fn$;
