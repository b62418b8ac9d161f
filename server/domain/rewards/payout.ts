// Paying one reward under the business's rules: the per-event cap of its kind, the daily cap per
// participant (UTC day, every kind) and the pool balance. The caller holds the pool lock
// (ledger/lockPool) for the whole transaction, so the daily total and the balance read here
// cannot change underneath it. Outcomes are never silent: a capped reward records the cap in
// `reason`, an unpayable one is REFUSED with its reason.
import type { Tx } from "../../db/client";
import type { BusinessConfig, Reward } from "../../db/generated";
import { toBigInt, weiToDb, weiToEth } from "../../shared/money";
import type { Environment } from "../../shared/environment";
import { debitLedger, getBalanceWei, type LockedPool } from "../ledger/service";
import { utcDayStart } from "./anti-abuse";
import { emitWebhookEvent, rewardWebhook } from "../webhooks/emit";

type RewardKind = "REFERRAL" | "BONUS" | "MANUAL";

export const REWARD_REASONS = {
  PER_EVENT_CAP: "PER_EVENT_CAP",
  DAILY_CAP: "DAILY_CAP",
  INSUFFICIENT_POOL: "INSUFFICIENT_POOL",
  HELD_FOR_REVIEW: "HELD_FOR_REVIEW",
  REJECTED_BY_REVIEW: "REJECTED_BY_REVIEW",
  REFERRAL_ALREADY_REWARDED: "REFERRAL_ALREADY_REWARDED",
  REFERRAL_REJECTED: "REFERRAL_REJECTED",
} as const;

interface PayoutDecision {
  status: "PAID" | "REFUSED";
  amountWei: bigint;
  /** Comma-separated reasons, e.g. "PER_EVENT_CAP,DAILY_CAP", or null when paid in full. */
  reason: string | null;
}

const perEventCapOf = (cfg: Pick<BusinessConfig, "maxReferralEthPerEventWei" | "maxBonusEthPerEventWei">, kind: RewardKind) =>
  kind === "REFERRAL" ? cfg.maxReferralEthPerEventWei : kind === "BONUS" ? cfg.maxBonusEthPerEventWei : null;

/**
 * The caps and the pool applied to a requested amount, given what the participant was already
 * paid today (null: no daily cap) and the pool balance. Pure: the one-by-one path (decidePayout)
 * and the set-based batch path (tracking/event-batch.ts) both decide with it.
 */
export function capPayout(
  cfg: Pick<BusinessConfig, "maxReferralEthPerEventWei" | "maxBonusEthPerEventWei" | "maxEthPerDayPerUserWei">,
  kind: RewardKind,
  requestedWei: bigint,
  paidTodayWei: bigint,
  balanceWei: bigint,
): PayoutDecision {
  const reasons: string[] = [];
  let amount = requestedWei;
  const perEvent = perEventCapOf(cfg, kind);
  if (perEvent !== null && amount > toBigInt(perEvent)) {
    amount = toBigInt(perEvent);
    reasons.push(REWARD_REASONS.PER_EVENT_CAP);
  }
  if (cfg.maxEthPerDayPerUserWei !== null && amount > 0n) {
    const remaining = toBigInt(cfg.maxEthPerDayPerUserWei) - paidTodayWei;
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

/** Reads what the participant was paid today (UTC) and the pool balance, then capPayout. Reads only; the caller writes. */
async function decidePayout(
  tx: Tx,
  cfg: BusinessConfig,
  p: { businessId: string; environment: Environment; participantId: string; kind: RewardKind; requestedWei: bigint; now: Date },
): Promise<PayoutDecision> {
  let paidToday = 0n;
  if (cfg.maxEthPerDayPerUserWei !== null) {
    const paid = await tx.reward.aggregate({
      where: { participantId: p.participantId, status: "PAID", paidAt: { gte: utcDayStart(p.now) } },
      _sum: { amountWei: true },
    });
    paidToday = toBigInt(paid._sum.amountWei ?? 0);
  }
  return capPayout(cfg, p.kind, p.requestedWei, paidToday, await getBalanceWei(tx, p.businessId, p.environment));
}

export interface PayInput {
  businessId: string;
  environment: Environment;
  participantId: string;
  kind: RewardKind;
  requestedWei: bigint;
  eventId?: string | null;
  referralId?: string | null;
  note?: string | null;
  now: Date;
}

/** Decides, records the Reward row and, when paid, debits the pool (one ledger entry per reward). */
export async function payReward(tx: Tx, pool: LockedPool, cfg: BusinessConfig, input: PayInput): Promise<Reward> {
  const d = await decidePayout(tx, cfg, input);
  const reward = await tx.reward.create({
    data: {
      businessId: input.businessId,
      environment: input.environment,
      participantId: input.participantId,
      eventId: input.eventId ?? null,
      referralId: input.referralId ?? null,
      kind: input.kind,
      requestedWei: weiToDb(input.requestedWei),
      amountWei: weiToDb(d.amountWei),
      status: d.status,
      reason: d.reason,
      note: input.note ?? null,
      paidAt: d.status === "PAID" ? input.now : null,
    },
  });
  if (d.status === "PAID") await debit(tx, pool, reward, d.amountWei);
  await emitWebhookEvent(tx, rewardWebhook("reward.created", reward)); // webhook
  return reward;
}

/** Pays a HELD reward (after review) in place, under the rules as they are now. */
export async function releaseHeldReward(tx: Tx, pool: LockedPool, cfg: BusinessConfig, held: Reward, now: Date): Promise<Reward> {
  const d = await decidePayout(tx, cfg, {
    businessId: held.businessId,
    environment: held.environment,
    participantId: held.participantId,
    kind: held.kind,
    requestedWei: toBigInt(held.requestedWei),
    now,
  });
  const reward = await tx.reward.update({
    where: { id: held.id },
    data: { status: d.status, amountWei: weiToDb(d.amountWei), reason: d.reason, paidAt: d.status === "PAID" ? now : null },
  });
  if (d.status === "PAID") await debit(tx, pool, reward, d.amountWei);
  return reward;
}

function debit(tx: Tx, pool: LockedPool, reward: Reward, amountWei: bigint) {
  return debitLedger(tx, pool, {
    businessId: reward.businessId,
    environment: reward.environment,
    amountWei,
    kind: "REWARD",
    rewardId: reward.id,
    memo: `${reward.kind} reward ${weiToEth(amountWei)} ETH`,
  });
}
