// The coalescer's own rules, in process (db/coalesce.ts): batching, the in-flight bound, the
// weight cap, failures isolated per call, the off switch.
import { afterEach, describe, expect, it } from "vitest";
import { coalescer } from "./coalesce";

const tick = () => new Promise((r) => setImmediate(r));

function recorder(fail?: (calls: number[]) => boolean) {
  const batches: number[][] = [];
  let running = 0;
  let maxRunning = 0;
  const release: (() => void)[] = [];
  const run = async (calls: number[]) => {
    batches.push(calls);
    running++;
    maxRunning = Math.max(maxRunning, running);
    await new Promise<void>((r) => release.push(r));
    running--;
    if (fail?.(calls)) throw new Error(`bad batch ${calls.join(",")}`);
    return calls.map((c) => c * 10);
  };
  /** Lets every batch finish, including the ones that start meanwhile. */
  const releaseAll = async () => {
    for (let idle = 0; idle < 3; ) {
      await tick();
      if (release.length === 0) idle++;
      else {
        idle = 0;
        release.splice(0).forEach((r) => r());
      }
    }
  };
  return { batches, run, releaseAll, maxRunning: () => maxRunning };
}

afterEach(() => {
  delete process.env.REQUEST_COALESCING;
});

describe("coalescer", () => {
  it("runs the calls of one turn as one batch and answers each caller its own result", async () => {
    const r = recorder();
    const call = coalescer(r.run, { maxInFlight: 2, maxWeight: 100 });
    const answers = Promise.all([1, 2, 3].map(call));
    await tick();
    await r.releaseAll();
    expect(await answers).toEqual([10, 20, 30]);
    expect(r.batches).toEqual([[1, 2, 3]]);
  });

  it("keeps at most maxInFlight batches running; calls made meanwhile form the next batch", async () => {
    const r = recorder();
    const call = coalescer(r.run, { maxInFlight: 1, maxWeight: 100 });
    const first = call(1);
    await tick();
    const later = Promise.all([2, 3, 4].map(call));
    await tick();
    expect(r.batches).toEqual([[1]]);
    await r.releaseAll();
    expect(await first).toBe(10);
    expect(await later).toEqual([20, 30, 40]);
    expect(r.batches).toEqual([[1], [2, 3, 4]]);
    expect(r.maxRunning()).toBe(1);
  });

  it("caps a batch by weight (a heavier call alone may exceed it)", async () => {
    const r = recorder();
    const call = coalescer(r.run, { maxInFlight: 4, maxWeight: 5, weight: (n: number) => n });
    const answers = Promise.all([2, 3, 1, 9, 4].map(call));
    await tick();
    await r.releaseAll();
    expect(await answers).toEqual([20, 30, 10, 90, 40]);
    expect(r.batches).toEqual([[2, 3], [1], [9], [4]]);
  });

  it("runs each call of a failed batch alone: only the bad call fails", async () => {
    const r = recorder((calls) => calls.includes(13));
    const call = coalescer(r.run, { maxInFlight: 2, maxWeight: 100 });
    const settled = Promise.allSettled([1, 13, 2].map(call));
    await tick();
    await r.releaseAll();
    const out = await settled;
    expect(out.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(out.filter((o) => o.status === "fulfilled").map((o) => o.value)).toEqual([10, 20]);
    expect(r.batches).toEqual([[1, 13, 2], [1], [13], [2]]);
  });

  it("refuses a batch whose result count does not match, per call", async () => {
    const call = coalescer(async (calls: number[]) => (calls.length > 1 ? [1] : [calls[0]]), { maxInFlight: 1, maxWeight: 10 });
    expect(await Promise.all([5, 6].map(call))).toEqual([5, 6]);
  });

  it("REQUEST_COALESCING=0 runs every call alone", async () => {
    process.env.REQUEST_COALESCING = "0";
    const r = recorder();
    const call = coalescer(r.run, { maxInFlight: 1, maxWeight: 100 });
    const answers = Promise.all([1, 2].map(call));
    await r.releaseAll();
    expect(await answers).toEqual([10, 20]);
    expect(r.batches).toEqual([[1], [2]]);
  });
});
