// Claims take turns among businesses (claim.ts ClaimTurns): one business's backlog holds no
// other business's job back, a business alone still gets whole claims, successive small claims
// go round the businesses that have due jobs, and a business without room (a pool's places)
// gets nothing.
import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { testBusiness } from "../../tests/support/jobs-fixtures";
import { claimDueJobs, type ClaimTurns } from "./claim";

const HOUR = 3_600_000;

/** `n` due EVENT_PROCESS jobs of the business, the first due `agoMs` ago, one millisecond apart. */
async function backlog(businessId: string, n: number, agoMs: number) {
  const at = Date.now() - agoMs;
  await db.job.createMany({
    data: Array.from({ length: n }, (_, i) => ({ businessId, environment: "TEST" as const, type: "EVENT_PROCESS" as const, payload: { eventId: `none-${i}` }, runAt: new Date(at + i) })),
  });
}

const release = () => db.job.updateMany({ where: { status: "RUNNING" }, data: { status: "SUCCEEDED", lockedBy: null, lockedUntil: null } });
const count = (jobs: { businessId: string }[], b: string) => jobs.filter((j) => j.businessId === b).length;

describe("claims in turns", () => {
  it("another business's job is in the next claim, however long one business's backlog; the rest of the claim is the backlog's", async () => {
    const big = await testBusiness();
    const small = await testBusiness();
    await backlog(big.businessId, 50, HOUR);
    await backlog(small.businessId, 1, 1000);
    // Oldest first only (no turns): the backlog fills the claim.
    const plain = await claimDueJobs(10, ["EVENT_PROCESS"]);
    expect(count(plain, small.businessId)).toBe(0);
    await db.job.updateMany({ where: { id: { in: plain.map((j) => j.id) } }, data: { status: "QUEUED" } });
    const turns: ClaimTurns = { after: "" };
    const claimed = await claimDueJobs(10, ["EVENT_PROCESS"], 0, turns);
    expect(claimed).toHaveLength(10);
    expect(count(claimed, small.businessId)).toBe(1);
    expect(count(claimed, big.businessId)).toBe(9);
    await release();
    // A business alone: whole claims.
    expect(await claimDueJobs(10, ["EVENT_PROCESS"], 0, turns)).toHaveLength(10);
    await release();
    await db.job.deleteMany({ where: { businessId: { in: [big.businessId, small.businessId] } } });
  });

  it("small claims go round the businesses; a business without room gets nothing", async () => {
    const a = await testBusiness();
    const b = await testBusiness();
    const later = await testBusiness();
    await backlog(a.businessId, 5, HOUR);
    await backlog(b.businessId, 5, 1000);
    await backlog(later.businessId, 5, -HOUR); // due in an hour: no turn yet
    const turns: ClaimTurns = { after: "", room: () => 1 };
    const served: string[] = [];
    for (let i = 0; i < 4; i++) {
      const [job, ...more] = await claimDueJobs(1, ["EVENT_PROCESS"], 0, turns);
      expect(more).toEqual([]);
      served.push(job.businessId);
    }
    expect(served.filter((x) => x === a.businessId)).toHaveLength(2);
    expect(served.filter((x) => x === b.businessId)).toHaveLength(2);
    expect(served[0]).not.toBe(served[1]);
    // `a` holds all it may: only `b`'s jobs are claimed, whatever the claim's size.
    const roomOf: ClaimTurns = { after: "", room: (id) => (id === a.businessId ? 0 : 2) };
    const only = await claimDueJobs(5, ["EVENT_PROCESS"], 0, roomOf);
    expect(only.map((j) => j.businessId)).toEqual([b.businessId, b.businessId]);
    await release();
    await db.job.deleteMany({ where: { businessId: { in: [a.businessId, b.businessId, later.businessId] } } });
  });

  it("with yieldTo, a pool's wait holds only the businesses in a burst: queued events, or events still being decided", async () => {
    const bursting = await testBusiness();
    const quiet = await testBusiness();
    await backlog(bursting.businessId, 3, 0); // queued events: `bursting` is in a burst
    const delivery = (businessId: string, agoMs: number) =>
      db.job.create({ data: { businessId, environment: "TEST", type: "WEBHOOK_DELIVER", payload: { messageIds: ["none"] }, runAt: new Date(Date.now() - agoMs) } });
    const burstNew = await delivery(bursting.businessId, 0);
    const burstOld = await delivery(bursting.businessId, 61_000);
    const quietNew = await delivery(quiet.businessId, 0);
    let deciding: string[] = [];
    const pool: ClaimTurns = { after: "", room: () => 10, yieldTo: { types: ["EVENT_PROCESS", "SDK_REFERRAL_APPLY"], busy: () => deciding } };
    const requeue = (ids: string[]) => db.job.updateMany({ where: { id: { in: ids } }, data: { status: "QUEUED" } });
    const ids = async (dueForMs: number, turns: ClaimTurns) => (await claimDueJobs(10, ["WEBHOOK_DELIVER"], dueForMs, turns)).map((j) => j.id).sort();
    // Nothing of the type queued: an empty claim (the wait's parameters unused).
    expect(await claimDueJobs(10, ["LIABILITY_PROOF"], 60_000, pool)).toEqual([]);
    const first = await ids(60_000, pool);
    expect(first).toEqual([burstOld.id, quietNew.id].sort());
    // Without yieldTo the wait holds every business.
    await requeue(first);
    const all = await ids(60_000, { after: "", room: () => 10 });
    expect(all).toEqual([burstOld.id]);
    await requeue(all);
    // Its events all taken but still being decided (`busy`): it still waits.
    await db.job.deleteMany({ where: { businessId: bursting.businessId, type: "EVENT_PROCESS" } });
    deciding = [bursting.businessId];
    const second = await ids(60_000, pool);
    expect(second).toEqual([burstOld.id, quietNew.id].sort());
    await requeue(second);
    // The burst over: its fresh job goes too.
    deciding = [];
    expect(await ids(60_000, pool)).toEqual([burstNew.id, burstOld.id, quietNew.id].sort());
    await db.job.deleteMany({ where: { businessId: { in: [bursting.businessId, quiet.businessId] } } });
  });

  it("a job a crashed process left RUNNING is taken again by a pool's claim, though its business has nothing queued", async () => {
    const crashed = await testBusiness();
    const job = await db.job.create({
      data: { businessId: crashed.businessId, environment: "TEST", type: "EVENT_PROCESS", payload: {}, status: "RUNNING", attempts: 1, lockedBy: "gone", lockedUntil: new Date(Date.now() - 1000) },
    });
    const claimed = await claimDueJobs(2, ["EVENT_PROCESS"], 0, { after: "", room: () => 1 });
    expect(claimed.map((j) => j.id)).toEqual([job.id]);
    expect(claimed[0]).toMatchObject({ status: "RUNNING", attempts: 2 });
  });

  it("with rooms, jobs a crashed process left RUNNING are taken within their business's room: a restart cannot fill a pool with one business's jobs", async () => {
    const crashed = await testBusiness();
    const other = await testBusiness();
    const expired = (businessId: string, i: number) =>
      db.job.create({
        data: { businessId, environment: "TEST", type: "WEBHOOK_DELIVER", payload: { messageIds: [`none-${i}`] }, status: "RUNNING", attempts: 1, lockedBy: "gone", lockedUntil: new Date(Date.now() - 1000), runAt: new Date(Date.now() - HOUR + i) },
      });
    const left = await Promise.all([0, 1, 2, 3, 4].map((i) => expired(crashed.businessId, i)));
    const queued = await db.job.create({ data: { businessId: other.businessId, environment: "TEST", type: "WEBHOOK_DELIVER", payload: { messageIds: ["none"] }, runAt: new Date(Date.now() - 1000) } });
    // Room for one job each (a pool's first turn of a business it has not seen answer yet).
    const pool: ClaimTurns = { after: "", room: () => 1 };
    const claimed = await claimDueJobs(10, ["WEBHOOK_DELIVER"], 0, pool);
    expect(claimed.map((j) => j.id).sort()).toEqual([left[0].id, queued.id].sort());
    expect(claimed.find((j) => j.id === left[0].id)).toMatchObject({ status: "RUNNING", attempts: 2 });
    // The crashed business holding its room: none of its jobs; once it has room again, its next oldest.
    expect(await claimDueJobs(10, ["WEBHOOK_DELIVER"], 0, { after: "", room: (b) => (b === crashed.businessId ? 0 : 1) })).toEqual([]);
    const next = await claimDueJobs(10, ["WEBHOOK_DELIVER"], 0, pool);
    expect(next.map((j) => j.id)).toEqual([left[1].id]);
    await db.job.deleteMany({ where: { businessId: { in: [crashed.businessId, other.businessId] } } });
  });
});
