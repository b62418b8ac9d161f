// Storage settings the migrations give the tables every queued event updates (0060_update_room):
// a fifth of each page left free, so that an event's and its job's later row versions can stay on
// their page (bench/RESULTS.md: the drain measured faster with it).
import { describe, expect, it } from "vitest";
import { rawRows } from "./client";

describe("table storage", () => {
  it("TrackedEvent and Job keep room for their updates on each page (fillfactor 80)", async () => {
    const rows = await rawRows<{ name: string; options: string[] | null }>(
      `SELECT relname AS name, reloptions AS options FROM pg_class WHERE relname IN ('TrackedEvent', 'Job') AND relkind = 'r' ORDER BY relname`,
    );
    expect(rows).toEqual([
      { name: "Job", options: ["fillfactor=80"] },
      { name: "TrackedEvent", options: ["fillfactor=80"] },
    ]);
  });
});
