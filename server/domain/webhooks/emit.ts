// The webhook outbox's write side. emitWebhookEvent runs inside the transaction of the change it
// reports: for each enabled endpoint of the business and environment that subscribes to the
// type, one WebhookMessage (its id is the webhook-id header) and one WEBHOOK_DELIVER job. Both
// commit or roll back with the change, so a crash can neither lose an event nor invent one.
// The job is picked up by the embedded runner's poll or the Inngest re-dispatch loop (callers
// deep in the engine need not dispatch).
//
// Call sites are one line each, `await emitWebhookEvent(tx, <builder>(…))`, in the referral,
// reward, event-review, funding and ledger code.
import type { Tx } from "../../db/client";
import type { Prisma, Referral, Reward, TrackedEvent } from "../../db/generated";
import { newId } from "../../shared/ids";
import { weiToEth } from "../../shared/money";
import type { Environment } from "../../shared/environment";
import { insertJob, type QueuedJob } from "../jobs/queue";
import type { WebhookEventType } from "./schemas";

export interface WebhookEvent {
  businessId: string;
  environment: Environment;
  type: WebhookEventType;
  data: Prisma.InputJsonObject;
}

/** Writes the outbox rows for every matching enabled endpoint (one event or several); returns the queued jobs. */
export async function emitWebhookEvent(tx: Tx, events: WebhookEvent | WebhookEvent[]): Promise<QueuedJob[]> {
  const list = Array.isArray(events) ? events : [events];
  const jobs: QueuedJob[] = [];
  if (list.length === 0) return jobs;
  const { businessId, environment } = list[0];
  // One indexed query per call; nothing more when the business has no endpoint.
  const endpoints = await tx.webhookEndpoint.findMany({ where: { businessId, environment, enabled: true }, select: { id: true, events: true } });
  for (const e of list) {
    for (const ep of endpoints) {
      if (e.businessId !== businessId || e.environment !== environment) throw new Error("emitWebhookEvent: one business and environment per call");
      if (ep.events.length > 0 && !ep.events.includes(e.type)) continue;
      jobs.push((await queueWebhookMessage(tx, { ...e, endpointId: ep.id })).job);
    }
  }
  return jobs;
}

/** One message to one endpoint (also used by the test button), with its delivery job. */
export async function queueWebhookMessage(tx: Tx, m: WebhookEvent & { endpointId: string; force?: boolean }) {
  const id = `msg_${newId()}`;
  const body = JSON.stringify({ type: m.type, timestamp: new Date().toISOString(), data: m.data });
  await tx.webhookMessage.create({ data: { id, endpointId: m.endpointId, businessId: m.businessId, environment: m.environment, eventType: m.type, body } });
  const job = await insertJob(tx, { businessId: m.businessId, environment: m.environment, apiKeyId: null }, "WEBHOOK_DELIVER", { messageId: id, manual: false, force: m.force === true });
  return { messageId: id, job };
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

// ── Payload builders: the `data` of each event type (docs/webhooks.md) ──

export function referralWebhook(type: "referral.created" | "referral.qualified" | "referral.flagged" | "referral.rejected", r: Omit<Referral, "provisional">): WebhookEvent {
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
export function newReferralWebhooks(r: Omit<Referral, "provisional">): WebhookEvent[] {
  const out = [referralWebhook("referral.created", r)];
  if (r.status === "FLAGGED") out.push(referralWebhook("referral.flagged", r));
  if (r.status === "REJECTED") out.push(referralWebhook("referral.rejected", r));
  return out;
}

/** A reward as stored, or as the rules core decided it (amounts as bigint wei). */
export type RewardLike = Pick<Reward, "id" | "businessId" | "environment" | "participantId" | "referralId" | "eventId" | "kind" | "status" | "reason" | "createdAt" | "paidAt"> & {
  amountWei: Parameters<typeof weiToEth>[0];
  requestedWei: Parameters<typeof weiToEth>[0];
};

export function rewardWebhook(type: "reward.created" | "reward.reversed", r: RewardLike): WebhookEvent {
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
      amountEth: weiToEth(r.amountWei),
      requestedEth: weiToEth(r.requestedWei),
      reason: r.reason,
      createdAt: r.createdAt.toISOString(),
      paidAt: iso(r.paidAt),
    },
  };
}

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

/** event.reviewed: the event as decided, with its rewards (released, or refused). */
export async function reviewedEventWebhook(tx: Tx, eventId: string): Promise<WebhookEvent> {
  const e = await tx.trackedEvent.findUniqueOrThrow({ where: { id: eventId }, include: { rewards: { orderBy: [{ kind: "asc" }, { createdAt: "asc" }] } } });
  const base = trackedEventWebhook("event.reviewed", e);
  return { ...base, data: { ...base.data, rewards: e.rewards.map((r) => rewardWebhook("reward.created", r).data) } };
}

export function fundingWebhook(f: { businessId: string; environment: Environment; txHash: string; amountWei: bigint; balanceWei: bigint; ledgerEntryId: string }): WebhookEvent {
  return {
    businessId: f.businessId,
    environment: f.environment,
    type: "funding.credited",
    data: { txHash: f.txHash, amountEth: weiToEth(f.amountWei), balanceEth: weiToEth(f.balanceWei), ledgerEntryId: f.ledgerEntryId },
  };
}

export function poolLowWebhook(p: { businessId: string; environment: Environment; balanceWei: bigint; thresholdWei: bigint }): WebhookEvent {
  return {
    businessId: p.businessId,
    environment: p.environment,
    type: "pool.low",
    data: { environment: p.environment, balanceEth: weiToEth(p.balanceWei), thresholdEth: weiToEth(p.thresholdWei) },
  };
}
