// Planner statistics kept up by the runner: a queue table that outgrew its statistics is analysed,
// and the claim reads the first jobs in index order instead of sorting the whole backlog.
import { afterAll, describe, expect, it } from "vitest";
import { db, dbKind, rawRows } from "./client";
import { analyzeGrownTables, STATS_TARGET } from "./table-stats";

const BIZ = "biz-table-stats";

// The claim's candidate query (server/jobs/claim.ts claimDueJobs), as its plan is chosen.
const claimPlan = async () =>
  (
    await rawRows<{ "QUERY PLAN": string }>(
      `EXPLAIN SELECT id FROM "Job" WHERE type = 'EVENT_PROCESS' AND status = 'QUEUED' AND "runAt" <= (now() AT TIME ZONE 'UTC') ORDER BY "runAt" LIMIT 1000 FOR UPDATE SKIP LOCKED`,
    )
  )
    .map((r) => r["QUERY PLAN"])
    .join("\n");

afterAll(async () => {
  await db.$executeRawUnsafe(`DELETE FROM "Job" WHERE "businessId" = $1`, BIZ);
  await db.$executeRawUnsafe(`DELETE FROM "TrackedEvent" WHERE "businessId" = $1`, BIZ);
  await db.$executeRawUnsafe(`DELETE FROM "Business" WHERE id = $1`, BIZ);
});

describe("table statistics", () => {
  it("analyses a job table that grew since its statistics; the claim then stops sorting the backlog", async () => {
    await db.$executeRawUnsafe(`INSERT INTO "Business" (id, name, "ownerId", "updatedAt") VALUES ($1, 'Stats', 'o-stats', now())`, BIZ);
    // 20,000 queued jobs (~500 pages), due an hour ago: a backlog no claim of another test takes
    // (their businesses' jobs are elsewhere; this file claims nothing).
    await db.$executeRawUnsafe(
      `INSERT INTO "Job" (id, "businessId", environment, type, status, payload, "runAt", "createdAt", "updatedAt")
       SELECT 'stats-' || i, $1, 'TEST', 'EVENT_PROCESS', 'QUEUED', '{}', now() - interval '1 hour' + i * interval '1 millisecond', now(), now()
         FROM generate_series(1, 20000) i`,
      BIZ,
    );
    // (Planned from default estimates, the claim of one type already reads its index in order:
    // the index leads with the type since migration 0071. The statistics still matter to the
    // batch's other statements.)
    expect(await analyzeGrownTables()).toContain("Job");
    const plan = await claimPlan();
    expect(plan).not.toMatch(/Sort/);
    expect(plan).toMatch(/Index Scan using "Job_type_status_runAt_idx"/);

    // Analysed now: not again until it grows.
    expect(await analyzeGrownTables()).not.toContain("Job");
    // No statistics for the payloads (migration 0162): ANALYZE skips them.
    const stats = await rawRows<{ attname: string }>(`SELECT attname::text FROM pg_stats WHERE tablename = 'Job'`);
    expect(stats.map((s) => s.attname)).toEqual(expect.arrayContaining(["type", "status", "runAt"]));
    expect(stats.map((s) => s.attname)).not.toContain("payload");
    expect(stats.map((s) => s.attname)).not.toContain("result");
    // At the runner's own statistics target (a tenth of the default's sample): the histogram of
    // the 20,000 distinct due times has STATS_TARGET buckets, not the default's 100.
    const [runAt] = await rawRows<{ bounds: number }>(
      `SELECT array_length(histogram_bounds::text::text[], 1) AS bounds FROM pg_stats WHERE tablename = 'Job' AND attname = 'runAt'`,
    );
    expect(runAt?.bounds).toBe(STATS_TARGET + 1);
  });

  it("lets the process's other work run before each ANALYZE (on PGlite an ANALYZE holds the process while it runs)", async () => {
    // The job table grows again, and events appear (~1,000 pages): two tables to analyse.
    await db.$executeRawUnsafe(
      `INSERT INTO "Job" (id, "businessId", environment, type, status, payload, "runAt", "createdAt", "updatedAt")
       SELECT 'stats-more-' || i, $1, 'TEST', 'EVENT_PROCESS', 'SUCCEEDED', '{}', now(), now(), now() FROM generate_series(1, 10000) i`,
      BIZ,
    );
    await db.$executeRawUnsafe(
      `INSERT INTO "TrackedEvent" (id, "businessId", environment, "eventName", metadata, status, "createdAt", "updatedAt")
       SELECT 'stats-ev-' || i, $1, 'TEST', 'purchase', jsonb_build_object('note', repeat('x', 200)), 'PROCESSED', now(), now() FROM generate_series(1, 20000) i`,
      BIZ,
    );
    // Turns of the event loop while the tables are analysed: at least one per table.
    let turns = 0;
    let counting = true;
    const tick = () => {
      if (!counting) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const analysed = await analyzeGrownTables();
    counting = false;
    expect(analysed).toEqual(expect.arrayContaining(["Job", "TrackedEvent"]));
    expect(turns, `on ${dbKind()}`).toBeGreaterThanOrEqual(analysed.length);
  });
});
