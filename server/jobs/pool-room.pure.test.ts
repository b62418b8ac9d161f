// A pool's room per business (pool-room.ts): half of the places for a business whose jobs end in
// time; one job at a time for a business not seen yet or slow; slow businesses together at most
// half of the places, so that the other half always stays with businesses whose endpoints answer.
import { describe, expect, it } from "vitest";
import { PoolRoom } from "./pool-room";

/** A pool of 32 places, jobs of 8 (the webhook pool's defaults), on a clock the test moves. */
function pool(slowMs?: number) {
  let now = 0;
  const room = new PoolRoom({ size: () => 32, usual: () => 8, slowMs, now: () => now });
  return { room, tick: (ms: number) => (now += ms) };
}

/** Claims for a business what its room allows, as a claim does: that many jobs of 8 places. */
function claim(room: PoolRoom, b: string) {
  const n = room.room(b);
  return Array.from({ length: n }, () => room.hold(b, 8));
}

describe("a pool's room per business", () => {
  it("without slowMs a business holds up to half of the places at once", () => {
    const { room } = pool();
    room.beginClaim();
    const held = claim(room, "a");
    expect(held).toHaveLength(2);
    expect(room.used).toBe(16);
    expect(room.room("a")).toBe(0);
    expect(room.room("b")).toBe(2);
    held[0]();
    expect(room.room("a")).toBe(1);
  });

  it("a business not seen yet runs one job until one ends in time, then holds half", () => {
    const { room, tick } = pool(5_000);
    room.beginClaim();
    const [first, ...more] = claim(room, "a");
    expect(more).toHaveLength(0);
    expect(room.room("a")).toBe(0);
    tick(40);
    first();
    room.beginClaim();
    expect(room.room("a")).toBe(2);
  });

  it("two businesses whose endpoints hang hold one job each; a third business still gets its places", () => {
    const { room, tick } = pool(5_000);
    room.beginClaim();
    expect(claim(room, "hangs-1")).toHaveLength(1);
    expect(claim(room, "hangs-2")).toHaveLength(1);
    tick(6_000); // both have been waiting past slowMs: slow
    expect(room.slow("hangs-1") && room.slow("hangs-2")).toBe(true);
    room.beginClaim();
    expect(room.room("hangs-1")).toBe(0);
    expect(room.room("hangs-2")).toBe(0);
    const [fine] = claim(room, "answers");
    expect(room.used).toBe(24);
    tick(30);
    fine();
    room.beginClaim();
    expect(room.room("answers")).toBe(2); // the half the hanging ones cannot take
  });

  it("slow businesses together hold at most half of the places, one job each", () => {
    const { room, tick } = pool(5_000);
    // Four businesses whose last job timed out.
    for (const b of ["s1", "s2", "s3", "s4"]) {
      const done = room.hold(b, 8);
      tick(10_000);
      done();
    }
    expect(room.used).toBe(0);
    room.beginClaim();
    expect(claim(room, "s1")).toHaveLength(1);
    expect(claim(room, "s2")).toHaveLength(1);
    expect(room.room("s3")).toBe(0); // the slow half is taken
    room.beginClaim();
    expect(room.room("s3")).toBe(0);
    expect(room.room("s4")).toBe(0);
    expect(room.room("new")).toBe(1);
    expect(room.used).toBe(16);
  });

  it("a business that answered in time and then hangs loses its half until a job ends in time again", () => {
    const { room, tick } = pool(5_000);
    room.beginClaim();
    claim(room, "b")[0](); // seen, ended in time
    room.beginClaim();
    const held = claim(room, "b");
    expect(held).toHaveLength(2);
    tick(5_000); // its endpoint stops answering
    expect(room.slow("b")).toBe(true);
    room.beginClaim();
    expect(room.room("b")).toBe(0);
    held.forEach((done) => done()); // timed out: took 5 s
    room.beginClaim();
    const retry = claim(room, "b");
    expect(retry).toHaveLength(1); // one at a time while slow
    retry[0](120); // answered in 120 ms
    room.beginClaim();
    expect(room.slow("b")).toBe(false);
    expect(room.room("b")).toBe(2);
  });

  it("a job that posted nothing (a fan-out job, messages gone) leaves the verdict as it was", () => {
    const { room, tick } = pool(5_000);
    room.hold("new", 8)(null);
    room.beginClaim();
    expect(room.room("new")).toBe(1); // still not seen answering
    const timedOut = room.hold("slow", 8);
    tick(10_000);
    timedOut();
    const fanOut = room.hold("slow", 8);
    tick(50);
    fanOut(null);
    expect(room.slow("slow")).toBe(true);
  });

  it("the verdict is how long the job says it took, when it says so", () => {
    const { room, tick } = pool(5_000);
    const done = room.hold("b", 8);
    tick(20_000); // its attempts waited for their record, not for the endpoint
    done(300);
    room.beginClaim();
    expect(room.slow("b")).toBe(false);
    expect(room.room("b")).toBe(2);
  });
});
