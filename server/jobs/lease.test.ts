// A live process keeps the jobs it claimed however long its work takes (holdLeases renews their
// leases); once it stops renewing (it died), another process takes them over after one lease.
import { afterEach, describe, expect, it } from "vitest";
import { dbKind } from "../db/client";
import { testBusiness, queuedEvent } from "../../tests/support/jobs-fixtures";
import { claimDueJobs } from "./claim";
import { holdLeases } from "./lease";

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
  });
});
