// A live process keeps the jobs it claimed however long its work takes (holdLeases renews their
// leases); once it stops renewing (it died), another process takes them over after one lease.
import { afterEach, describe, expect, it } from "vitest";
import { db, dbKind } from "../db/client";
import { testBusiness, queuedEvent } from "../../tests/support/jobs-fixtures";
import { claimDueJobs } from "./claim";
import { holdLeases } from "./lease";
import { RECOVERY_TX_SIZE } from "./batch-units";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LEASE_MS = 600;

describe.skipIf(dbKind() !== "postgres")("leases of a claim in hand (PostgreSQL: other processes claim from the same table)", () => {
  afterEach(() => {
    delete process.env.JOB_LEASE_MS;
  });

  it("are renewed while held, and taken over one lease after the holder stops", async () => {
    process.env.JOB_LEASE_MS = String(LEASE_MS);
    const scope = await testBusiness();
    for (let i = 0; i < 3; i++) await queuedEvent(scope, { eventName: "signup" });
    const mine = await claimDueJobs(10, ["EVENT_PROCESS"]);
    expect(mine).toHaveLength(3);

    const release = holdLeases(mine);
    await sleep(LEASE_MS * 3);
    expect(await claimDueJobs(10, ["EVENT_PROCESS"]), "a held claim is nobody else's").toHaveLength(0);

    release();
    await sleep(LEASE_MS * 2);
    const takenOver = await claimDueJobs(10, ["EVENT_PROCESS"]);
    expect(takenOver.map((j) => j.id).sort()).toEqual(mine.map((j) => j.id).sort());
    expect(takenOver.every((j) => j.attempts === 2)).toBe(true);
    await db.job.updateMany({ where: { businessId: scope.businessId }, data: { status: "SUCCEEDED", lockedUntil: null } });
  });
});

describe("jobs a crashed process left RUNNING", () => {
  afterEach(() => {
    delete process.env.JOB_LEASE_MS;
  });

  it("are claimed a few at a time, so that one more crash costs few of them an attempt", async () => {
    process.env.JOB_LEASE_MS = "200";
    const scope = await testBusiness();
    for (let i = 0; i < RECOVERY_TX_SIZE * 3; i++) await queuedEvent(scope, { eventName: "signup" });
    expect(await claimDueJobs(1000, ["EVENT_PROCESS"])).toHaveLength(RECOVERY_TX_SIZE * 3); // then its process dies
    await sleep(400);
    const first = await claimDueJobs(1000, ["EVENT_PROCESS"]);
    expect(first).toHaveLength(RECOVERY_TX_SIZE);
    expect(first.map((j) => j.attempts)).toEqual(first.map(() => 2));
    expect(await claimDueJobs(1000, ["EVENT_PROCESS"])).toHaveLength(RECOVERY_TX_SIZE);
  });
});
