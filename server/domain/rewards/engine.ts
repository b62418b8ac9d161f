// The reward engine's entry points outside the event pipeline: settleEvent (an event settled
// against a referral its caller recorded, through the rules core: server/domain/rules), and the
// review's release and rejection of held rewards. The rules themselves are in rules/decide.ts
// (docs/api.md, "Reward engine").
import type { Tx } from "../../db/client";
import type { Referral, Reward, TrackedEvent } from "../../db/generated";
import { amountOf, assetTagOf, type Asset, type AssetTag } from "../../shared/asset";
import { readAsset } from "../assets/read";
import { loadConfig } from "../effective-config/load";
import { lockPool } from "../ledger/service";
import { REWARD_REASONS } from "../rules/pay";
import { runOne } from "../rules/run";
import { eventItem } from "../rules/state";
import { commissionBasisOf } from "../../shared/reward-basis";
import { releaseHeldRewards } from "./payout";
import { emitWebhookEvent, referralWebhook, reviewedEventWebhook, rewardWebhook, type RewardLike } from "../webhooks/emit";

export interface RewardSummary {
  asset: AssetTag;
  rewardId: string;
  participantId: string;
  kind: "REFERRAL" | "BONUS" | "MANUAL" | "COMMISSION";
  amountEth: string;
  requestedEth: string;
  status: "PAID" | "HELD" | "REFUSED";
  reason: string | null;
  ruleId: string | null;
  baseAmount: string | null;
  baseCurrency: string | null;
  rate: string | null;
  rateSource: string | null;
  rateAt: string | null;
}

export interface SettleResult {
  status: "PROCESSED" | "FLAGGED" | "REJECTED";
  reason?: string;
  rewards: RewardSummary[];
}

/** A reward in its short form, its amounts in the environment's asset. */
export const toRewardSummary = (r: RewardLike, asset: Asset): RewardSummary => ({
  asset: assetTagOf(asset),
  rewardId: r.id,
  participantId: r.participantId,
  kind: r.kind,
  amountEth: amountOf(r.amountWei, asset),
  requestedEth: amountOf(r.requestedWei, asset),
  status: r.status,
  reason: r.reason,
  ...commissionBasisOf(r),
});

/** Locks the referral row until the end of the transaction and returns its current state. */
async function lockReferral(tx: Tx, referralId: string): Promise<Referral | null> {
  await tx.$queryRaw`SELECT "id" FROM "Referral" WHERE "id" = ${referralId} FOR UPDATE`;
  return tx.referral.findUnique({ where: { id: referralId } });
}

/** Settles a recorded event against a referral its caller recorded (the rules core, one item); the event's outcome is stored on it. */
export async function settleEvent(tx: Tx, input: { event: TrackedEvent; referral: Referral | null }): Promise<SettleResult> {
  if (!input.referral) return { status: "PROCESSED", rewards: [] };
  const o = await runOne(tx, input.event, { ...eventItem("settle", input.event, input.referral.apiKeyId), referralId: input.referral.id });
  if (o.kind === "error") throw o.error;
  if (o.kind !== "event") throw new Error("settleEvent: not an event outcome");
  const asset = o.rewards.length ? await readAsset(tx, input.event.businessId, input.event.environment) : null;
  return { status: o.status as SettleResult["status"], reason: o.reason ?? undefined, rewards: o.rewards.map((r) => toRewardSummary(r, asset!)) };
}

/**
 * A reviewer approved a FLAGGED event: pay its HELD rewards under today's caps and pool, once
 * (the per-event caps across each participant's rewards of the event: payout.ts releaseHeldRewards).
 * The caller has locked the event row and checked that it is still FLAGGED.
 */
export async function releaseEventRewards(tx: Tx, event: TrackedEvent): Promise<Reward[]> {
  // In the order the core decided them, so that the per-event caps are used up as it would have.
  const held = await tx.reward.findMany({ where: { eventId: event.id, status: "HELD" }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  const referral = event.referralId ? await lockReferral(tx, event.referralId) : null;
  const now = new Date();
  const out: Reward[] = [];
  let refuseAll: string | null = null;
  if (referral?.status === "REJECTED") refuseAll = REWARD_REASONS.REFERRAL_REJECTED;
  else if (referral?.reversedAt) refuseAll = REWARD_REASONS.REFERRAL_REVERSED; // reversed while its rewards were held: nothing more is paid
  else if (referral && (await tx.reward.findFirst({ where: { referralId: referral.id, status: "PAID", kind: { in: ["REFERRAL", "BONUS"] } } }))) {
    refuseAll = REWARD_REASONS.REFERRAL_ALREADY_REWARDED;
  }
  // A referral already rewarded refuses held one-time rewards only: its commissions (issue 27) are paid per event.
  const refused = refuseAll ? held.filter((r) => refuseAll !== REWARD_REASONS.REFERRAL_ALREADY_REWARDED || r.kind !== "COMMISSION") : [];
  if (refused.length) {
    for (const r of refused) out.push(await tx.reward.update({ where: { id: r.id }, data: { status: "REFUSED", reason: refuseAll } }));
    const asset = await readAsset(tx, event.businessId, event.environment);
    await emitWebhookEvent(tx, out.map((r) => rewardWebhook("reward.reversed", r, asset))); // webhook
    if (refused.length === held.length) return out;
  }
  const release = held.filter((r) => !refused.includes(r));
  if (release.length) {
    const cfg = await loadConfig(tx, event.businessId, event.environment);
    const pool = await lockPool(tx, event.businessId, event.environment);
    out.push(...(await releaseHeldRewards(tx, pool, cfg, event.id, release, now)));
  }
  if (refuseAll) return out;
  if (referral && referral.status !== "REWARDED") {
    // Approving clears the flag: the referral continues as if it had never been held (REWARDED
    // once its one-time rewards are paid, QUALIFIED once an event qualified it, else PENDING).
    const paid = out.some((r) => r.status === "PAID" && r.kind !== "COMMISSION");
    const status = paid ? "REWARDED" : held.length || referral.qualifiedAt ? "QUALIFIED" : referral.status === "FLAGGED" ? "PENDING" : referral.status;
    await tx.referral.update({
      where: { id: referral.id },
      data: { status, qualifiedAt: held.length && !referral.qualifiedAt ? now : undefined },
    });
    if (referral.status !== "QUALIFIED" && status !== "PENDING") await emitWebhookEvent(tx, referralWebhook("referral.qualified", { ...referral, status, qualifiedAt: referral.qualifiedAt ?? now })); // webhook
  }
  return out;
}

/** Refuses HELD rewards with `reason`, telling integrations (reward.reversed). */
async function refuseHeld(tx: Tx, held: readonly Reward[], reason: string): Promise<Reward[]> {
  const out: Reward[] = [];
  for (const r of held) out.push(await tx.reward.update({ where: { id: r.id }, data: { status: "REFUSED", reason } }));
  if (!out.length) return out;
  const asset = await readAsset(tx, out[0].businessId, out[0].environment);
  await emitWebhookEvent(tx, out.map((r) => rewardWebhook("reward.reversed", r, asset))); // webhook
  return out;
}

/**
 * A reviewer rejected a FLAGGED event: its HELD rewards are refused. The referral is rejected when
 * it was flagged itself, or when this event held its one-time rewards (the qualifying event); a
 * later event that held only commissions loses those, and the referral goes on earning. A
 * referral rejected here takes its other FLAGGED events with it (settleEventsOfRejected).
 */
export async function rejectEventRewards(tx: Tx, event: TrackedEvent, reason: string): Promise<Reward[]> {
  const out = await refuseHeld(tx, await tx.reward.findMany({ where: { eventId: event.id, status: "HELD" } }), REWARD_REASONS.REJECTED_BY_REVIEW);
  if (event.referralId) {
    const referral = await lockReferral(tx, event.referralId);
    const heldOneTime = out.some((r) => r.kind !== "COMMISSION");
    if (referral && (referral.status === "FLAGGED" || (heldOneTime && referral.status === "QUALIFIED"))) {
      // A flagged referral never qualified: what its held events recorded (qualifiedAt) goes with it.
      const qualifiedAt = referral.status === "FLAGGED" ? null : referral.qualifiedAt;
      await tx.referral.update({ where: { id: referral.id }, data: { status: "REJECTED", reason, qualifiedAt } });
      await emitWebhookEvent(tx, referralWebhook("referral.rejected", { ...referral, status: "REJECTED", reason, qualifiedAt })); // webhook
      await settleEventsOfRejected(tx, referral.id, event.id, reason);
    }
  }
  return out;
}

/**
 * The referral was rejected in review: its other FLAGGED events are decided in the same step, as
 * the core decides an event of a rejected referral (REJECTED with the referral's reason, nothing
 * paid), so that no customer is reviewed twice.
 */
async function settleEventsOfRejected(tx: Tx, referralId: string, reviewedEventId: string, reason: string) {
  const events = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT "id" FROM "TrackedEvent" WHERE "referralId" = ${referralId} AND "status" = 'FLAGGED' AND "id" <> ${reviewedEventId}
     ORDER BY "createdAt", "id" FOR UPDATE`;
  if (!events.length) return;
  const ids = events.map((e) => e.id);
  await refuseHeld(tx, await tx.reward.findMany({ where: { eventId: { in: ids }, status: "HELD" }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }), REWARD_REASONS.REFERRAL_REJECTED);
  await tx.trackedEvent.updateMany({ where: { id: { in: ids } }, data: { status: "REJECTED", reason, processedAt: new Date() } });
  for (const id of ids) await emitWebhookEvent(tx, await reviewedEventWebhook(tx, id)); // webhook
}
