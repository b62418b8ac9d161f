// Any range is tiled exactly once by aligned blocks and single days, and by few of them.
import { describe, expect, it } from "vitest";
import { BLOCK_SIZES, tileRange } from "./tiles";

const DAY_MS = 86_400_000;
const dayNumber = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / DAY_MS;

describe("tileRange", () => {
  it("covers every day of a range once, with aligned blocks and a count of pieces that grows with the log of its length", () => {
    const first = dayNumber("2026-01-01");
    for (let from = first; from < first + 40; from++) {
      for (const length of [1, 2, 3, 7, 30, 31, 90, 366]) {
        const { blocks, days } = tileRange(new Date(from * DAY_MS), new Date((from + length - 1) * DAY_MS));
        const covered = [...days.map(dayNumber), ...blocks.flatMap((b) => Array.from({ length: b.size }, (_, i) => dayNumber(b.start) + i))].sort((a, b) => a - b);
        expect(covered).toEqual(Array.from({ length }, (_, i) => from + i));
        for (const b of blocks) expect(BLOCK_SIZES.includes(b.size as (typeof BLOCK_SIZES)[number]) && dayNumber(b.start) % b.size === 0).toBe(true);
        expect(blocks.length + days.length).toBeLessThanOrEqual(2 * Math.log2(length) + 2);
      }
    }
  });
});
