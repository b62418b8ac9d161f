// Several workers share one backlog and no job runs twice. On PostgreSQL (TEST_DB=postgres) the
// workers are real `npm run worker` processes (scripts/worker.ts) against this file's database;
// on PGlite (one process only) they are embedded runners in this process. Plus the embedded
// retention schedule.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db, dbKind } from "../db/client";
import { creditLedger, getBalanceWei, getLedgerSumWei } from "../domain/ledger/service";
import { upsertParticipant } from "../domain/participants/service";
import type { Scope } from "../shared/scope";
import { ethToWei, weiToDb } from "../shared/money";
import { newId } from "../shared/ids";
import { startEmbeddedRunner } from "./runner";
import { startRetentionSchedule } from "./worker";

const EVENTS_PER_BUSINESS = 80;

async function backlog(): Promise<{ scope: Scope; jobIds: string[] }> {
  const b = await db.business.create({ data: { name: "Workers Co", ownerId: `owner-${randomUUID()}` } });
  await db.businessConfig.create({ data: { businessId: b.id, referralRewardWei: weiToDb(ethToWei("0.01")), bonusWei: weiToDb(ethToWei("0.005")) } });
  const scope: Scope = { businessId: b.id, environment: "TEST", apiKeyId: null };
  await db.$transaction((tx) => creditLedger(tx, { businessId: b.id, environment: "TEST", amountWei: ethToWei("0.3"), kind: "FUNDING" }));
  const referrers: string[] = [];
  for (let i = 0; i < 5; i++) referrers.push((await upsertParticipant(scope, { userId: `ref-${i}` })).referralCode);
  // The backlog in two statements (events, then their jobs): a row at a time took seconds.
  const at = new Date(Date.now() - 1000);
  const eventIds = Array.from({ length: EVENTS_PER_BUSINESS }, () => newId());
  await db.trackedEvent.createMany({
    data: eventIds.map((id, i) => ({ id, businessId: b.id, environment: "TEST" as const, eventName: "purchase", referrer: referrers[i % 5], metadata: { referredUserEmail: `u${i}@example.com` }, createdAt: at })),
  });
  const jobIds = eventIds.map(() => newId());
  await db.job.createMany({ data: eventIds.map((eventId, i) => ({ id: jobIds[i], businessId: b.id, environment: "TEST" as const, type: "EVENT_PROCESS" as const, payload: { eventId }, runAt: at, createdAt: at })) });
  return { scope, jobIds };
}

async function drained(timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if ((await db.job.count({ where: { status: { in: ["QUEUED", "RUNNING"] } } })) === 0) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

function startWorkerProcess(): ChildProcess {
  const root = path.resolve(import.meta.dirname, "../..");
  return spawn(path.join(root, "node_modules", ".bin", "tsx"), [path.join(root, "scripts", "worker.ts")], {
    cwd: root,
    env: { ...process.env, JOB_BATCH_SIZE: "16", JOB_POLL_MS: "50", RETENTION_INTERVAL_MS: "3600000" },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

describe("several workers against one database", () => {
  it("share the backlog: every job runs once, every effect once, pool = ledger sum", async () => {
    const a = await backlog();
    const b = await backlog();
    const stops: (() => Promise<void>)[] = [];
    if (dbKind() === "postgres") {
      const children = [startWorkerProcess(), startWorkerProcess(), startWorkerProcess()];
      for (const c of children) {
        c.stderr!.on("data", (d) => process.stderr.write(`[worker ${c.pid}] ${d}`));
        stops.push(() => new Promise<void>((resolve) => (c.exitCode !== null ? resolve() : (c.once("exit", () => resolve()), c.kill("SIGTERM")))));
      }
    } else {
      process.env.JOB_BATCH_SIZE = "16";
      for (let i = 0; i < 3; i++) {
        const r = startEmbeddedRunner();
        stops.push(() => r.stop());
      }
    }
    try {
      expect(await drained(150_000)).toBe(true);
    } finally {
      await Promise.all(stops.map((s) => s()));
      delete process.env.JOB_BATCH_SIZE;
    }
    for (const { scope, jobIds } of [a, b]) {
      const jobs = await db.job.findMany({ where: { id: { in: jobIds } } });
      expect(jobs.filter((j) => j.status === "SUCCEEDED" && j.attempts === 1)).toHaveLength(EVENTS_PER_BUSINESS);
      expect(await db.trackedEvent.count({ where: { businessId: scope.businessId, status: "PROCESSED" } })).toBe(EVENTS_PER_BUSINESS);
      expect(await db.referral.count({ where: { businessId: scope.businessId } })).toBe(EVENTS_PER_BUSINESS);
      // 0.3 ETH covers 20 referrals at 0.015 each: 20 × 2 rewards paid, the rest refused.
      expect(await db.reward.count({ where: { businessId: scope.businessId, status: "PAID" } })).toBe(40);
      expect(await db.reward.count({ where: { businessId: scope.businessId } })).toBe(2 * EVENTS_PER_BUSINESS);
      expect(await getBalanceWei(db, scope.businessId, "TEST")).toBe(0n);
      expect(await getLedgerSumWei(db, scope.businessId, "TEST")).toBe(0n);
    }
  }, 240_000);

  it("the embedded retention schedule sweeps on its own", async () => {
    const b = await db.business.create({ data: { name: "Sweep Co", ownerId: `owner-${randomUUID()}` } });
    const old = await db.job.create({
      data: { id: newId(), businessId: b.id, environment: "TEST", type: "EVENT_PROCESS", status: "SUCCEEDED", payload: {}, finishedAt: new Date(Date.now() - 30 * 86_400_000) },
    });
    const schedule = startRetentionSchedule({ firstDelayMs: 0 });
    try {
      const until = Date.now() + 20_000;
      while (Date.now() < until && (await db.job.count({ where: { id: old.id } })) > 0) await new Promise((r) => setTimeout(r, 100));
      expect(await db.job.count({ where: { id: old.id } })).toBe(0);
    } finally {
      await schedule.stop();
    }
  });
});
