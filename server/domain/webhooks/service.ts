// Webhook endpoints of a business: create (the secret is returned once), list, update, delete,
// rotate the signing secret (the old one keeps signing during the overlap), send a test event
// (WEBHOOK_TEST_PER_MINUTE per endpoint), read the delivery log and retry a delivery. Every
// lookup is scoped to the caller's business: another business's webhook or delivery id is a 404.
import { lockBusiness } from "../../db/business-lock";
import { db } from "../../db/client";
import type { WebhookEndpoint } from "../../db/generated";
import { actionLimit } from "../../shared/action-limit";
import { env } from "../../shared/env";
import { AppError, notFound } from "../../shared/errors";
import { checkCursor, toPage } from "../../shared/list-page";
import type { Environment } from "../../shared/environment";
import { dispatchJobs, insertJob } from "../jobs/queue";
import { checkDestinationUrl } from "./destination";
import { queueWebhookMessage } from "./emit";
import { encryptSecret, generateWebhookSecret, secretPrefixOf } from "./secrets";
import type { CreateWebhookInput, UpdateWebhookInput, WebhookOutput } from "./schemas";

const MAX_ENDPOINTS_PER_BUSINESS = 50;
const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toWebhookOutput(w: WebhookEndpoint, now = new Date()): WebhookOutput {
  return {
    webhookId: w.id,
    environment: w.environment,
    url: w.url,
    description: w.description,
    events: w.events,
    enabled: w.enabled,
    secretPrefix: w.secretPrefix,
    previousSecretExpiresAt: w.previousSecretExpiresAt && w.previousSecretExpiresAt > now ? w.previousSecretExpiresAt.toISOString() : null,
    failingSince: iso(w.failingSince),
    lastSuccessAt: iso(w.lastSuccessAt),
    disabledAt: iso(w.disabledAt),
    disabledReason: w.disabledReason,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}

export async function createWebhook(businessId: string, input: CreateWebhookInput) {
  const url = checkDestinationUrl(input.environment, input.url);
  const secret = generateWebhookSecret();
  const row = await db.$transaction(async (tx) => {
    // The business row is locked while counting, so that concurrent creates cannot pass the cap together.
    await lockBusiness(tx, businessId);
    const count = await tx.webhookEndpoint.count({ where: { businessId } });
    if (count >= MAX_ENDPOINTS_PER_BUSINESS) {
      throw new AppError("UNPROCESSABLE", `A business can have at most ${MAX_ENDPOINTS_PER_BUSINESS} webhook endpoints`);
    }
    return tx.webhookEndpoint.create({
      data: {
        businessId,
        environment: input.environment,
        url,
        description: input.description || null,
        events: [...new Set(input.events ?? [])],
        secretCiphertext: encryptSecret(secret),
        secretPrefix: secretPrefixOf(secret),
      },
    });
  });
  return { ...toWebhookOutput(row), secret };
}

export async function listWebhooks(businessId: string, environment?: Environment): Promise<WebhookOutput[]> {
  const rows = await db.webhookEndpoint.findMany({ where: { businessId, environment }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: MAX_ENDPOINTS_PER_BUSINESS });
  return rows.map((r) => toWebhookOutput(r));
}

/** The endpoint of this business, or 404 (never another business's). */
export async function getOwnedWebhook(businessId: string, webhookId: string) {
  const row = await db.webhookEndpoint.findFirst({ where: { id: webhookId, businessId } });
  if (!row) throw notFound("Webhook");
  return row;
}

export async function updateWebhook(businessId: string, input: UpdateWebhookInput): Promise<WebhookOutput> {
  const w = await getOwnedWebhook(businessId, input.webhookId);
  const url = input.url === undefined ? undefined : checkDestinationUrl(w.environment, input.url);
  const now = new Date();
  const enabling = input.enabled === true && !w.enabled;
  const disabling = input.enabled === false && w.enabled;
  const row = await db.webhookEndpoint.update({
    where: { id: w.id },
    data: {
      url,
      events: input.events === undefined ? undefined : [...new Set(input.events)],
      description: input.description === undefined ? undefined : input.description || null,
      enabled: input.enabled,
      // Re-enabling starts a fresh failure streak; disabling by hand has no service reason.
      ...(enabling ? { disabledAt: null, disabledReason: null, failingSince: null } : {}),
      ...(disabling ? { disabledAt: now, disabledReason: null } : {}),
    },
  });
  return toWebhookOutput(row, now);
}

export async function deleteWebhook(businessId: string, webhookId: string): Promise<WebhookOutput> {
  const w = await getOwnedWebhook(businessId, webhookId);
  // Messages and attempts go with it (ON DELETE CASCADE); a pending delivery job then finds no message.
  await db.webhookEndpoint.delete({ where: { id: w.id } });
  return toWebhookOutput(w);
}

/** New secret; the current one keeps signing beside it for overlapSeconds (0 = stops at once). */
export async function rotateWebhookSecret(businessId: string, webhookId: string, overlapSeconds: number) {
  const w = await getOwnedWebhook(businessId, webhookId);
  const secret = generateWebhookSecret();
  const now = new Date();
  const row = await db.webhookEndpoint.update({
    where: { id: w.id },
    data: {
      secretCiphertext: encryptSecret(secret),
      secretPrefix: secretPrefixOf(secret),
      previousSecretCiphertext: overlapSeconds > 0 ? w.secretCiphertext : null,
      previousSecretExpiresAt: overlapSeconds > 0 ? new Date(now.getTime() + overlapSeconds * 1000) : null,
    },
  });
  return { ...toWebhookOutput(row, now), secret };
}

/**
 * Queues a `webhook.test` message to this endpoint: first sent even when the endpoint is disabled
 * or filters events out, then retried on the normal schedule like any message.
 */
const takeTestSend = actionLimit("webhook-test", () => env.webhookTestPerMinute, 60);

export async function sendTestWebhook(businessId: string, webhookId: string) {
  const w = await getOwnedWebhook(businessId, webhookId);
  await takeTestSend(w.id, "test sends to this endpoint");
  const queued = await db.$transaction((tx) =>
    queueWebhookMessage(tx, {
      businessId,
      environment: w.environment,
      endpointId: w.id,
      type: "webhook.test",
      force: true,
      data: { webhookId: w.id, message: "A test event sent from the dashboard or POST /business/webhooks/:webhookId/test" },
    }),
  );
  dispatchJobs([queued.job]);
  return { webhookId: w.id, messageId: queued.messageId, event: "webhook.test", jobId: queued.job.id, status: "QUEUED" as const };
}

export async function listDeliveries(businessId: string, q: { webhookId: string; limit: number; cursor?: string }) {
  const w = await getOwnedWebhook(businessId, q.webhookId);
  await checkCursor(q.cursor, (id) => db.webhookDelivery.findFirst({ where: { id, endpointId: w.id }, select: { id: true } }));
  const rows = await db.webhookDelivery.findMany({
    where: { endpointId: w.id },
    include: { message: { select: { eventType: true, status: true } } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: q.limit + 1,
    ...(q.cursor ? { cursor: { id: q.cursor }, skip: 1 } : {}),
  });
  return toPage(rows, q.limit, (d) => ({
    deliveryId: d.id,
    webhookId: d.endpointId,
    messageId: d.messageId,
    event: d.message.eventType,
    attempt: d.attempt,
    success: d.success,
    statusCode: d.statusCode,
    durationMs: d.durationMs,
    error: d.error,
    responseBody: d.responseBody,
    nextRetryAt: iso(d.nextRetryAt),
    manual: d.manual,
    messageStatus: d.message.status,
    createdAt: d.createdAt.toISOString(),
  }));
}

/** Manual retries of one endpoint's deliveries: bounded as its test sends are (any member may send them). */
const takeRetrySend = actionLimit("webhook-retry", () => env.webhookTestPerMinute, 60);

/**
 * Sends the delivery's message again now, with the same webhook-id (a manual attempt): outside the
 * message's schedule, which it leaves as it was unless it succeeds (recordWebhookAttempts).
 */
export async function retryDelivery(businessId: string, webhookId: string, deliveryId: string) {
  const w = await getOwnedWebhook(businessId, webhookId);
  await takeRetrySend(w.id, "manual retries to this endpoint");
  const d = await db.webhookDelivery.findFirst({ where: { id: deliveryId, endpointId: w.id }, include: { message: { select: { eventType: true } } } });
  if (!d) throw notFound("Delivery");
  const job = await db.$transaction(async (tx) => {
    return insertJob(tx, { businessId, environment: w.environment, apiKeyId: null }, "WEBHOOK_DELIVER", { messageId: d.messageId, manual: true, force: true });
  });
  dispatchJobs([job]);
  return { webhookId: w.id, messageId: d.messageId, event: d.message.eventType, jobId: job.id, status: "QUEUED" as const };
}
