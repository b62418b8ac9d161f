// Click retention: every closed UTC day (ended over an hour ago, so no buffered click of it can
// still arrive) is rolled up into LinkClickDay once, then raw clicks older than
// CLICK_RETENTION_DAYS are deleted by the retention sweep (jobs/retention.ts). Analytics reads
// the rollups for rolled-up days and the raw clicks for the others (funnel.ts).
import { db } from "../../db/client";

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

// The day's marker and its rows in one statement: a concurrent sweep's marker makes it a no-op.
const ROLL_UP_DAY = `
  WITH mark AS (
    INSERT INTO "LinkClickRollup" ("day") VALUES ($1::date) ON CONFLICT DO NOTHING RETURNING "day"
  )
  INSERT INTO "LinkClickDay" ("businessId", environment, "day", "participantId", campaign, "utmSource", clicks, "uniqueClicks")
  SELECT c."businessId", c.environment, $1::date, c."participantId", COALESCE(c."utmCampaign", ''), COALESCE(c."utmSource", ''),
         count(*)::int, count(DISTINCT c."visitorHash")::int
    FROM "LinkClick" c
   WHERE EXISTS (SELECT 1 FROM mark) AND c.counted
     AND c."createdAt" >= $1::timestamp(3) AND c."createdAt" < $1::timestamp(3) + interval '1 day'
   GROUP BY 1, 2, 4, 5, 6`;

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
    await db.$executeRawUnsafe(ROLL_UP_DAY, day);
    n++;
  }
  return n;
}

/** The statement deleting a batch of raw clicks older than $1 (only days already rolled up are that old). */
export const DELETE_EXPIRED_CLICKS = `DELETE FROM "LinkClick" WHERE id IN (
  SELECT id FROM "LinkClick" WHERE "createdAt" < $1::timestamp(3)
     AND date_trunc('day', "createdAt")::date IN (SELECT "day" FROM "LinkClickRollup")
   ORDER BY "createdAt" LIMIT $2 FOR UPDATE SKIP LOCKED)`;
