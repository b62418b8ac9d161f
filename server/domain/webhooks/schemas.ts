// Webhook endpoints, their deliveries and the event catalogue: the zod schemas behind the
// /business/webhooks routes (and so behind the OpenAPI document and the SDK's types).
import { z } from "zod";
import { environment } from "../../shared/environment";
import { listCursor, listLimit, pageOutput } from "../../shared/list-page";
import { strictBoolean, strictNumber } from "../../shared/strict-types";

/** Every event type a webhook can carry (payout.* are sent by the payout engine where it exists). */
export const WEBHOOK_EVENT_TYPES = [
  "referral.created",
  "referral.qualified",
  "referral.flagged",
  "referral.rejected",
  "referral.confirmed",
  "reward.created",
  "reward.reversed",
  "event.flagged",
  "event.reviewed",
  "funding.credited",
  "pool.low",
  "payout.sent",
  "payout.confirmed",
  "payout.failed",
  "participant.erased",
  "webhook.test",
] as const;
const webhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof webhookEventType>;

const url = z.string().trim().min(1).max(2048).url("Must be an absolute http(s) URL");
const description = z.string().trim().max(500);
const events = z.array(webhookEventType).max(WEBHOOK_EVENT_TYPES.length);
export const webhookIdInput = z.strictObject({ webhookId: z.string().min(1).max(64) });

export const createWebhookInput = z.strictObject({
  url,
  environment,
  /** Event types to receive; omitted or empty = every type. */
  events: events.optional(),
  description: description.optional(),
});
export type CreateWebhookInput = z.infer<typeof createWebhookInput>;

export const updateWebhookInput = z.strictObject({
  webhookId: z.string().min(1).max(64),
  url: url.optional(),
  events: events.optional(),
  description: description.nullable().optional(),
  /** false disables the endpoint; true re-enables it (and clears an automatic disable). */
  enabled: strictBoolean.optional(),
});
export type UpdateWebhookInput = z.infer<typeof updateWebhookInput>;

export const rotateWebhookSecretInput = z.strictObject({
  webhookId: z.string().min(1).max(64),
  /** How long the old secret keeps signing beside the new one: 0 … 86,400 s (default 86,400). */
  overlapSeconds: strictNumber(z.number().int().min(0).max(86_400)).default(86_400),
});

export const webhookOutput = z.object({
  webhookId: z.string(),
  environment,
  url: z.string(),
  description: z.string().nullable(),
  /** Empty = every event type. */
  events: z.array(z.string()),
  enabled: z.boolean(),
  /** First characters of the current secret, to tell secrets apart. */
  secretPrefix: z.string(),
  /** Until then the previous secret also signs (after a rotation with overlap). */
  previousSecretExpiresAt: z.string().nullable(),
  failingSince: z.string().nullable(),
  lastSuccessAt: z.string().nullable(),
  disabledAt: z.string().nullable(),
  /** Why the service disabled the endpoint (e.g. failing for days); null when a person did or it is enabled. */
  disabledReason: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type WebhookOutput = z.infer<typeof webhookOutput>;

export const webhookWithSecretOutput = webhookOutput.extend({
  /** `whsec_` + base64 of 32 random bytes. Shown this once (create, rotate-secret). */
  secret: z.string(),
});

export const webhookListOutput = z.object({
  data: z.array(webhookOutput),
  nextCursor: z.null(),
  /** Every event type an endpoint can subscribe to. */
  eventTypes: z.array(webhookEventType),
});

export const listDeliveriesInput = z.strictObject({
  webhookId: z.string().min(1).max(64),
  limit: listLimit,
  cursor: listCursor,
});

const deliveryOutput = z.object({
  deliveryId: z.string(),
  webhookId: z.string(),
  /** The webhook-id header: the same on every attempt of one message. */
  messageId: z.string(),
  event: z.string(),
  attempt: z.number().int(),
  success: z.boolean(),
  statusCode: z.number().int().nullable(),
  durationMs: z.number().int(),
  error: z.string().nullable(),
  /** The first 1 KB of the response body. */
  responseBody: z.string().nullable(),
  /** When the schedule tries this message again; null when delivered, given up or manual. */
  nextRetryAt: z.string().nullable(),
  manual: z.boolean(),
  /** The message's state: PENDING (more attempts to come), DELIVERED, FAILED (gave up). */
  messageStatus: z.enum(["PENDING", "DELIVERED", "FAILED"]),
  createdAt: z.string(),
});
export const deliveryListOutput = pageOutput(deliveryOutput);

export const retryDeliveryInput = z.strictObject({ webhookId: z.string().min(1).max(64), deliveryId: z.string().min(1).max(64) });

/** A message queued for delivery (test, retry): delivered by a WEBHOOK_DELIVER job. */
export const queuedMessageOutput = z.object({
  webhookId: z.string(),
  messageId: z.string(),
  event: z.string(),
  jobId: z.string(),
  status: z.literal("QUEUED"),
});
