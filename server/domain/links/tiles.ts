// The funnel's closed days are summed over aligned blocks (LinkClickBlockGroup, migration 0150):
// a block of `size` days starts on a day number since 1970-01-01 that `size` divides, so any range
// is tiled by a few blocks and single days, and each closed day is in one block of each size.
const DAY_MS = 86_400_000;
const isoDay = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);

/** The block sizes, in days (the table's CHECK lists the same). */
export const BLOCK_SIZES = [2, 4, 8, 16, 32, 64, 128, 256] as const;

/** The range's UTC days (inclusive) as the largest aligned blocks that fit, left to right, and the days left over. */
export function tileRange(from: Date, to: Date) {
  const blocks: { size: number; start: string }[] = [];
  const days: string[] = [];
  const last = Math.round(to.getTime() / DAY_MS);
  for (let n = Math.round(from.getTime() / DAY_MS); n <= last; ) {
    const size = [...BLOCK_SIZES].reverse().find((s) => n % s === 0 && n + s - 1 <= last);
    if (size) blocks.push({ size, start: isoDay(n) });
    else days.push(isoDay(n));
    n += size ?? 1;
  }
  return { blocks, days };
}
