import { z } from "zod";
import { assetTag } from "../../shared/asset";
import { isoInstant } from "../../shared/dates";
import { listCursor, listLimit, pageOutput } from "../../shared/list-page";
import { environment } from "../../shared/environment";
import { participantRef } from "../participants/schemas";
import { rewardStatus } from "../../shared/reward-enums";
import { rewardSummaryOutput } from "../rewards/schemas";
import { checkEventMoney, trackFields } from "../tracking/schemas";

const eventStatus = z.enum(["QUEUED", "PROCESSED", "FLAGGED", "REJECTED", "FAILED"]);



export const eventOutput = z.object({
  eventId: z.string(),
  environment,
  eventName: z.string(),
  referrer: z.string().nullable(),
  referralId: z.string().nullable(),
  /** The referrer and the referred user of the event's referral, however it was attributed (code, handle or referredUserId). */
  referrerParticipant: participantRef.nullable(),
  referredParticipant: participantRef.nullable(),
  metadata: z.record(z.string(), z.unknown()),
  /** What the referred customer paid (exact decimal string) and its currency; null when the event carried none. */
  amount: z.string().nullable(),
  currency: z.string().nullable(),
  /** How much of `amount` refunds reversed so far (POST /sdk/rewards/reverse with this eventId), in its currency; "0" without a refund. */
  refundedAmount: z.string(),
  campaign: z.string().nullable(),
  source: z.string().nullable(),
  apiKeyId: z.string().nullable(),
  idempotencyKey: z.string().nullable(),
  status: eventStatus,
  reason: z.string().nullable(),
  createdAt: z.string(),
  processedAt: z.string().nullable(),
  rewards: z.array(rewardSummaryOutput),
});
export type EventOutput = z.infer<typeof eventOutput>;

export const listEventsInput = z.strictObject({
  environment: environment.default("LIVE"),
  status: eventStatus.optional(),
  eventName: z.string().trim().min(1).max(100).optional(),
  campaign: z.string().trim().min(1).max(100).optional(),
  referralId: z.string().min(1).max(64).optional(),
  /** Inclusive lower bound on createdAt. */
  from: isoInstant.optional(),
  /** Exclusive upper bound on createdAt (a bare date means the start of that day). */
  to: isoInstant.optional(),
  limit: listLimit,
  cursor: listCursor,
});
export const listEventsOutput = pageOutput(eventOutput);

export const eventIdInput = z.strictObject({ eventId: z.string().min(1).max(64) });

export const changeEventStatusInput = z.strictObject({
  eventId: z.string().min(1).max(64),
  status: eventStatus,
  reason: z.string().trim().min(1).max(500).optional(),
});

/** POST /business/events: the /track body plus the environment it belongs to. */
export const createEventInput = trackFields.extend({ environment: environment.default("LIVE") }).superRefine(checkEventMoney);

/** GET /business/events/:eventId/preview?status=PROCESSED|REJECTED: what the decision would do now, written nowhere. */
export const previewEventDecisionInput = z.strictObject({
  eventId: z.string().min(1).max(64),
  status: z.enum(["PROCESSED", "REJECTED"]).default("PROCESSED"),
});

export const rewardOutcomeOutput = z.object({
  /** The asset the amounts are in (the environment's). */
  asset: assetTag,
  rewardId: z.string(),
  kind: z.enum(["REFERRAL", "BONUS", "MANUAL", "COMMISSION"]),
  recipient: participantRef,
  requestedEth: z.string(),
  /** What is (or would be) paid after caps and pool; "0" unless PAID. */
  amountEth: z.string(),
  status: rewardStatus,
  /** Why capped or refused, comma-separated (DAILY_CAP, PER_EVENT_CAP, INSUFFICIENT_POOL, …). */
  reason: z.string().nullable(),
});
export type RewardOutcome = z.infer<typeof rewardOutcomeOutput>;

export const eventDecisionPreviewOutput = z.object({
  eventId: z.string(),
  status: z.enum(["PROCESSED", "REJECTED"]),
  /** The event's held rewards as the engine decides them at this moment (caps, pool), one by one. */
  rewards: z.array(rewardOutcomeOutput),
});
export type EventDecisionPreview = z.infer<typeof eventDecisionPreviewOutput>;
