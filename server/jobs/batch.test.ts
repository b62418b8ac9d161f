// Batched execution (execute.ts executeEventBatch) has exactly the outcomes of one-by-one
// execution: the same scenario runs for two identically configured businesses, one job at a
// time for the first, as one batch for the second, and every outcome is compared (event
// statuses and reasons, rewards with caps, daily totals, pool refusals and review holds,
// referral statuses, job statuses and errors, pool balance). Also: a job whose lease was taken
// over is left to its new holder (exactly once across workers), and a failing job rolls back alone.
import { randomUUID } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { db } from "../db/client";
import { creditLedger, getBalanceWei, getLedgerSumWei } from "../domain/ledger/service";
import { upsertParticipant } from "../domain/participants/service";
import type { Scope } from "../domain/participants/schemas";
import { ethToWei, weiToDb } from "../shared/money";
import { newId } from "../shared/ids";
import { claimJob, executeClaimedJobs, executeEventBatch, runJob } from "./execute";

type Step = { eventName: string; referrer?: string | null; email?: string | number; userId?: string };

async function setupBusiness(config: Record<string, unknown>, settings: Record<string, unknown>, fundEth: string): Promise<Scope> {
  const b = await db.business.create({ data: { name: "Batch Co", ownerId: `owner-${randomUUID()}` } });
  await db.businessConfig.create({ data: { businessId: b.id, ...config } });
  await db.referralSettings.create({ data: { businessId: b.id, ...settings } });
  if (fundEth !== "0") await db.$transaction((tx) => creditLedger(tx, { businessId: b.id, environment: "TEST", amountWei: ethToWei(fundEth), kind: "FUNDING" }));
  return { businessId: b.id, environment: "TEST", apiKeyId: null };
}

/** Queues the steps as /track would: one event + EVENT_PROCESS job each, in arrival order. */
async function queueSteps(scope: Scope, steps: Step[], codes: Record<string, string>) {
  const base = Date.now() - 60_000;
  const jobs: string[] = [];
  for (const [i, s] of steps.entries()) {
    const at = new Date(base + i);
    const metadata: Record<string, string | number> = {};
    if (s.email !== undefined) metadata.referredUserEmail = s.email;
    if (s.userId) metadata.referredUserId = s.userId;
    const referrer = s.referrer ? (codes[s.referrer] ?? s.referrer) : null;
    const e = await db.trackedEvent.create({ data: { id: newId(), businessId: scope.businessId, environment: "TEST", eventName: s.eventName, referrer, metadata, createdAt: at } });
    const j = await db.job.create({
      data: { id: newId(), businessId: scope.businessId, environment: "TEST", type: "EVENT_PROCESS", payload: { eventId: e.id }, maxAttempts: 3, runAt: at, createdAt: at },
    });
    jobs.push(j.id);
  }
  return jobs;
}

/** Everything the scenario decided, with ids replaced by stable names. */
async function snapshot(scope: Scope, jobIds: string[]) {
  const people = await db.participant.findMany({ where: { businessId: scope.businessId } });
  const who = new Map(people.map((p) => [p.id, p.externalId ?? p.email ?? "?"]));
  const out = [];
  for (const id of jobIds) {
    const job = await db.job.findUniqueOrThrow({ where: { id } });
    const eventId = (job.payload as { eventId: string }).eventId;
    const ev = await db.trackedEvent.findUniqueOrThrow({ where: { id: eventId }, include: { referral: true } });
    const rewards = await db.reward.findMany({ where: { eventId }, orderBy: { kind: "asc" } });
    out.push({
      job: { status: job.status, attempts: job.attempts, error: job.lastError?.split(":")[0] ?? null },
      event: { status: ev.status, reason: ev.reason },
      referral: ev.referral ? { referrer: who.get(ev.referral.referrerId), referred: who.get(ev.referral.referredId), status: ev.referral.status, reason: ev.referral.reason } : null,
      rewards: rewards.map((r) => ({ kind: r.kind, to: who.get(r.participantId), requested: r.requestedWei.toFixed(), amount: r.amountWei.toFixed(), status: r.status, reason: r.reason })),
    });
  }
  return { events: out, balance: await getBalanceWei(db, scope.businessId, "TEST"), ledgerSum: await getLedgerSumWei(db, scope.businessId, "TEST") };
}

const eth = (v: string) => weiToDb(ethToWei(v));

const SCENARIOS: { name: string; config: Record<string, unknown>; settings: Record<string, unknown>; fund: string }[] = [
  {
    name: "caps, daily totals, pool exhaustion, once per referral, rejections",
    config: { referralRewardWei: eth("0.01"), bonusWei: eth("0.004"), qualifyingEvents: ["purchase"], maxEthPerDayPerUserWei: eth("0.025"), maxBonusEthPerEventWei: eth("0.003") },
    settings: { maxReferralsPerReferrerPerDay: 5 },
    fund: "0.05",
  },
  {
    name: "review holds and tiers",
    config: { rewardStrategy: "TIERED", referralRewardWei: eth("0.01"), bonusWei: eth("0.002") },
    settings: { holdForReview: true },
    fund: "1",
  },
];

const STEPS: Step[] = [
  { eventName: "signup", referrer: "R1", email: "a@example.com" },
  { eventName: "purchase", referrer: "R1", email: "a@example.com" },
  { eventName: "purchase", referrer: "R1", email: "a@example.com" },
  { eventName: "purchase", referrer: "R1", email: "b@example.com" },
  { eventName: "purchase", referrer: "R1", email: "c@example.com" },
  { eventName: "purchase", referrer: null, email: "a@example.com" },
  { eventName: "purchase", referrer: "NOSUCH99", email: "x@example.com" },
  { eventName: "purchase", referrer: "R2", email: "r2@example.com" },
  { eventName: "purchase", referrer: "R2", email: "d@example.com" },
  { eventName: "purchase", referrer: "R2", email: 12345 },
  { eventName: "purchase", referrer: "R3", email: "e@example.com" },
  { eventName: "purchase", referrer: "R3", email: "f@example.com" },
  { eventName: "purchase", referrer: "R1", email: "g@example.com" },
  { eventName: "purchase", referrer: "R1", email: "h@example.com" },
  { eventName: "purchase", referrer: "R1", email: "i@example.com" },
  { eventName: "signup", referrer: "R3", userId: "u-1" },
  { eventName: "purchase", referrer: null, userId: "u-1" },
];

async function referrers(scope: Scope) {
  const codes: Record<string, string> = {};
  for (const [name, email] of [["R1", "r1@example.com"], ["R2", "r2@example.com"], ["R3", "r3@example.com"]]) {
    codes[name] = (await upsertParticipant(scope, { userId: name, email })).referralCode;
  }
  return codes;
}

describe("batched execution", () => {
  for (const sc of SCENARIOS) {
    it(`has the outcomes of one-by-one execution: ${sc.name}`, async () => {
      vi.spyOn(console, "error").mockImplementation(() => {}); // the malformed event's internal error is logged
      const single = await setupBusiness(sc.config, sc.settings, sc.fund);
      const batched = await setupBusiness(sc.config, sc.settings, sc.fund);
      await db.tier.createMany({
        data: [single, batched].flatMap((s) => [
          { businessId: s.businessId, name: "Silver", minReferrals: 2, referralRewardWei: eth("0.02"), bonusWei: eth("0.001") },
          { businessId: s.businessId, name: "Gold", minReferrals: 4, referralRewardWei: eth("0.03"), bonusWei: "0" },
        ]),
      });
      const singleJobs = await queueSteps(single, STEPS, await referrers(single));
      const batchJobs = await queueSteps(batched, STEPS, await referrers(batched));

      for (const id of singleJobs) await runJob(id);
      const claimed = [];
      for (const id of [...batchJobs].reverse()) claimed.push((await claimJob(id))!); // claim order does not matter
      const outcomes = await executeEventBatch(claimed);
      expect(outcomes.size).toBe(STEPS.length);

      const a = await snapshot(single, singleJobs);
      const b = await snapshot(batched, batchJobs);
      expect(b).toEqual(a);
      expect(a.balance).toBe(a.ledgerSum);
      // The scenario exercises what it claims to.
      const all = JSON.stringify(a.events);
      for (const s of sc.settings.holdForReview ? ["HELD", "FLAGGED"] : ["DAILY_CAP", "PER_EVENT_CAP", "INSUFFICIENT_POOL", "REFERRAL_ALREADY_SETTLED", "SELF_REFERRAL", "UNKNOWN_REFERRAL_CODE", "NOT_A_QUALIFYING_EVENT"]) {
        expect(all).toContain(s);
      }
      expect(a.events[9].job).toMatchObject({ status: "QUEUED", error: "INTERNAL" }); // retried later, alone
    }, 120_000);
  }

  it("a job whose lease another worker took over is left to it; each job's effects commit once", async () => {
    const scope = await setupBusiness({ referralRewardWei: eth("0.01") }, {}, "1");
    const codes = await referrers(scope);
    const jobs = await queueSteps(scope, ["a", "b", "c", "d"].map((x) => ({ eventName: "purchase", referrer: "R1", email: `${x}@example.com` })), codes);
    const stale = [];
    for (const id of jobs) stale.push((await claimJob(id))!);
    // The first worker stalls past its lease on two of them; another worker takes those over.
    await db.job.updateMany({ where: { id: { in: jobs.slice(0, 2) } }, data: { lockedUntil: new Date(Date.now() - 1000) } });
    const fresh = [(await claimJob(jobs[0]))!, (await claimJob(jobs[1]))!];
    const first = await executeEventBatch(stale);
    expect(jobs.map((id) => first.get(id)?.status)).toEqual(["BUSY", "BUSY", "SUCCEEDED", "SUCCEEDED"]);
    const second = await executeClaimedJobs(fresh);
    expect([...second.values()].map((o) => o.status)).toEqual(["SUCCEEDED", "SUCCEEDED"]);
    expect(await db.referral.count({ where: { businessId: scope.businessId } })).toBe(4);
    expect(await db.reward.count({ where: { businessId: scope.businessId, status: "PAID" } })).toBe(4);
    const rows = await db.job.findMany({ where: { id: { in: jobs } } });
    expect(rows.every((j) => j.status === "SUCCEEDED" && j.lockedBy === null)).toBe(true);
    expect(await getBalanceWei(db, scope.businessId, "TEST")).toBe(await getLedgerSumWei(db, scope.businessId, "TEST"));
  }, 60_000);
});
