-- The funnel reads pre-counted rows only, never the raw clicks:
--   * LinkClickDayGroup (0122) is kept for the open days too, as clicks are written: a trigger
--     adds every inserted counted click to its day's rows. Distinct visitors are counted through
--     LinkClickDayVisitor, one row per day, groupBy, group and visitor: a visitor counts once per
--     group and day because only the first insert of that row succeeds (concurrent batches too);
--   * LinkClickBlockGroup holds the sums of closed days over aligned blocks of 2, 4 … 256 days
--     (a block of `size` days starts on a day number since 1970-01-01 that `size` divides), so a
--     range reads a few blocks per group instead of every day of it (links/funnel.ts).
--   * ReferralClick keeps its click's utm_campaign and utm_source while the click exists (triggers
--     on both tables), so the funnel's referrals by campaign or source join no click.
-- Days after the last rolled-up one are open, as the funnel read them before. The daily rollup
-- (links/retention.ts) recomputes a closed day from its raw clicks, adds it to its blocks and
-- deletes its visitor rows; a click that arrives for a day already rolled up is left out, as before.
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
     WHERE n."counted" AND n."createdAt" >= (SELECT COALESCE(max(x."day") + 1, DATE '1970-01-01')::timestamp FROM "LinkClickRollup" x)
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
       WHERE s.d > (SELECT COALESCE(max(x."day"), DATE '1969-12-31') FROM "LinkClickRollup" x) AND EXISTS (SELECT 1 FROM "Business" z WHERE z."id" = s.b)
       GROUP BY s.b, s.e
    LOOP
      PERFORM "LinkClick_recount_open_days"(r.b, r.e, r.days);
    END LOOP;
  ELSE
    FOR r IN
      SELECT o."businessId" AS b, o."environment" AS e, array_agg(DISTINCT o."createdAt"::date) AS days FROM old_clicks o
       WHERE o."counted" AND o."createdAt" >= (SELECT COALESCE(max(x."day") + 1, DATE '1970-01-01')::timestamp FROM "LinkClickRollup" x)
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
   WHERE c."counted" AND c."createdAt" >= (SELECT COALESCE(max(x."day") + 1, DATE '1970-01-01')::timestamp FROM "LinkClickRollup" x)
   GROUP BY 1, 2
) s;

-- Sums of closed days per aligned block of `size` days, per groupBy other than day and group.
-- The primary key covers the read (INCLUDE): a block is one index range.
CREATE TABLE "LinkClickBlockGroup" (
    "businessId" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "groupBy" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "start" DATE NOT NULL,
    "key" TEXT NOT NULL DEFAULT '',
    "clicks" INTEGER NOT NULL,
    "uniqueClicks" INTEGER NOT NULL,
    CONSTRAINT "LinkClickBlockGroup_pkey" PRIMARY KEY ("businessId", "environment", "groupBy", "size", "start", "key") INCLUDE ("clicks", "uniqueClicks"),
    CONSTRAINT "LinkClickBlockGroup_groupBy_check" CHECK ("groupBy" IN ('referrer', 'campaign', 'utm_source')),
    CONSTRAINT "LinkClickBlockGroup_aligned_check" CHECK ("size" IN (2, 4, 8, 16, 32, 64, 128, 256) AND ("start" - DATE '1970-01-01') % "size" = 0)
);
ALTER TABLE "LinkClickBlockGroup" ADD CONSTRAINT "LinkClickBlockGroup_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business" ("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The days rolled up so far.
INSERT INTO "LinkClickBlockGroup" ("businessId", "environment", "groupBy", "size", "start", "key", "clicks", "uniqueClicks")
SELECT d."businessId", d."environment", d."groupBy", l.size, d."day" - (d."day" - DATE '1970-01-01') % l.size, d."key", sum(d."clicks"), sum(d."uniqueClicks")
  FROM "LinkClickDayGroup" d CROSS JOIN unnest(ARRAY[2, 4, 8, 16, 32, 64, 128, 256]) AS l(size)
 WHERE d."groupBy" <> 'day' AND d."day" <= (SELECT max(x."day") FROM "LinkClickRollup" x)
 GROUP BY 1, 2, 3, 4, 5, 6;

-- A referral's click: its utm_campaign and utm_source, while that click (of the referral's business) exists.
ALTER TABLE "ReferralClick" ADD COLUMN "clickUtmCampaign" TEXT, ADD COLUMN "clickUtmSource" TEXT;

CREATE FUNCTION "ReferralClick_copy_click_utm"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  NEW."clickUtmCampaign" := NULL;
  NEW."clickUtmSource" := NULL;
  SELECT c."utmCampaign", c."utmSource" INTO NEW."clickUtmCampaign", NEW."clickUtmSource"
    FROM "LinkClick" c JOIN "Referral" r ON r."id" = NEW."referralId" AND r."businessId" = c."businessId"
   WHERE c."id" = NEW."clickId";
  RETURN NEW;
END
$fn$;
CREATE TRIGGER "ReferralClick_copy_click_utm" BEFORE INSERT OR UPDATE ON "ReferralClick"
  FOR EACH ROW EXECUTE FUNCTION "ReferralClick_copy_click_utm"();

-- A click written after its referral (still buffered then), changed or deleted (retention): its referral clicks follow.
CREATE FUNCTION "LinkClick_sync_referral_clicks"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE "ReferralClick" rc SET "clickId" = rc."clickId" FROM old_clicks o WHERE rc."clickId" = o."id";
  ELSE
    UPDATE "ReferralClick" rc SET "clickId" = rc."clickId" FROM new_clicks n WHERE rc."clickId" = n."id";
  END IF;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER "LinkClick_sync_referral_clicks_insert" AFTER INSERT ON "LinkClick"
  REFERENCING NEW TABLE AS new_clicks FOR EACH STATEMENT EXECUTE FUNCTION "LinkClick_sync_referral_clicks"();
CREATE TRIGGER "LinkClick_sync_referral_clicks_update" AFTER UPDATE ON "LinkClick"
  REFERENCING NEW TABLE AS new_clicks FOR EACH STATEMENT EXECUTE FUNCTION "LinkClick_sync_referral_clicks"();
CREATE TRIGGER "LinkClick_sync_referral_clicks_delete" AFTER DELETE ON "LinkClick"
  REFERENCING OLD TABLE AS old_clicks FOR EACH STATEMENT EXECUTE FUNCTION "LinkClick_sync_referral_clicks"();

-- The referral clicks so far (the BEFORE UPDATE trigger copies).
UPDATE "ReferralClick" SET "clickId" = "clickId";
