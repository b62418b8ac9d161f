// The retention cron function runs the domain sweep (server/domain/jobs/retention.ts).
import { randomUUID } from "node:crypto";
import { InngestTestEngine } from "@inngest/test";
import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { newId } from "../shared/ids";
import { retentionFunction } from "./functions";

const DAY = 86_400_000;

const finishedJob = async (businessId: string, daysAgo: number) =>
  (
    await db.job.create({
      data: { id: newId(), businessId, environment: "TEST", type: "EVENT_PROCESS", status: "SUCCEEDED", payload: {}, finishedAt: new Date(Date.now() - daysAgo * DAY) },
    })
  ).id;

describe("retention cron function", () => {
  it("the Inngest cron function runs the same sweep (JOB_RETENTION_DAYS from the environment)", async () => {
    const b = (await db.business.create({ data: { name: "Cron Co", ownerId: `owner-${randomUUID()}` } })).id;
    const before = process.env.JOB_RETENTION_DAYS;
    process.env.JOB_RETENTION_DAYS = "3";
    try {
      const gone = await finishedJob(b, 4);
      const stays = await finishedJob(b, 2);
      const { result, error } = await new InngestTestEngine({ function: retentionFunction, events: [{ name: "inngest/scheduled.timer", data: {} }] }).execute();
      expect(error).toBeUndefined();
      expect(result).toMatchObject({ jobsDeleted: expect.any(Number), more: false });
      expect(await db.job.count({ where: { id: gone } })).toBe(0);
      expect(await db.job.count({ where: { id: stays } })).toBe(1);
    } finally {
      if (before === undefined) delete process.env.JOB_RETENTION_DAYS;
      else process.env.JOB_RETENTION_DAYS = before;
    }
  });
});
