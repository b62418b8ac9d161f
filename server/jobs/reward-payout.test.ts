// The REWARD_PAYOUT job through the executor both the embedded runner and Inngest use. No chain
// in this layer (the TEST chain points at a closed port): the job must retry and write nothing.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { insertJob } from "../domain/jobs/queue";
import { creditLedger } from "../domain/ledger/service";
import { ethToWei } from "../shared/money";
import { runJob } from "./execute";

describe("REWARD_PAYOUT job", () => {
  it("runs payouts through the shared executor; a chain that is down leaves the job to retry and nothing written", async () => {
    const b = await db.business.create({ data: { name: "Job Co", ownerId: `owner-${randomBytes(6).toString("hex")}` } });
    await db.$transaction((tx) => creditLedger(tx, { businessId: b.id, environment: "TEST", amountWei: ethToWei("1"), kind: "FUNDING" }));
    const job = await db.$transaction((tx) => insertJob(tx, { businessId: b.id, environment: "TEST", apiKeyId: null }, "REWARD_PAYOUT", { reason: "test" }));
    const outcome = await runJob(job.id);
    expect(outcome).toMatchObject({ status: "RETRY", error: expect.stringMatching(/CHAIN_UNAVAILABLE/) });
    expect(await db.job.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({ status: "QUEUED", attempts: 1 });
    expect(await db.payout.count({ where: { businessId: b.id } })).toBe(0);
  });
});
