// The webhook outbox's write side. emitWebhookEvent runs inside the transaction of the change it
// reports: for each enabled endpoint of the business and environment that subscribes to the
// type, one WebhookMessage (its id is the webhook-id header) and one WEBHOOK_DELIVER job. Both
// commit or roll back with the change, so a crash can neither lose an event nor invent one.
// The job is picked up by the embedded runner's poll or the Inngest re-dispatch loop (callers
// deep in the engine need not dispatch). Every message is written by writeWebhookMessages, a
// fixed number of statements for any number of events and endpoints.
//
// Call sites are one line each, `await emitWebhookEvent(tx, <builder>(…))`, in the referral,
// reward, event-review, funding and ledger code.
import { txSql, type Tx } from "../../db/client";
import type { Prisma, Referral, Reward, RewardReversal, TrackedEvent } from "../../db/generated";
import { env } from "../../shared/env";
import { newId } from "../../shared/ids";
import { weiToEth } from "../../shared/money";
import type { Environment } from "../../shared/environment";
import type { QueuedJob } from "../jobs/queue";
import type { WebhookEventType } from "./schemas";
import { commissionBasisOf, type CommissionBasisLike } from "../../shared/reward-basis";

export interface WebhookEvent {
  businessId: string;
  environment: Environment;
  type: WebhookEventType;
  data: Prisma.InputJsonObject;
}

/**
 * Writes the outbox rows for every matching enabled endpoint (one event or several, of one
 * business and environment); returns the queued jobs. Two statements whatever the number of
 * events and endpoints: the endpoints, then every message with its job (writeWebhookMessages).
 */
export async function emitWebhookEvent(tx: Tx, events: WebhookEvent | WebhookEvent[]): Promise<QueuedJob[]> {
  const list = Array.isArray(events) ? events : [events];
  if (list.length === 0) return [];
  const { businessId, environment } = list[0];
  if (list.some((e) => e.businessId !== businessId || e.environment !== environment)) throw new Error("emitWebhookEvent: one business and environment per call");
  // One indexed query per call; nothing more when the business has no endpoint.
  const endpoints = await tx.webhookEndpoint.findMany({ where: { businessId, environment, enabled: true }, select: { id: true, events: true } });
  return (await writeWebhookMessages(tx, webhookMessagesFor(endpoints, list))).map((m) => m.job);
}

interface SubscribedEndpoint {
  id: string;
  /** The event types it takes; empty: every type. */
  events: string[];
}

/**
 * The messages the events make: one per event and enabled endpoint that subscribes to its type (pure; for a core that loaded the endpoints itself).
 * @public
 */
export function webhookMessagesFor(endpoints: SubscribedEndpoint[], events: WebhookEvent[]): WebhookMessageInput[] {
  const messages: WebhookMessageInput[] = [];
  for (const e of events) {
    for (const ep of endpoints) if (ep.events.length === 0 || ep.events.includes(e.type)) messages.push({ ...e, endpointId: ep.id });
  }
  return messages;
}

/** One message to one endpoint (also used by the test button), with its delivery job. */
export async function queueWebhookMessage(tx: Tx, m: WebhookMessageInput) {
  const [written] = await writeWebhookMessages(tx, [m]);
  return written;
}

export type WebhookMessageInput = WebhookEvent & { endpointId: string; force?: boolean };

// Messages and their WEBHOOK_DELIVER jobs, one row of each per element of the arrays, in one
// statement (atomic on its own, and in the caller's transaction).
const WRITE_MESSAGES = `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::boolean[])
      AS u(message_id, job_id, endpoint_id, business_id, env, event_type, body, force)
  ),
  m AS (
    INSERT INTO "WebhookMessage" (id, "endpointId", "businessId", environment, "eventType", body, "createdAt", "updatedAt")
    SELECT message_id, endpoint_id, business_id, env::"Environment", event_type, body, $9::timestamp(3), $9::timestamp(3) FROM input
    RETURNING id
  )
  INSERT INTO "Job" (id, "businessId", environment, "apiKeyId", type, status, payload, "maxAttempts", "runAt", "createdAt", "updatedAt")
  SELECT job_id, business_id, env::"Environment", NULL, 'WEBHOOK_DELIVER', 'QUEUED',
         jsonb_build_object('messageId', message_id, 'manual', false, 'force', force), $10, $9::timestamp(3), $9::timestamp(3), $9::timestamp(3)
    FROM input`;

/**
 * The one writer of outbox messages: each message with its delivery job, in one statement of the
 * caller's transaction, for any number of messages (the event path's batches, single changes and
 * the test button alike). Ids come from the one generator, so the answer names them before the write.
 * @public
 */
export async function writeWebhookMessages(tx: Tx, messages: WebhookMessageInput[]): Promise<{ messageId: string; job: QueuedJob }[]> {
  if (messages.length === 0) return [];
  const now = new Date();
  const timestamp = now.toISOString();
  const rows = messages.map((m) => ({ m, messageId: `msg_${newId()}`, jobId: newId() }));
  const col = <T>(f: (r: (typeof rows)[number]) => T) => rows.map(f);
  const sql = await txSql(tx);
  await sql.execute(
    WRITE_MESSAGES,
    col((r) => r.messageId),
    col((r) => r.jobId),
    col((r) => r.m.endpointId),
    col((r) => r.m.businessId),
    col((r) => r.m.environment),
    col((r) => r.m.type),
    col((r) => JSON.stringify({ type: r.m.type, timestamp, data: r.m.data })),
    col((r) => r.m.force === true),
    timestamp,
    env.jobMaxAttempts,
  );
  return rows.map((r) => ({ messageId: r.messageId, job: { id: r.jobId, type: "WEBHOOK_DELIVER" as const } }));
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
  /** Known once stored (the payout-state trigger sets it); absent on a reward the core just decided. */
  payoutStatus?: Reward["payoutStatus"];
  reversedAt?: Date | null;
  reversalReason?: string | null;
  /** What its reversals took back so far (stored rewards); none on a reward the core just decided. */
  reversedWei?: Parameters<typeof weiToEth>[0];
} & CommissionBasisLike;

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
      payoutStatus: r.payoutStatus ?? null,
      reversedAt: iso(r.reversedAt ?? null),
      reversalReason: r.reversalReason ?? null,
      reversedEth: weiToEth(r.reversedWei ?? 0n),
      ...commissionBasisOf(r),
    },
  };
}

/** reward.reversed for an earned reward taken back (API, reversal event or staff), with its reversal. */
export function reversedRewardWebhook(r: Reward, v: RewardReversal): WebhookEvent {
  const base = rewardWebhook("reward.reversed", r);
  return {
    ...base,
    data: {
      ...base.data,
      reversal: reversalView(v),
    },
  };
}

/** A reversal as the API and the webhook show it (the reversals list adds the reward and the participant). */
export function reversalView(v: Pick<RewardReversal, "id" | "amountWei" | "outcome" | "reason" | "eventName" | "eventId" | "reversedByUserId" | "createdAt">) {
  return {
    reversalId: v.id,
    amountEth: weiToEth(v.amountWei),
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
