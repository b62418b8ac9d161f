// Delivering one outbox message (the WEBHOOK_DELIVER job). Two halves, because an HTTP call must
// not hold a database transaction open for up to 10 s:
//   sendWebhookMessage  — outside any transaction: reads the message, signs it (Standard Webhooks,
//                         every active secret) and POSTs it once;
//   recordWebhookAttempt — in the job's transaction: records the attempt, marks the message
//                         DELIVERED, schedules the next attempt as a new job (exponential backoff
//                         with jitter, about 3 days in all) or gives up; disables an endpoint that
//                         has failed for days and raises a WEBHOOK_DISABLED alert once.
// Every attempt of a message carries the same webhook-id (the message id), so receivers can
// de-duplicate; delivery is at least once (a crash after the POST and before the record repeats it).
import { db, type Tx } from "../../db/client";
import type { Prisma } from "../../db/generated";
import { insertJob } from "../jobs/queue";
import { postWebhook, type PostOutcome } from "./destination";
import { decryptSecret, signatureHeader } from "./secrets";

/** Attempts per message: the first plus 12 retries. */
export const MAX_WEBHOOK_ATTEMPTS = 13;
/** An endpoint with no success for this long is disabled. */
export const DISABLE_AFTER_MS = 3 * 86_400_000;

/**
 * Delay after the n-th failed attempt: 5 s × 3^(n−1), capped at 20 h, ±20 % jitter:
 * 5 s, 15 s, 45 s, 2¼ min, 7 min, 20 min, 1 h, 3 h, 9 h, 20 h, 20 h, 20 h (≈ 3 days in all).
 */
export function webhookRetryDelayMs(attempt: number, random = Math.random()): number {
  const base = Math.min(20 * 3_600_000, 5_000 * 3 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random));
}

export interface DeliveryPayload {
  messageId: string;
  /** A person's retry of one delivery: sent once, outside the schedule. */
  manual: boolean;
  /** Send even to a disabled endpoint (the test button's first attempt). */
  force: boolean;
}

export function deliveryPayloadOf(payload: unknown): DeliveryPayload {
  const p = (payload ?? {}) as { messageId?: unknown; manual?: unknown; force?: unknown };
  if (typeof p.messageId !== "string") throw new Error("WEBHOOK_DELIVER job payload has no messageId");
  return { messageId: p.messageId, manual: p.manual === true, force: p.force === true };
}

export type SendResult =
  | { sent: true; webhookTimestamp: number; outcome: PostOutcome }
  | { sent: false; skipped: "MESSAGE_GONE" | "ALREADY_DELIVERED" | "ENDPOINT_DISABLED" };

/** Signs and POSTs the message once. Reads only; never throws for an endpoint's failure. */
export async function sendWebhookMessage(p: DeliveryPayload, now = new Date()): Promise<SendResult> {
  const m = await db.webhookMessage.findUnique({ where: { id: p.messageId }, include: { endpoint: true } });
  if (!m) return { sent: false, skipped: "MESSAGE_GONE" };
  if (!p.manual && m.status === "DELIVERED") return { sent: false, skipped: "ALREADY_DELIVERED" };
  if (!p.manual && !p.force && !m.endpoint.enabled) return { sent: false, skipped: "ENDPOINT_DISABLED" };
  const secrets = [decryptSecret(m.endpoint.secretCiphertext)];
  if (m.endpoint.previousSecretCiphertext && m.endpoint.previousSecretExpiresAt && m.endpoint.previousSecretExpiresAt > now) {
    secrets.push(decryptSecret(m.endpoint.previousSecretCiphertext));
  }
  const timestamp = Math.floor(now.getTime() / 1000);
  const headers = {
    "content-type": "application/json",
    "user-agent": "referral-tracking-service-webhooks/1",
    "webhook-id": m.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signatureHeader(secrets, m.id, timestamp, m.body),
  };
  return { sent: true, webhookTimestamp: timestamp, outcome: await postWebhook(m.endpoint.environment, m.endpoint.url, headers, m.body) };
}

/** Records what sendWebhookMessage did, in the job's transaction; returns the job's result. */
export async function recordWebhookAttempt(tx: Tx, p: DeliveryPayload, r: SendResult, now = new Date()): Promise<Prisma.InputJsonObject> {
  if (!r.sent) {
    if (r.skipped === "ENDPOINT_DISABLED") {
      await tx.webhookMessage.updateMany({ where: { id: p.messageId, status: "PENDING" }, data: { status: "FAILED", nextAttemptAt: null } });
    }
    return { messageId: p.messageId, skipped: r.skipped };
  }
  // The row lock orders concurrent attempts of one message (a manual retry beside the schedule).
  const locked = await tx.$queryRaw<Array<{ id: string }>>`SELECT "id" FROM "WebhookMessage" WHERE "id" = ${p.messageId} FOR UPDATE`;
  const m = locked.length ? await tx.webhookMessage.findUnique({ where: { id: p.messageId }, include: { endpoint: true } }) : null;
  if (!m) return { messageId: p.messageId, skipped: "MESSAGE_GONE" };
  const attempt = m.attempts + 1;
  const o = r.outcome;
  const retry = !o.success && !p.manual && m.status === "PENDING" && attempt < MAX_WEBHOOK_ATTEMPTS;
  const nextRetryAt = retry ? new Date(now.getTime() + webhookRetryDelayMs(attempt)) : null;

  await tx.webhookDelivery.create({
    data: {
      messageId: m.id,
      endpointId: m.endpointId,
      businessId: m.businessId,
      attempt,
      statusCode: o.statusCode,
      durationMs: o.durationMs,
      success: o.success,
      error: o.error,
      responseBody: o.responseBody,
      nextRetryAt,
      manual: p.manual,
      createdAt: now,
    },
  });
    // A manual retry leaves the message's state (and its schedule) alone unless it succeeds.
  const status = o.success ? "DELIVERED" : retry ? "PENDING" : p.manual ? m.status : "FAILED";
  await tx.webhookMessage.update({
    where: { id: m.id },
    data: { attempts: attempt, status, nextAttemptAt: nextRetryAt, deliveredAt: o.success ? (m.deliveredAt ?? now) : m.deliveredAt },
  });
  if (retry) await insertJob(tx, { businessId: m.businessId, environment: m.environment, apiKeyId: null }, "WEBHOOK_DELIVER", { messageId: m.id, manual: false }, nextRetryAt!);

  if (o.success) {
    await tx.webhookEndpoint.update({ where: { id: m.endpointId }, data: { failingSince: null, lastSuccessAt: now } });
  } else {
    await tx.webhookEndpoint.updateMany({ where: { id: m.endpointId, failingSince: null }, data: { failingSince: now } });
    await disableIfFailingForDays(tx, m.endpointId, now);
  }
  return { messageId: m.id, attempt, success: o.success, statusCode: o.statusCode, error: o.error, nextRetryAt: nextRetryAt?.toISOString() ?? null };
}

/** Disables the endpoint (once: the conditional update) and raises one WEBHOOK_DISABLED alert. */
async function disableIfFailingForDays(tx: Tx, endpointId: string, now: Date) {
  const cutoff = new Date(now.getTime() - DISABLE_AFTER_MS);
  const ep = await tx.webhookEndpoint.findUnique({ where: { id: endpointId } });
  if (!ep?.failingSince || !ep.enabled || ep.failingSince > cutoff) return;
  const days = Math.floor((now.getTime() - ep.failingSince.getTime()) / 86_400_000);
  const reason = `Every delivery failed for ${days} days (since ${ep.failingSince.toISOString()})`;
  const { count } = await tx.webhookEndpoint.updateMany({
    where: { id: endpointId, enabled: true, failingSince: { lte: cutoff } },
    data: { enabled: false, disabledAt: now, disabledReason: reason },
  });
  if (count !== 1) return;
  await tx.alert.create({
    data: {
      businessId: ep.businessId,
      environment: ep.environment,
      kind: "WEBHOOK_DISABLED",
      message: `Webhook endpoint ${ep.url} was disabled: ${reason}. Fix it, then re-enable it on the Webhooks page.`,
      balanceWei: "0",
      thresholdWei: "0",
    },
  });
}
