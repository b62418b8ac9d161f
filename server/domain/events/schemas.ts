import { z } from "zod";
import { listCursor, listLimit, pageOutput } from "../../shared/list-page";
import { environment } from "../api-keys/schemas";
import { rewardSummaryOutput } from "../rewards/schemas";
import { trackInput } from "../tracking/schemas";

export const eventStatus = z.enum(["QUEUED", "PROCESSED", "FLAGGED", "REJECTED", "FAILED"]);

/** "2025-01-31" (start of that UTC day) or a full ISO 8601 timestamp. */
export const isoInstant = z
  .string()
  .max(40)
  .refine((s) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(s) && !Number.isNaN(Date.parse(s)), "Must be a date (YYYY-MM-DD) or an ISO 8601 timestamp")
  .transform((s) => new Date(/^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : s));


export const eventOutput = z.object({
  eventId: z.string(),
  environment,
  eventName: z.string(),
  referrer: z.string().nullable(),
  referralId: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
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
export const createEventInput = trackInput.extend({ environment: environment.default("LIVE") });
