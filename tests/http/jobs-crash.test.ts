// Durable jobs across a crash, over real HTTP against `next start`: a job left RUNNING by a
// killed process (lease expired) is taken over after restart and completes exactly once; and
// 20 concurrent duplicates of one idempotency key leave one event and one job in the database.
import { inject } from "vitest";
import { afterAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app";
import { ownDatabase, withDatabase } from "../support/database";
import { createKey, request, signUp, uniqueEmail } from "../support/http";
import { makeParticipant, waitForJob } from "./sdk-helpers";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

async function freshDatabase(): Promise<Record<string, string>> {
  const own = await ownDatabase();
  cleanups.push(own.drop);
  return own.env;
}

describe("durable jobs across a crash", () => {
  it("a RUNNING job whose process died is completed exactly once after restart; 20 duplicates → one event, one job", async () => {
    expect(inject("baseUrl")).toBeTruthy();
    const dbEnv = await freshDatabase();
    // First life: the runner is off so that accepted jobs stay QUEUED.
    let app: RunningApp = await startApp({ ...dbEnv, EMBEDDED_RUNNER: "0" });
    cleanups.push(() => app.stop());
    const owner = await signUp({ url: app.url });
    const key = await createKey(owner);
    const referrer = await makeParticipant(key.secret, { userId: "crash-referrer" }, app.url);
    const tracked = await request(app.url, "POST", "/track", { eventName: "signup", referrer: referrer.referralCode, metadata: { referredUserEmail: uniqueEmail() } }, { "x-api-key": key.secret });
    expect(tracked.status).toBe(202);
    const jobId: string = tracked.body.jobId;

    const dup = { eventName: "purchase", idempotencyKey: "dup-20", metadata: { referredUserEmail: uniqueEmail() } };
    const dups = await Promise.all(Array.from({ length: 20 }, () => request(app.url, "POST", "/track", dup, { "x-api-key": key.secret })));
    expect(new Set(dups.map((d) => d.body.jobId)).size).toBe(1);
    expect(new Set(dups.map((d) => d.body.eventId)).size).toBe(1);

    // Crash, then leave the first job as a runner that died mid-run would: RUNNING, lease expired.
    await app.kill();
    await withDatabase(dbEnv, async (sql) => {
      const counts = await sql(`SELECT (SELECT count(*) FROM "TrackedEvent" WHERE "idempotencyKey" = 'dup-20')::int AS events,
        (SELECT count(*) FROM "Job" j JOIN "TrackedEvent" e ON e.id = j.payload->>'eventId' WHERE e."idempotencyKey" = 'dup-20')::int AS jobs,
        (SELECT count(*) FROM "IdempotencyRecord" WHERE key = 'dup-20')::int AS records`);
      expect(counts[0]).toEqual({ events: 1, jobs: 1, records: 1 });
      const updated = await sql(
        `UPDATE "Job" SET status = 'RUNNING', attempts = 1, "lockedBy" = 'crashed-runner', "startedAt" = now() - interval '1 minute',
           "lockedUntil" = now() - interval '1 second' WHERE id = $1 AND status = 'QUEUED' RETURNING id`,
        [jobId],
      );
      expect(updated).toHaveLength(1);
    });

    // Second life with the runner on: the expired lease is taken over.
    app = await startApp({ ...dbEnv, JOB_POLL_MS: "100" });
    cleanups.push(() => app.stop());
    const job = await waitForJob(key.secret, jobId, app.url);
    expect(job).toMatchObject({ status: "SUCCEEDED", attempts: 2, error: null });
    const dupJob = await waitForJob(key.secret, dups[0].body.jobId, app.url);
    expect(dupJob).toMatchObject({ status: "SUCCEEDED", attempts: 1 });
    const referrals = await request(app.url, "GET", "/sdk/referrals", undefined, { "x-api-key": key.secret });
    expect(referrals.body.data).toHaveLength(1);
    expect(referrals.body.data[0].referralId).toBe(job.result.referralId);
    await app.stop();

    await withDatabase(dbEnv, async (sql) => {
      const [row] = await sql(`SELECT e.status::text AS status, e."referralId" AS "referralId", j.status::text AS "jobStatus", j."lockedBy" AS "lockedBy",
          (SELECT count(*) FROM "Referral" r WHERE r."businessId" = e."businessId")::int AS referrals
        FROM "Job" j JOIN "TrackedEvent" e ON e.id = j.payload->>'eventId' WHERE j.id = $1`, [jobId]);
      expect(row).toMatchObject({ jobStatus: "SUCCEEDED", lockedBy: null, referralId: job.result.referralId, referrals: 1 });
      expect(row.status).not.toBe("QUEUED");
    });
  });
});
