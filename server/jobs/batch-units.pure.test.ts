import { describe, expect, it } from "vitest";
import { batchUnits, RECOVERY_TX_SIZE } from "./batch-units";

const jobs = (n: number, attempts = 1) => Array.from({ length: n }, (_, i) => ({ id: i, attempts }));

describe("batchUnits", () => {
  it("first attempts run in transactions of the configured size", () => {
    expect(batchUnits(jobs(1000), 1000).map((u) => u.length)).toEqual([1000]);
    expect(batchUnits(jobs(1200), 500).map((u) => u.length)).toEqual([500, 500, 200]);
  });

  it("a group with a job on a later attempt (its process died) runs in small transactions, in order", () => {
    const group = [...jobs(99), { id: 99, attempts: 2 }];
    const units = batchUnits(group, 1000);
    expect(units.every((u) => u.length <= RECOVERY_TX_SIZE)).toBe(true);
    expect(units.flat().map((j) => j.id)).toEqual(group.map((j) => j.id));
  });
});
