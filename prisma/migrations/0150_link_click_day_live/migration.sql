-- The funnel's daily group rows (LinkClickDayGroup) are kept for the open days too, as clicks are
-- written, so the funnel reads one index range of that table and never the raw clicks. A trigger
-- adds every inserted counted click to its day's rows; distinct visitors are counted through
-- LinkClickDayVisitor, one row per day, groupBy, group and visitor: a visitor counts once per
-- group and day because only the first insert of that row succeeds (concurrent batches included).
-- The daily rollup (links/retention.ts) recomputes a closed day from its raw clicks and deletes
-- its visitor rows; a click that arrives for a day already rolled up is left out, as before.
CREATE TABLE "LinkClickDayVisitor" (
    "day" DATE NOT NULL,
    "businessId" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "groupBy" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "visitorHash" TEXT NOT NULL,
    -- Day first: the rollup deletes a closed day's rows by range. No foreign key: the rows live
    -- until their day is rolled up, and a check per inserted row would slow every click batch.
    CONSTRAINT "LinkClickDayVisitor_pkey" PRIMARY KEY ("day", "businessId", "environment", "groupBy", "key", "visitorHash")
);

-- Inserted counted clicks of open days → their visitors and the day's group rows, in one statement.
CREATE FUNCTION "LinkClick_count_open_day"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  WITH src AS MATERIALIZED (
    SELECT n."businessId" AS b, n."environment" AS e, n."createdAt"::date AS d, n."participantId" AS p,
           COALESCE(n."utmCampaign", '') AS cp, COALESCE(n."utmSource", '') AS us, n."visitorHash" AS v
      FROM new_clicks n
     WHERE n."counted" AND NOT EXISTS (SELECT 1 FROM "LinkClickRollup" x WHERE x."day" = n."createdAt"::date)
  ), grouped AS MATERIALIZED (
    SELECT b, e, 'referrer' AS g, d, p AS k, v FROM src
    UNION ALL SELECT b, e, 'campaign', d, cp, v FROM src
    UNION ALL SELECT b, e, 'utm_source', d, us, v FROM src
    UNION ALL SELECT b, e, 'day', d, '', v FROM src
  ), fresh AS (
    INSERT INTO "LinkClickDayVisitor" ("day", "businessId", "environment", "groupBy", "key", "visitorHash")
    SELECT DISTINCT d, b, e, g, k, v FROM grouped ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT DO NOTHING
    RETURNING "businessId" AS b, "environment" AS e, "groupBy" AS g, "day" AS d, "key" AS k
  ), counts AS (
    SELECT b, e, g, d, k, count(*) AS c, 0 AS u FROM grouped GROUP BY b, e, g, d, k
    UNION ALL
    SELECT b, e, g, d, k, 0, count(*) FROM fresh GROUP BY b, e, g, d, k
  )
  INSERT INTO "LinkClickDayGroup" ("businessId", "environment", "groupBy", "day", "key", "clicks", "uniqueClicks")
  SELECT b, e, g, d, k, sum(c)::int, sum(u)::int FROM counts GROUP BY b, e, g, d, k ORDER BY b, e, g, d, k
  ON CONFLICT ("businessId", "environment", "groupBy", "day", "key") DO UPDATE
    SET "clicks" = "LinkClickDayGroup"."clicks" + EXCLUDED."clicks",
        "uniqueClicks" = "LinkClickDayGroup"."uniqueClicks" + EXCLUDED."uniqueClicks";
  RETURN NULL;
END
$fn$;

-- The open days of a business and environment, counted again from their raw clicks.
CREATE FUNCTION "LinkClick_recount_open_days"(bid TEXT, env "Environment", days DATE[]) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM "LinkClickDayVisitor" v WHERE v."day" = ANY(days) AND v."businessId" = bid AND v."environment" = env;
  DELETE FROM "LinkClickDayGroup" g WHERE g."businessId" = bid AND g."environment" = env AND g."day" = ANY(days);
  WITH src AS MATERIALIZED (
    SELECT c."createdAt"::date AS d, c."participantId" AS p, COALESCE(c."utmCampaign", '') AS cp, COALESCE(c."utmSource", '') AS us, c."visitorHash" AS v
      FROM "LinkClick" c
     WHERE c."businessId" = bid AND c."environment" = env AND c."counted"
       AND c."createdAt" >= (SELECT min(x) FROM unnest(days) x)::timestamp AND c."createdAt" < (SELECT max(x) FROM unnest(days) x)::timestamp + interval '1 day'
       AND c."createdAt"::date = ANY(days)
  ), grouped AS MATERIALIZED (
    SELECT 'referrer' AS g, d, p AS k, v FROM src
    UNION ALL SELECT 'campaign', d, cp, v FROM src
    UNION ALL SELECT 'utm_source', d, us, v FROM src
    UNION ALL SELECT 'day', d, '', v FROM src
  ), fresh AS (
    INSERT INTO "LinkClickDayVisitor" ("day", "businessId", "environment", "groupBy", "key", "visitorHash")
    SELECT DISTINCT d, bid, env, g, k, v FROM grouped
  )
  INSERT INTO "LinkClickDayGroup" ("businessId", "environment", "groupBy", "day", "key", "clicks", "uniqueClicks")
  SELECT bid, env, g, d, k, count(*)::int, count(DISTINCT v)::int FROM grouped GROUP BY g, d, k;
END
$fn$;

-- Deleted or changed clicks of open days (a participant or business removed): their days are
-- counted again. The retention sweep deletes only rolled-up days, which this leaves alone.
CREATE FUNCTION "LinkClick_recount_changed_days"() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  r RECORD;
BEGIN
  IF TG_OP = 'UPDATE' THEN
    FOR r IN
      SELECT s.b, s.e, array_agg(DISTINCT s.d) AS days FROM (
        SELECT o."businessId" AS b, o."environment" AS e, o."createdAt"::date AS d FROM old_clicks o WHERE o."counted"
        UNION SELECT n."businessId", n."environment", n."createdAt"::date FROM new_clicks n WHERE n."counted"
      ) s
       WHERE NOT EXISTS (SELECT 1 FROM "LinkClickRollup" x WHERE x."day" = s.d) AND EXISTS (SELECT 1 FROM "Business" z WHERE z."id" = s.b)
       GROUP BY s.b, s.e
    LOOP
      PERFORM "LinkClick_recount_open_days"(r.b, r.e, r.days);
    END LOOP;
  ELSE
    FOR r IN
      SELECT o."businessId" AS b, o."environment" AS e, array_agg(DISTINCT o."createdAt"::date) AS days FROM old_clicks o
       WHERE o."counted" AND NOT EXISTS (SELECT 1 FROM "LinkClickRollup" x WHERE x."day" = o."createdAt"::date)
         AND EXISTS (SELECT 1 FROM "Business" z WHERE z."id" = o."businessId")
       GROUP BY 1, 2
    LOOP
      PERFORM "LinkClick_recount_open_days"(r.b, r.e, r.days);
    END LOOP;
  END IF;
  RETURN NULL;
END
$fn$;

CREATE TRIGGER "LinkClick_count_open_day" AFTER INSERT ON "LinkClick"
  REFERENCING NEW TABLE AS new_clicks FOR EACH STATEMENT EXECUTE FUNCTION "LinkClick_count_open_day"();
CREATE TRIGGER "LinkClick_recount_deleted" AFTER DELETE ON "LinkClick"
  REFERENCING OLD TABLE AS old_clicks FOR EACH STATEMENT EXECUTE FUNCTION "LinkClick_recount_changed_days"();
CREATE TRIGGER "LinkClick_recount_updated" AFTER UPDATE ON "LinkClick"
  REFERENCING OLD TABLE AS old_clicks NEW TABLE AS new_clicks FOR EACH STATEMENT EXECUTE FUNCTION "LinkClick_recount_changed_days"();

-- The days open now: counted from their raw clicks once.
SELECT "LinkClick_recount_open_days"(s.b, s.e, s.days) FROM (
  SELECT c."businessId" AS b, c."environment" AS e, array_agg(DISTINCT c."createdAt"::date) AS days FROM "LinkClick" c
   WHERE c."counted" AND NOT EXISTS (SELECT 1 FROM "LinkClickRollup" x WHERE x."day" = c."createdAt"::date)
   GROUP BY 1, 2
) s;
