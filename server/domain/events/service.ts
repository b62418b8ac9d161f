// Business events as the dashboard sees them: the list (filters + cursor), the manual create
// (the very /track pipeline, without an API key) and the review transitions of FLAGGED events:
//   FLAGGED → PROCESSED  (approve: the held rewards are paid, once)
//   FLAGGED → REJECTED   (reject: the held rewards are refused)
// Any other transition is 422 INVALID_TRANSITION.
import { db, type Prisma, type Tx } from "../../db/client";
import { transactionRetried } from "../../db/retry";
import { AppError, notFound } from "../../shared/errors";
import { checkCursor, pageArgs, toPage } from "../../shared/list-page";
import type { Environment } from "../../shared/environment";
import { releaseEventRewards, rejectEventRewards, toRewardSummary } from "../rewards/engine";
import { acceptEvent } from "../tracking/service";
import type { TrackInput } from "../tracking/schemas";
import { toParticipantRef } from "../participants/schemas";
import type { Reward } from "../../db/generated";
import { decimalText } from "../../shared/money";
import { amountOf, assetTagOf, type Asset } from "../../shared/asset";
import { readAsset, readAssets } from "../assets/read";
import type { EventDecisionPreview, EventOutput, RewardOutcome } from "./schemas";
import { emitWebhookEvent, reviewedEventWebhook } from "../webhooks/emit";

const withRewards = {
  rewards: { orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: 20 },
  referral: { include: { referrer: true, referred: true } },
} satisfies Prisma.TrackedEventInclude;
type Row = Prisma.TrackedEventGetPayload<{ include: typeof withRewards }>;

const toOutput = (e: Row, asset: Asset): EventOutput => ({
  eventId: e.id,
  environment: e.environment,
  eventName: e.eventName,
  referrer: e.referrer,
  referralId: e.referralId,
  referrerParticipant: e.referral ? toParticipantRef(e.referral.referrer) : null,
  referredParticipant: e.referral ? toParticipantRef(e.referral.referred) : null,
  metadata: e.metadata && typeof e.metadata === "object" && !Array.isArray(e.metadata) ? e.metadata : {},
  amount: e.amount === null ? null : decimalText(e.amount),
  currency: e.currency,
  refundedAmount: decimalText(e.refundedAmount),
  campaign: e.campaign,
  source: e.source,
  apiKeyId: e.apiKeyId,
  idempotencyKey: e.idempotencyKey,
  status: e.status,
  reason: e.reason,
  createdAt: e.createdAt.toISOString(),
  processedAt: e.processedAt ? e.processedAt.toISOString() : null,
  rewards: e.rewards.map((r) => toRewardSummary(r, asset)),
});

/** The filters of the events list and its CSV export. */
export interface EventFilters {
  environment: Environment;
  status?: EventOutput["status"];
  eventName?: string;
  campaign?: string;
  referralId?: string;
  from?: Date;
  to?: Date;
}

export const eventWhere = (businessId: string, q: EventFilters): Prisma.TrackedEventWhereInput => ({
  businessId,
  environment: q.environment,
  status: q.status,
  eventName: q.eventName,
  campaign: q.campaign,
  referralId: q.referralId,
  createdAt: q.from || q.to ? { gte: q.from, lt: q.to } : undefined,
});

export async function listEvents(businessId: string, q: EventFilters & { limit: number; cursor?: string }) {
  await checkCursor(q.cursor, (id) => db.trackedEvent.findFirst({ where: { id, businessId, environment: q.environment }, select: { id: true } }));
  const rows = await db.trackedEvent.findMany({
    where: eventWhere(businessId, q),
    include: withRewards,
    ...pageArgs(q.limit, q.cursor),
  });
  const asset = await readAsset(db, businessId, q.environment);
  return toPage(rows, q.limit, (e) => toOutput(e, asset));
}

export async function getEvent(businessId: string, eventId: string): Promise<EventOutput> {
  const e = await db.trackedEvent.findFirst({ where: { id: eventId, businessId }, include: withRewards });
  if (!e) throw notFound("Event");
  return toOutput(e, await readAsset(db, businessId, e.environment));
}

/** Manual create: the same pipeline as POST /track (same validation, idempotency, AUTO/SYNC/ASYNC rule). */
export async function createEvent(businessId: string, input: TrackInput & { environment: Environment }) {
  const { environment, ...track } = input;
  const res = await acceptEvent({ businessId, environment, apiKeyId: null }, track);
  return res.body;
}

const ALLOWED: Record<string, readonly string[]> = { FLAGGED: ["PROCESSED", "REJECTED"] };

type Decision = { eventId: string; status: EventOutput["status"]; reason?: string };

/**
 * The review transition itself, inside the caller's transaction: locks the event, checks the
 * transition and lets the engine pay (approve) or refuse (reject) the held rewards. Returns the
 * rewards as they now stand. Used by the real decision and by its rolled-back preview.
 */
async function decideEvent(tx: Tx, businessId: string, input: Decision): Promise<Reward[]> {
  const head = await tx.trackedEvent.findFirst({ where: { id: input.eventId, businessId }, select: { referralId: true } });
  if (!head) throw notFound("Event");
  // The referral first, then its events: a rejection settles the referral's other held events
  // (rewards/engine.ts), so two reviews of one customer's events take their locks in one order.
  if (head.referralId) await tx.$queryRaw`SELECT "id" FROM "Referral" WHERE "id" = ${head.referralId} FOR UPDATE`;
  // The row lock makes approval exactly-once: a concurrent second approval waits here and
  // then finds the event no longer FLAGGED.
  const locked = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT "id" FROM "TrackedEvent" WHERE "id" = ${input.eventId} AND "businessId" = ${businessId} FOR UPDATE`;
  if (!locked.length) throw notFound("Event");
  const event = await tx.trackedEvent.findUniqueOrThrow({ where: { id: input.eventId } });
  if (!ALLOWED[event.status]?.includes(input.status)) {
    throw new AppError("INVALID_TRANSITION", `An event cannot go from ${event.status} to ${input.status}; only FLAGGED events can be approved (PROCESSED) or rejected (REJECTED)`, {
      from: event.status,
      to: input.status,
    });
  }
  let out: Reward[];
  if (input.status === "PROCESSED") {
    out = await releaseEventRewards(tx, event);
    await tx.trackedEvent.update({ where: { id: event.id }, data: { status: "PROCESSED", reason: input.reason ?? "APPROVED_BY_REVIEW", processedAt: new Date() } });
  } else {
    const reason = input.reason ?? "REJECTED_BY_REVIEW";
    out = await rejectEventRewards(tx, event, reason);
    await tx.trackedEvent.update({ where: { id: event.id }, data: { status: "REJECTED", reason, processedAt: new Date() } });
  }
  await emitWebhookEvent(tx, await reviewedEventWebhook(tx, event.id)); // webhook (rolled back with a preview)
  return out;
}

async function toOutcomes(tx: Tx, businessId: string, rewards: Reward[]): Promise<RewardOutcome[]> {
  const [people, assets] = await Promise.all([tx.participant.findMany({ where: { id: { in: [...new Set(rewards.map((r) => r.participantId))] } } }), readAssets(tx, businessId)]);
  const byId = new Map(people.map((p) => [p.id, toParticipantRef(p)]));
  return rewards.map((r) => ({
    asset: assetTagOf(assets[r.environment]),
    rewardId: r.id,
    kind: r.kind,
    recipient: byId.get(r.participantId)!,
    requestedEth: amountOf(r.requestedWei, assets[r.environment]),
    amountEth: amountOf(r.amountWei, assets[r.environment]),
    status: r.status,
    reason: r.reason,
  }));
}

export async function changeEventStatus(businessId: string, input: Decision): Promise<EventOutput & { outcome: RewardOutcome[] }> {
  // Approving locks the referral, then the pool: a deadlock victim against the worker runs again.
  const outcome = await transactionRetried(async (tx) => toOutcomes(tx, businessId, await decideEvent(tx, businessId, input)), { timeout: 30_000, maxWait: 30_000 });
  return { ...(await getEvent(businessId, input.eventId)), outcome };
}

/** Thrown to roll the preview's transaction back, carrying what it computed. */
class RolledBack extends Error {
  constructor(readonly preview: RewardOutcome[]) {
    super("preview rolled back");
  }
}

/**
 * What approving (or rejecting) would do right now, reward by reward: the very decision of
 * changeEventStatus (the engine's caps, daily totals and pool balance under the same locks), run
 * in a transaction that is then rolled back, so nothing is written and no copy of the rules exists.
 */
export async function previewEventDecision(businessId: string, input: { eventId: string; status: "PROCESSED" | "REJECTED" }): Promise<EventDecisionPreview> {
  try {
    await db.$transaction(
      async (tx) => {
        throw new RolledBack(await toOutcomes(tx, businessId, await decideEvent(tx, businessId, input)));
      },
      { timeout: 30_000, maxWait: 30_000 },
    );
  } catch (e) {
    if (e instanceof RolledBack) return { eventId: input.eventId, status: input.status, rewards: e.preview };
    throw e;
  }
  throw new Error("previewEventDecision: the transaction was not rolled back");
}
