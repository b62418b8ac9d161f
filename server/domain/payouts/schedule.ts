// Scheduled payouts: every PAYOUT_INTERVAL_MS the process enqueues a REWARD_PAYOUT job for each
// business and environment that has autoPayoutEnabled and payable (or ended-hold) rewards, or a
// referrer's withdrawal request waiting, and for every one with payouts still PENDING or SENT (so that confirmations, reorgs and stuck fees
// are followed even when payouts are run by hand). One queued job at a time per business and
// environment; the runs themselves are safe to overlap. After a run found too little ETH, the
// schedule waits (shortOfEth) instead of recording the same refusal every interval.
import { db } from "../../db/client";
import { chainTarget } from "../../chain/clients";
import { ENVIRONMENTS, type Environment } from "../../shared/environment";
import { dispatchJobs, insertJob, type QueuedJob } from "../jobs/queue";
import { isShortage } from "./create";
import { payableNowWhere } from "../rewards/state";
import { withdrawalsWaiting } from "./withdrawals";

/** How long the schedule leaves a business alone after a run found too little ETH, unless the pool is funded meanwhile. */
export const SHORTAGE_BACKOFF_MS = 60 * 60_000;

/**
 * True while the last payout of the business and environment was refused for too little ETH
 * (the deposit address or the pool) less than SHORTAGE_BACKOFF_MS ago and no deposit was
 * credited since: a scheduled run would only record the same refusal again. A run by hand
 * always runs.
 */
async function shortOfEth(businessId: string, environment: Environment, now: Date): Promise<boolean> {
  const last = await db.payout.findFirst({ where: { businessId, environment }, orderBy: { createdAt: "desc" }, select: { status: true, error: true, createdAt: true } });
  if (!last || last.status !== "FAILED" || !isShortage(last.error) || now.getTime() - last.createdAt.getTime() >= SHORTAGE_BACKOFF_MS) return false;
  const funded = await db.ledgerEntry.findFirst({ where: { businessId, environment, kind: "FUNDING", createdAt: { gt: last.createdAt } }, select: { id: true } });
  return !funded;
}

export async function schedulePayoutJobs(now = new Date()): Promise<QueuedJob[]> {
  const due = new Map<string, { businessId: string; environment: Environment }>();
  const add = (businessId: string, environment: Environment) => due.set(`${businessId}:${environment}`, { businessId, environment });
  const open = await db.payout.findMany({ where: { status: { in: ["PENDING", "SENT"] } }, distinct: ["businessId", "environment"], select: { businessId: true, environment: true } });
  for (const o of open) add(o.businessId, o.environment);
  // A referrer's withdrawal request is paid by the next run whatever the business's schedule.
  for (const w of await withdrawalsWaiting()) add(w.businessId, w.environment);
  const openKeys = new Set(due.keys());
  const auto = await db.businessConfig.findMany({ where: { autoPayoutEnabled: true }, select: { businessId: true } });
  if (auto.length) {
    const ready = await db.reward.findMany({
      where: {
        businessId: { in: auto.map((a) => a.businessId) },
        ...payableNowWhere(now),
        participant: { walletAddress: { not: null }, walletFailedAt: null },
      },
      distinct: ["businessId", "environment"],
      select: { businessId: true, environment: true },
    });
    for (const r of ready) add(r.businessId, r.environment);
  }
  const jobs: QueuedJob[] = [];
  for (const [key, { businessId, environment }] of due.entries()) {
    if (!ENVIRONMENTS.includes(environment) || "problem" in chainTarget(environment)) continue;
    if (!openKeys.has(key) && (await shortOfEth(businessId, environment, now))) continue;
    const busy = await db.job.findFirst({ where: { businessId, environment, type: "REWARD_PAYOUT", status: { in: ["QUEUED", "RUNNING"] } }, select: { id: true } });
    if (busy) continue;
    jobs.push(await db.$transaction((tx) => insertJob(tx, { businessId, environment, apiKeyId: null }, "REWARD_PAYOUT", { reason: "schedule" })));
  }
  dispatchJobs(jobs);
  return jobs;
}
