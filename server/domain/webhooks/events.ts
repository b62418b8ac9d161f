// The webhook events' payloads, pure: the `data` of each event type (docs/webhooks.md), built
// where the change is decided (the rules core builds its events with no database) and written to
// the outbox by webhooks/emit.ts. A payload with amounts states them in the environment's asset
// (shared/asset.ts amountOf) and says which (`data.asset`), as the API's answers do.
import type { Prisma, Referral, Reward, RewardReversal, TrackedEvent } from "../../db/generated";
import type { Environment } from "../../shared/environment";
import { amountOf, assetTagOf, type Asset } from "../../shared/asset";
import { commissionBasisOf, type CommissionBasisLike } from "../../shared/reward-basis";
import type { WebhookEventType } from "./schemas";

export interface WebhookEvent {
  businessId: string;
  environment: Environment;
  type: WebhookEventType;
  data: Prisma.InputJsonObject;
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

// ── Payload builders: the `data` of each event type (docs/webhooks.md) ──

export function referralWebhook(type: "referral.created" | "referral.qualified" | "referral.flagged" | "referral.rejected" | "referral.confirmed", r: Omit<Referral, "provisional" | "reversedAt">): WebhookEvent {
  return {
    businessId: r.businessId,
    environment: r.environment,
    type,
    data: {
      referralId: r.id,
      status: r.status,
      reason: r.reason,
      referrerId: r.referrerId,
      referredId: r.referredId,
      apiKeyId: r.apiKeyId,
      source: r.source,
      campaign: r.campaign,
      createdAt: r.createdAt.toISOString(),
      qualifiedAt: iso(r.qualifiedAt),
    },
  };
}

/** referral.created, plus referral.flagged / referral.rejected when the screen decided so at once. */
export function newReferralWebhooks(r: Omit<Referral, "provisional" | "reversedAt">): WebhookEvent[] {
  const out = [referralWebhook("referral.created", r)];
  if (r.status === "FLAGGED") out.push(referralWebhook("referral.flagged", r));
  if (r.status === "REJECTED") out.push(referralWebhook("referral.rejected", r));
  return out;
}

/** A reward as stored, or as the rules core decided it (amounts as bigint base units). */
export type RewardLike = Pick<Reward, "id" | "businessId" | "environment" | "participantId" | "referralId" | "eventId" | "kind" | "status" | "reason" | "createdAt" | "paidAt"> & {
  amountWei: Parameters<typeof amountOf>[0];
  requestedWei: Parameters<typeof amountOf>[0];
  /** Known once stored (the payout-state trigger sets it); absent on a reward the core just decided. */
  payoutStatus?: Reward["payoutStatus"];
  reversedAt?: Date | null;
  reversalReason?: string | null;
  /** What its reversals took back so far (stored rewards); none on a reward the core just decided. */
  reversedWei?: Parameters<typeof amountOf>[0];
} & CommissionBasisLike;

export function rewardWebhook(type: "reward.created" | "reward.reversed", r: RewardLike, asset: Asset): WebhookEvent {
  return {
    businessId: r.businessId,
    environment: r.environment,
    type,
    data: {
      rewardId: r.id,
      participantId: r.participantId,
      referralId: r.referralId,
      eventId: r.eventId,
      kind: r.kind,
      status: r.status,
      asset: assetTagOf(asset),
      amountEth: amountOf(r.amountWei, asset),
      requestedEth: amountOf(r.requestedWei, asset),
      reason: r.reason,
      createdAt: r.createdAt.toISOString(),
      paidAt: iso(r.paidAt),
      payoutStatus: r.payoutStatus ?? null,
      reversedAt: iso(r.reversedAt ?? null),
      reversalReason: r.reversalReason ?? null,
      reversedEth: amountOf(r.reversedWei ?? 0n, asset),
      ...commissionBasisOf(r),
    },
  };
}

/** reward.reversed for an earned reward taken back (API, reversal event or staff), with its reversal. */
export function reversedRewardWebhook(r: Reward, v: RewardReversal, asset: Asset): WebhookEvent {
  const base = rewardWebhook("reward.reversed", r, asset);
  return {
    ...base,
    data: {
      ...base.data,
      reversal: reversalView(v, asset),
    },
  };
}

/** A reversal as the API and the webhook show it (the reversals list adds the reward and the participant). */
export function reversalView(v: Pick<RewardReversal, "id" | "amountWei" | "outcome" | "reason" | "eventName" | "eventId" | "reversedByUserId" | "createdAt">, asset: Asset) {
  return {
    reversalId: v.id,
    amountEth: amountOf(v.amountWei, asset),
    outcome: v.outcome,
    reason: v.reason,
    eventName: v.eventName,
    eventId: v.eventId,
    source: reversalSource(v),
    createdAt: v.createdAt.toISOString(),
  };
}

/** Where a reversal came from: a tracked reversal event, staff in the dashboard, or the API. */
const reversalSource = (v: { eventId: string | null; reversedByUserId: string | null }): "EVENT" | "DASHBOARD" | "API" => (v.eventId ? "EVENT" : v.reversedByUserId ? "DASHBOARD" : "API");

export function trackedEventWebhook(type: "event.flagged" | "event.reviewed", e: TrackedEvent): WebhookEvent {
  return {
    businessId: e.businessId,
    environment: e.environment,
    type,
    data: {
      eventId: e.id,
      eventName: e.eventName,
      status: e.status,
      reason: e.reason,
      referralId: e.referralId,
      referrer: e.referrer,
      campaign: e.campaign,
      createdAt: e.createdAt.toISOString(),
      processedAt: iso(e.processedAt),
    },
  };
}

export function fundingWebhook(f: { businessId: string; environment: Environment; txHash: string; amountWei: bigint; balanceWei: bigint; ledgerEntryId: string }, asset: Asset): WebhookEvent {
  return {
    businessId: f.businessId,
    environment: f.environment,
    type: "funding.credited",
    data: { txHash: f.txHash, asset: assetTagOf(asset), amountEth: amountOf(f.amountWei, asset), balanceEth: amountOf(f.balanceWei, asset), ledgerEntryId: f.ledgerEntryId },
  };
}

export function poolLowWebhook(p: { businessId: string; environment: Environment; balanceWei: bigint; thresholdWei: bigint }, asset: Asset): WebhookEvent {
  return {
    businessId: p.businessId,
    environment: p.environment,
    type: "pool.low",
    data: { environment: p.environment, asset: assetTagOf(asset), balanceEth: amountOf(p.balanceWei, asset), thresholdEth: amountOf(p.thresholdWei, asset) },
  };
}
