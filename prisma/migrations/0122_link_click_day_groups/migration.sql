-- The funnel's daily click counts, one row per business, environment, UTC day and group of one
-- `groupBy` (referrer: the participant id; campaign; utm_source; day: ''), with distinct visitors
-- counted per group. The funnel reads exactly the rows of its groupBy and range (an index range,
-- covered), instead of aggregating the finer LinkClickDay rows (participant × campaign × source).
CREATE TABLE "LinkClickDayGroup" (
    "businessId" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "groupBy" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "key" TEXT NOT NULL DEFAULT '',
    "clicks" INTEGER NOT NULL,
    "uniqueClicks" INTEGER NOT NULL,
    CONSTRAINT "LinkClickDayGroup_pkey" PRIMARY KEY ("businessId", "environment", "groupBy", "day", "key"),
    CONSTRAINT "LinkClickDayGroup_groupBy_check" CHECK ("groupBy" IN ('referrer', 'campaign', 'utm_source', 'day'))
);
ALTER TABLE "LinkClickDayGroup" ADD CONSTRAINT "LinkClickDayGroup_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business" ("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX "LinkClickDayGroup_covering_idx" ON "LinkClickDayGroup" ("businessId", "environment", "groupBy", "day") INCLUDE ("key", "clicks", "uniqueClicks");

-- Days rolled up before this table: from LinkClickDay (distinct visitors summed over its finer rows).
INSERT INTO "LinkClickDayGroup" ("businessId", "environment", "groupBy", "day", "key", "clicks", "uniqueClicks")
SELECT "businessId", "environment", 'referrer', "day", "participantId", sum("clicks"), sum("uniqueClicks") FROM "LinkClickDay" GROUP BY 1, 2, 4, 5
UNION ALL
SELECT "businessId", "environment", 'campaign', "day", "campaign", sum("clicks"), sum("uniqueClicks") FROM "LinkClickDay" GROUP BY 1, 2, 4, 5
UNION ALL
SELECT "businessId", "environment", 'utm_source', "day", "utmSource", sum("clicks"), sum("uniqueClicks") FROM "LinkClickDay" GROUP BY 1, 2, 4, 5
UNION ALL
SELECT "businessId", "environment", 'day', "day", '', sum("clicks"), sum("uniqueClicks") FROM "LinkClickDay" GROUP BY 1, 2, 4;
