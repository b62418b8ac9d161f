// Click retention: every closed UTC day (ended over an hour ago, so no buffered click of it can
// still arrive) is rolled up into LinkClickDay and LinkClickDayGroup once, then raw clicks older than
// CLICK_RETENTION_DAYS are deleted by the retention sweep (jobs/retention.ts). The funnel reads
// LinkClickDayGroup only (funnel.ts); a participant's page the rollups and the open days' raw clicks.
import { db } from "../../db/client";
import { BLOCK_SIZES } from "./tiles";

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

// The day's marker and its rows in one statement: a concurrent sweep's marker makes it a no-op.
// LinkClickDay keeps the day per participant, campaign and source (the participant's own page);
// LinkClickDayGroup one row per group of each funnel groupBy, distinct visitors per group. Those
// rows were kept as clicks arrived (migration 0150): recomputed here from the raw clicks, and the
// visitor rows that counted them are no longer needed. The day is added to the blocks holding it.
const ROLL_UP_DAY = `
  WITH mark AS (
    INSERT INTO "LinkClickRollup" ("day") VALUES ($1::date) ON CONFLICT DO NOTHING RETURNING "day"
  ), src AS MATERIALIZED (
    SELECT c."businessId" AS b, c.environment AS e, c."participantId" AS p, COALESCE(c."utmCampaign", '') AS cp, COALESCE(c."utmSource", '') AS us, c."visitorHash" AS v
      FROM "LinkClick" c
     WHERE EXISTS (SELECT 1 FROM mark) AND c.counted
       AND c."createdAt" >= $1::timestamp(3) AND c."createdAt" < $1::timestamp(3) + interval '1 day'
  ), fine AS (
    INSERT INTO "LinkClickDay" ("businessId", environment, "day", "participantId", campaign, "utmSource", clicks, "uniqueClicks")
    SELECT b, e, $1::date, p, cp, us, count(*)::int, count(DISTINCT v)::int FROM src GROUP BY b, e, p, cp, us
  ), grp AS MATERIALIZED (
    SELECT b, e, 'referrer' AS g, p AS k, count(*)::int AS n, count(DISTINCT v)::int AS u FROM src GROUP BY b, e, p
    UNION ALL
    SELECT b, e, 'campaign', cp, count(*)::int, count(DISTINCT v)::int FROM src GROUP BY b, e, cp
    UNION ALL
    SELECT b, e, 'utm_source', us, count(*)::int, count(DISTINCT v)::int FROM src GROUP BY b, e, us
    UNION ALL
    SELECT b, e, 'day', '', count(*)::int, count(DISTINCT v)::int FROM src GROUP BY b, e
  ), stale AS (
    DELETE FROM "LinkClickDayGroup" d WHERE EXISTS (SELECT 1 FROM mark) AND d."day" = $1::date
       AND NOT EXISTS (SELECT 1 FROM grp WHERE grp.b = d."businessId" AND grp.e = d.environment AND grp.g = d."groupBy" AND grp.k = d."key")
  ), seen AS (
    DELETE FROM "LinkClickDayVisitor" v WHERE EXISTS (SELECT 1 FROM mark) AND v."day" <= $1::date
  ), blocks AS (
    INSERT INTO "LinkClickBlockGroup" ("businessId", environment, "groupBy", size, start, "key", clicks, "uniqueClicks")
    SELECT b, e, g, l.size, $1::date - ($1::date - DATE '1970-01-01') % l.size, k, n, u FROM grp CROSS JOIN unnest($2::int[]) AS l(size)
     WHERE g <> 'day' ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT ("businessId", environment, "groupBy", size, start, "key") DO UPDATE
      SET clicks = "LinkClickBlockGroup".clicks + EXCLUDED.clicks, "uniqueClicks" = "LinkClickBlockGroup"."uniqueClicks" + EXCLUDED."uniqueClicks"
  )
  INSERT INTO "LinkClickDayGroup" ("businessId", environment, "groupBy", "day", "key", clicks, "uniqueClicks")
  SELECT b, e, g, $1::date, k, n, u FROM grp ORDER BY b, e, g, k
  ON CONFLICT ("businessId", environment, "groupBy", "day", "key") DO UPDATE SET clicks = EXCLUDED.clicks, "uniqueClicks" = EXCLUDED."uniqueClicks"`;

/** Rolls up the closed days that have raw clicks and no rollup yet; answers how many days. */
export async function rollUpClickDays(now = new Date()): Promise<number> {
  const closedBefore = new Date(Date.parse(isoDay(new Date(now.getTime() - HOUR_MS))));
  const [first] = await db.$queryRawUnsafe<{ at: Date | null }[]>(`SELECT min("createdAt") AS at FROM "LinkClick"`);
  if (!first?.at) return 0;
  const done = new Set(
    (await db.$queryRawUnsafe<{ d: string }[]>(`SELECT to_char("day", 'YYYY-MM-DD') AS d FROM "LinkClickRollup" WHERE "day" >= $1::date`, isoDay(first.at))).map((r) => r.d),
  );
  let n = 0;
  for (let t = Date.parse(isoDay(first.at)); t < closedBefore.getTime(); t += DAY_MS) {
    const day = isoDay(new Date(t));
    if (done.has(day)) continue;
    await db.$executeRawUnsafe(ROLL_UP_DAY, day, [...BLOCK_SIZES]);
    n++;
  }
  return n;
}

/** The statement deleting a batch of raw clicks older than $1 (only days already rolled up are that old). */
export const DELETE_EXPIRED_CLICKS = `DELETE FROM "LinkClick" WHERE id IN (
  SELECT id FROM "LinkClick" WHERE "createdAt" < $1::timestamp(3)
     AND date_trunc('day', "createdAt")::date IN (SELECT "day" FROM "LinkClickRollup")
   ORDER BY "createdAt" LIMIT $2 FOR UPDATE SKIP LOCKED)`;
