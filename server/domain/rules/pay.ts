// Paying one reward, pure: the per-event cap of its kind, the daily cap per participant (UTC day,
// every kind) and the pool balance; and the pool's low-balance alert (with the auto-refill
// request) when a debit crosses the threshold. Outcomes are never silent: a capped reward
// records the cap in `reason`, an unpayable one is REFUSED with its reason.
import { amountText, type Asset } from "../../shared/asset";
import type { Environment } from "../../shared/environment";
import { poolLowWebhook, type WebhookEvent } from "../webhooks/events";

/** COMMISSION rewards are capped as their recipient's kind (rules/commissions.ts commissionCaps). */
export type RewardKind = "REFERRAL" | "BONUS" | "MANUAL" | "COMMISSION";

export const REWARD_REASONS = {
  PER_EVENT_CAP: "PER_EVENT_CAP",
  DAILY_CAP: "DAILY_CAP",
  INSUFFICIENT_POOL: "INSUFFICIENT_POOL",
  HELD_FOR_REVIEW: "HELD_FOR_REVIEW",
  REJECTED_BY_REVIEW: "REJECTED_BY_REVIEW",
  REFERRAL_ALREADY_REWARDED: "REFERRAL_ALREADY_REWARDED",
  REFERRAL_REJECTED: "REFERRAL_REJECTED",
  /** Held for review, then the referral was reversed as a whole (a chargeback, a reversal event): it pays nothing more. */
  REFERRAL_REVERSED: "REFERRAL_REVERSED",
} as const;

export interface PayoutCaps {
  maxReferralPerEventWei: bigint | null;
  maxBonusPerEventWei: bigint | null;
  maxPerDayWei: bigint | null;
}

export interface PayoutDecision {
  status: "PAID" | "REFUSED";
  amountWei: bigint;
  /** Comma-separated reasons, e.g. "PER_EVENT_CAP,DAILY_CAP", or null when paid in full. */
  reason: string | null;
}

const perEventCapOf = (caps: PayoutCaps, kind: RewardKind) => (kind === "REFERRAL" ? caps.maxReferralPerEventWei : kind === "BONUS" ? caps.maxBonusPerEventWei : null);

/** The caps and the pool applied to a requested amount, given what the participant was already paid today and the pool balance. */
export function capPayout(caps: PayoutCaps, kind: RewardKind, requestedWei: bigint, paidTodayWei: bigint, balanceWei: bigint): PayoutDecision {
  const reasons: string[] = [];
  let amount = requestedWei;
  const perEvent = perEventCapOf(caps, kind);
  if (perEvent !== null && amount > perEvent) {
    amount = perEvent;
    reasons.push(REWARD_REASONS.PER_EVENT_CAP);
  }
  if (caps.maxPerDayWei !== null && amount > 0n) {
    const remaining = caps.maxPerDayWei - paidTodayWei;
    if (amount > remaining) {
      amount = remaining > 0n ? remaining : 0n;
      reasons.push(REWARD_REASONS.DAILY_CAP);
    }
  }
  if (amount <= 0n) return { status: "REFUSED", amountWei: 0n, reason: reasons.join(",") || REWARD_REASONS.PER_EVENT_CAP };
  if (balanceWei < amount) {
    reasons.push(REWARD_REASONS.INSUFFICIENT_POOL);
    return { status: "REFUSED", amountWei: 0n, reason: reasons.join(",") };
  }
  return { status: "PAID", amountWei: amount, reason: reasons.length ? reasons.join(",") : null };
}

/** The memo of a reward's ledger debit. */
export const rewardDebitMemo = (kind: RewardKind, amountWei: bigint, asset: Asset) => `${kind} reward ${amountText(amountWei, asset)}`;

export interface PoolAlertConfig {
  /** The environment's asset: the alerts' words. */
  asset: Asset;
  lowPoolWei: bigint;
  autoRefill: boolean;
  autoRefillWei: bigint;
}

export interface AlertRow {
  id: string;
  businessId: string;
  environment: Environment;
  kind: "LOW_POOL" | "REFILL_REQUEST";
  message: string;
  balanceWei: bigint;
  thresholdWei: bigint;
  amountWei: bigint | null;
  createdAt: Date;
}

/**
 * One LOW_POOL alert per crossing: when a debit takes the balance below the threshold while the
 * pool was above it (the pool's flag then stays set until a credit lifts the balance), with a
 * REFILL_REQUEST when auto-refill is on. Null when this debit crossed nothing.
 */
export function lowPoolCrossing(
  scope: { businessId: string; environment: Environment },
  cfg: PoolAlertConfig,
  balanceWei: bigint,
  wasBelow: boolean,
  now: Date,
  newId: () => string,
): { alerts: AlertRow[]; webhook: WebhookEvent } | null {
  if (wasBelow || balanceWei >= cfg.lowPoolWei) return null;
  const threshold = cfg.lowPoolWei;
  const alerts: AlertRow[] = [
    {
      id: newId(),
      ...scope,
      kind: "LOW_POOL",
      message: `Pool balance ${amountText(balanceWei, cfg.asset)} fell below the alert threshold of ${amountText(threshold, cfg.asset)}`,
      balanceWei,
      thresholdWei: threshold,
      amountWei: null,
      createdAt: now,
    },
  ];
  if (cfg.autoRefill) {
    alerts.push({
      id: newId(),
      ...scope,
      kind: "REFILL_REQUEST",
      message: `Auto-refill: please deposit ${amountText(cfg.autoRefillWei, cfg.asset)} to the ${scope.environment} pool (balance ${amountText(balanceWei, cfg.asset)})`,
      balanceWei,
      thresholdWei: threshold,
      amountWei: cfg.autoRefillWei,
      createdAt: now,
    });
  }
  return { alerts, webhook: poolLowWebhook({ ...scope, balanceWei, thresholdWei: threshold }, cfg.asset) };
}
