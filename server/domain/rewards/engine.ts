// The reward engine. The SDK pipeline (EVENT_PROCESS / SDK_REFERRAL_APPLY handlers, synchronous
// /track and the dashboard's manual event) records the event and its referral, then calls
// settleEvent inside the same transaction and stores the returned status/reason on the event.
//
// Rules (docs/api.md, "Reward engine"):
// - An event qualifies its referral when its name is in qualifyingEvents (empty = every event),
//   the referral is PENDING (or QUALIFIED without rewards yet) and the event falls within
//   attributionWindowDays of the referral. A referral is settled once, by its first qualifying
//   event: REFERRAL reward → the referrer, BONUS → the referred user.
// - Amounts: FIXED → config referralRewardEth/bonusEth; TIERED → the referrer's tier by count
//   of qualified-or-rewarded referrals (this one included), config amounts below every tier.
// - Caps and pool: see payout.ts. Nothing is paid partially for lack of funds: the reward is
//   REFUSED with INSUFFICIENT_POOL.
// - A FLAGGED referral, or holdForReview, turns the event FLAGGED and its rewards HELD; a
//   reviewer's approval (events/service changeEventStatus) releases them exactly once.
import type { Tx } from "../../db/client";
import type { BusinessConfig, Referral, Reward, TrackedEvent } from "../../db/generated";
import { toBigInt, weiToDb, weiToEth } from "../../shared/money";
import { loadConfig } from "../config/effective";
import { lockPool } from "../ledger/service";
import { loadReferralSettings } from "../referral-settings/service";
import { qualifiedReferralCount, tierForCount } from "../tiers/service";
import { payReward, releaseHeldReward, REWARD_REASONS } from "./payout";
import { emitWebhookEvent, referralWebhook, rewardWebhook } from "../webhooks/emit";

export interface RewardSummary {
  rewardId: string;
  participantId: string;
  kind: "REFERRAL" | "BONUS" | "MANUAL";
  amountEth: string;
  requestedEth: string;
  status: "PAID" | "HELD" | "REFUSED";
  reason: string | null;
}

export interface SettleResult {
  status: "PROCESSED" | "FLAGGED" | "REJECTED";
  reason?: string;
  rewards: RewardSummary[];
}

const EVENT_REASONS = {
  NOT_A_QUALIFYING_EVENT: "NOT_A_QUALIFYING_EVENT",
  ATTRIBUTION_WINDOW_EXPIRED: "ATTRIBUTION_WINDOW_EXPIRED",
  REFERRAL_ALREADY_SETTLED: "REFERRAL_ALREADY_SETTLED",
  HELD_FOR_REVIEW: "HELD_FOR_REVIEW",
  REFERRAL_REJECTED: "REFERRAL_REJECTED",
  /** Recorded through a publishable key: it may link a referral but never qualifies it. */
  UNTRUSTED_EVENT: "UNTRUSTED_EVENT",
} as const;

export const toRewardSummary = (r: Reward): RewardSummary => ({
  rewardId: r.id,
  participantId: r.participantId,
  kind: r.kind,
  amountEth: weiToEth(r.amountWei),
  requestedEth: weiToEth(r.requestedWei),
  status: r.status,
  reason: r.reason,
});

const DAY_MS = 86_400_000;

function isQualifyingEvent(cfg: BusinessConfig, eventName: string) {
  return cfg.qualifyingEvents.length === 0 || cfg.qualifyingEvents.includes(eventName);
}

/** Locks the referral row until the end of the transaction and returns its current state. */
async function lockReferral(tx: Tx, referralId: string): Promise<Referral | null> {
  await tx.$queryRaw`SELECT "id" FROM "Referral" WHERE "id" = ${referralId} FOR UPDATE`;
  return tx.referral.findUnique({ where: { id: referralId } });
}

/** True once the referral has had its rewards decided (paid, held or refused): never twice. */
async function referralSettled(tx: Tx, referral: Referral) {
  if (referral.status === "QUALIFIED" || referral.status === "REWARDED") return true;
  const r = await tx.reward.findFirst({ where: { referralId: referral.id, kind: { in: ["REFERRAL", "BONUS"] } }, select: { id: true } });
  return !!r;
}

/**
 * Requested amounts by strategy. For TIERED the count includes this referral: `uncounted` is 1
 * when it is not (yet) stored as QUALIFIED, e.g. a FLAGGED referral whose rewards are held.
 */
async function requestedAmounts(tx: Tx, cfg: BusinessConfig, referral: Referral, uncounted = 0) {
  if (cfg.rewardStrategy === "TIERED") {
    const count = uncounted + (await qualifiedReferralCount(tx, referral.businessId, referral.environment, referral.referrerId));
    const tier = await tierForCount(tx, referral.businessId, count);
    if (tier) return { referralWei: toBigInt(tier.referralRewardWei), bonusWei: toBigInt(tier.bonusWei), tierId: tier.id };
  }
  return { referralWei: toBigInt(cfg.referralRewardWei), bonusWei: toBigInt(cfg.bonusWei), tierId: null };
}

type Planned = { participantId: string; kind: "REFERRAL" | "BONUS"; requestedWei: bigint };

/** The rewards a qualifying referral asks for: REFERRAL → the referrer, BONUS → the referred user (non-zero amounts only). */
export function plan(referral: Referral, amounts: { referralWei: bigint; bonusWei: bigint }): Planned[] {
  const out: Planned[] = [];
  if (amounts.referralWei > 0n) out.push({ participantId: referral.referrerId, kind: "REFERRAL", requestedWei: amounts.referralWei });
  if (amounts.bonusWei > 0n) out.push({ participantId: referral.referredId, kind: "BONUS", requestedWei: amounts.bonusWei });
  return out;
}

async function holdRewards(tx: Tx, event: TrackedEvent, referral: Referral, planned: Planned[], reason: string) {
  const rows: Reward[] = [];
  for (const p of planned) {
    rows.push(
      await tx.reward.create({
        data: {
          businessId: event.businessId,
          environment: event.environment,
          participantId: p.participantId,
          eventId: event.id,
          referralId: referral.id,
          kind: p.kind,
          requestedWei: weiToDb(p.requestedWei),
          amountWei: "0",
          status: "HELD",
          reason,
        },
      }),
    );
  }
  await emitWebhookEvent(tx, rows.map((r) => rewardWebhook("reward.created", r))); // webhook
  return rows;
}

export async function settleEvent(tx: Tx, input: { event: TrackedEvent; referral: Referral | null }): Promise<SettleResult> {
  const { event } = input;
  if (!input.referral) return { status: "PROCESSED", rewards: [] };
  // Lock first: concurrent events of one referral serialise here, so it is settled once.
  const referral = await lockReferral(tx, input.referral.id);
  if (!referral) return { status: "PROCESSED", rewards: [] };
  if (referral.status === "REJECTED") {
    return { status: "REJECTED", reason: referral.reason ?? EVENT_REASONS.REFERRAL_REJECTED, rewards: [] };
  }
  const cfg = await loadConfig(tx, event.businessId, event.environment);
  const settings = await loadReferralSettings(tx, event.businessId);
  const now = new Date();
  const withinWindow =
    settings.attributionWindowDays === null || event.createdAt.getTime() - referral.createdAt.getTime() <= settings.attributionWindowDays * DAY_MS;
  const qualifies = isQualifyingEvent(cfg, event.eventName) && withinWindow && !event.untrusted;

  if (referral.status === "FLAGGED") {
    // Held until a reviewer decides; only the first qualifying event carries held rewards.
    const reason = referral.reason ?? EVENT_REASONS.HELD_FOR_REVIEW;
    if (!qualifies || (await referralSettled(tx, referral))) return { status: "FLAGGED", reason, rewards: [] };
    const amounts = await requestedAmounts(tx, cfg, referral, 1);
    const held = await holdRewards(tx, event, referral, plan(referral, amounts), reason);
    return { status: "FLAGGED", reason, rewards: held.map(toRewardSummary) };
  }

  if (!isQualifyingEvent(cfg, event.eventName)) return { status: "PROCESSED", reason: EVENT_REASONS.NOT_A_QUALIFYING_EVENT, rewards: [] };
  if (!withinWindow) return { status: "PROCESSED", reason: EVENT_REASONS.ATTRIBUTION_WINDOW_EXPIRED, rewards: [] };
  if (event.untrusted) return { status: "PROCESSED", reason: EVENT_REASONS.UNTRUSTED_EVENT, rewards: [] };
  if (await referralSettled(tx, referral)) return { status: "PROCESSED", reason: EVENT_REASONS.REFERRAL_ALREADY_SETTLED, rewards: [] };

  await tx.referral.update({ where: { id: referral.id }, data: { status: "QUALIFIED", qualifiedAt: now } });
  await emitWebhookEvent(tx, referralWebhook("referral.qualified", { ...referral, status: "QUALIFIED", qualifiedAt: now })); // webhook
  const planned = plan(referral, await requestedAmounts(tx, cfg, referral));

  if (settings.holdForReview) {
    const held = await holdRewards(tx, event, referral, planned, EVENT_REASONS.HELD_FOR_REVIEW);
    return { status: "FLAGGED", reason: EVENT_REASONS.HELD_FOR_REVIEW, rewards: held.map(toRewardSummary) };
  }

  const rewards: Reward[] = [];
  if (planned.length) {
    const pool = await lockPool(tx, event.businessId, event.environment);
    for (const p of planned) {
      rewards.push(
        await payReward(tx, pool, cfg, { ...p, businessId: event.businessId, environment: event.environment, eventId: event.id, referralId: referral.id, now }),
      );
    }
  }
  if (rewards.some((r) => r.status === "PAID")) await tx.referral.update({ where: { id: referral.id }, data: { status: "REWARDED" } });
  return { status: "PROCESSED", rewards: rewards.map(toRewardSummary) };
}

/**
 * A reviewer approved a FLAGGED event: pay its HELD rewards under today's caps and pool, once.
 * The caller has locked the event row and checked that it is still FLAGGED.
 */
export async function releaseEventRewards(tx: Tx, event: TrackedEvent): Promise<Reward[]> {
  const held = await tx.reward.findMany({ where: { eventId: event.id, status: "HELD" }, orderBy: [{ kind: "asc" }, { createdAt: "asc" }] });
  const referral = event.referralId ? await lockReferral(tx, event.referralId) : null;
  const now = new Date();
  const out: Reward[] = [];
  let refuseAll: string | null = null;
  if (referral?.status === "REJECTED") refuseAll = REWARD_REASONS.REFERRAL_REJECTED;
  else if (referral && (await tx.reward.findFirst({ where: { referralId: referral.id, status: "PAID", kind: { in: ["REFERRAL", "BONUS"] } } }))) {
    refuseAll = REWARD_REASONS.REFERRAL_ALREADY_REWARDED;
  }
  if (refuseAll) {
    for (const r of held) out.push(await tx.reward.update({ where: { id: r.id }, data: { status: "REFUSED", reason: refuseAll } }));
    await emitWebhookEvent(tx, out.map((r) => rewardWebhook("reward.reversed", r))); // webhook
    return out;
  }
  if (held.length) {
    const cfg = await loadConfig(tx, event.businessId, event.environment);
    const pool = await lockPool(tx, event.businessId, event.environment);
    for (const r of held) out.push(await releaseHeldReward(tx, pool, cfg, r, now));
  }
  if (referral && referral.status !== "REWARDED") {
    const paid = out.some((r) => r.status === "PAID");
    // Approving clears the flag: the referral continues as if it had never been held.
    const status = paid ? "REWARDED" : held.length ? "QUALIFIED" : referral.status === "FLAGGED" ? "PENDING" : referral.status;
    await tx.referral.update({
      where: { id: referral.id },
      data: { status, qualifiedAt: held.length && !referral.qualifiedAt ? now : undefined },
    });
    if (referral.status !== "QUALIFIED" && status !== "PENDING") await emitWebhookEvent(tx, referralWebhook("referral.qualified", { ...referral, status, qualifiedAt: referral.qualifiedAt ?? now })); // webhook
  }
  return out;
}

/** A reviewer rejected a FLAGGED event: its HELD rewards are refused and a flagged referral rejected. */
export async function rejectEventRewards(tx: Tx, event: TrackedEvent, reason: string): Promise<Reward[]> {
  const held = await tx.reward.findMany({ where: { eventId: event.id, status: "HELD" } });
  const out: Reward[] = [];
  for (const r of held) out.push(await tx.reward.update({ where: { id: r.id }, data: { status: "REFUSED", reason: REWARD_REASONS.REJECTED_BY_REVIEW } }));
  await emitWebhookEvent(tx, out.map((r) => rewardWebhook("reward.reversed", r))); // webhook
  if (event.referralId) {
    const referral = await lockReferral(tx, event.referralId);
    if (referral && (referral.status === "FLAGGED" || (held.length && referral.status === "QUALIFIED"))) {
      await tx.referral.update({ where: { id: referral.id }, data: { status: "REJECTED", reason } });
      await emitWebhookEvent(tx, referralWebhook("referral.rejected", { ...referral, status: "REJECTED", reason })); // webhook
    }
  }
  return out;
}
