// Scheduled payouts: every PAYOUT_INTERVAL_MS the process enqueues a REWARD_PAYOUT job for each
// business and environment that has autoPayoutEnabled and payable (or ended-hold) rewards, and
// for every one with payouts still PENDING or SENT (so that confirmations, reorgs and stuck fees
// are followed even when payouts are run by hand). One queued job at a time per business and
// environment; the runs themselves are safe to overlap.
import { db } from "../../db/client";
import { chainTarget } from "../../chain/clients";
import { ENVIRONMENTS, type Environment } from "../../shared/environment";
import { dispatchJobs, insertJob, type QueuedJob } from "../jobs/queue";

export async function schedulePayoutJobs(now = new Date()): Promise<QueuedJob[]> {
  const due = new Map<string, { businessId: string; environment: Environment }>();
  const add = (businessId: string, environment: Environment) => due.set(`${businessId}:${environment}`, { businessId, environment });
  const open = await db.payout.findMany({ where: { status: { in: ["PENDING", "SENT"] } }, distinct: ["businessId", "environment"], select: { businessId: true, environment: true } });
  for (const o of open) add(o.businessId, o.environment);
  const auto = await db.businessConfig.findMany({ where: { autoPayoutEnabled: true }, select: { businessId: true } });
  if (auto.length) {
    const ready = await db.reward.findMany({
      where: {
        businessId: { in: auto.map((a) => a.businessId) },
        OR: [{ payoutStatus: "PAYABLE" }, { payoutStatus: "ON_HOLD", payableAt: { lte: now } }],
        participant: { walletAddress: { not: null }, walletFailedAt: null },
      },
      distinct: ["businessId", "environment"],
      select: { businessId: true, environment: true },
    });
    for (const r of ready) add(r.businessId, r.environment);
  }
  const jobs: QueuedJob[] = [];
  for (const { businessId, environment } of due.values()) {
    if (!ENVIRONMENTS.includes(environment) || "problem" in chainTarget(environment)) continue;
    const busy = await db.job.findFirst({ where: { businessId, environment, type: "REWARD_PAYOUT", status: { in: ["QUEUED", "RUNNING"] } }, select: { id: true } });
    if (busy) continue;
    jobs.push(await db.$transaction((tx) => insertJob(tx, { businessId, environment, apiKeyId: null }, "REWARD_PAYOUT", { reason: "schedule" })));
  }
  dispatchJobs(jobs);
  return jobs;
}
