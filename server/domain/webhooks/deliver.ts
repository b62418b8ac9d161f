// Delivering outbox messages (the WEBHOOK_DELIVER job: a group of messages to one endpoint). Two
// halves, because an HTTP call must not hold a database transaction open for up to 10 s:
//   sendWebhookMessages — outside any transaction: reads the messages, signs each (Standard
//                         Webhooks, every active secret) and POSTs each once, all at once;
//   recordWebhookAttempts — in the jobs' transaction, set-based for any number of attempts (the
//                         webhook pool records the attempts that ended meanwhile together; a job
//                         run alone records its own): records each attempt, marks the message
//                         DELIVERED, schedules a failed message's next attempt as a job of its own
//                         (exponential backoff with jitter, about 3 days in all) or gives up;
//                         disables an endpoint that has failed for days and raises a
//                         WEBHOOK_DISABLED alert once.
// Every attempt of a message carries the same webhook-id (the message id), so receivers can
// de-duplicate; delivery is at least once (a crash after the POST and before the record repeats it).
import { rawRows, txSql, type Tx } from "../../db/client";
import type { Prisma } from "../../db/generated";
import { env } from "../../shared/env";
import type { Environment } from "../../shared/environment";
import { newId } from "../../shared/ids";
import { storableText } from "../../shared/json-guard";
import { postWebhook, type PostOutcome } from "./destination";
import { decryptSecret, signatureHeader } from "./secrets";
import { queueEmails } from "../email/queue";

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

/**
 * The deliveries a WEBHOOK_DELIVER job asks for: `{ messageIds: [...] }` (the outbox writes one
 * job for a group of messages to one endpoint, emit.ts) or `{ messageId }` (a retry, a manual
 * retry, a job written before groups), each with the job's `manual` and `force`.
 */
export function deliveryPayloadsOf(payload: unknown): DeliveryPayload[] {
  const p = (payload ?? {}) as { messageId?: unknown; messageIds?: unknown; manual?: unknown; force?: unknown };
  const ids = Array.isArray(p.messageIds) ? p.messageIds : [p.messageId];
  if (ids.length === 0 || ids.some((id) => typeof id !== "string")) throw new Error("WEBHOOK_DELIVER job payload has no messageId");
  return (ids as string[]).map((messageId) => ({ messageId, manual: p.manual === true, force: p.force === true }));
}

/**
 * Messages per delivery job at most: a quarter of the webhook pool (WEBHOOK_CONCURRENCY), so that
 * two jobs fill the half of it that one business may hold (runner.ts jobPool).
 */
export function deliveryGroupSize(): number {
  return Math.max(1, Math.floor(env.webhookConcurrency / 4));
}

/** A job's result from its deliveries' results: one delivery's own (a single message), else `{ deliveries }`. */
export function deliveryJobResult(results: Prisma.InputJsonObject[]): Prisma.InputJsonObject {
  return results.length === 1 ? results[0] : { deliveries: results };
}

type SendResult =
  | { sent: true; webhookTimestamp: number; outcome: PostOutcome }
  | { sent: false; skipped: "MESSAGE_GONE" | "ALREADY_DELIVERED" | "ENDPOINT_DISABLED" };

/** A message as its delivery reads it: the body and the endpoint's address, state and secrets. */
export interface MessageToSend {
  id: string;
  status: string;
  body: string;
  environment: Environment;
  url: string;
  enabled: boolean;
  secretCiphertext: string;
  previousSecretCiphertext: string | null;
  previousSecretExpiresAt: Date | null;
}

/** The messages of these deliveries with their endpoints: one statement for any number (a claim of the webhook pool, or one job). */
export async function readWebhookMessages(ids: string[]): Promise<Map<string, MessageToSend>> {
  if (ids.length === 0) return new Map();
  const rows = await rawRows<MessageToSend>(
    `SELECT m.id, m.status::text AS status, m.body, e.environment::text AS environment, e.url, e.enabled,
            e."secretCiphertext", e."previousSecretCiphertext", e."previousSecretExpiresAt"
       FROM "WebhookMessage" m JOIN "WebhookEndpoint" e ON e.id = m."endpointId"
      WHERE m.id = ANY($1::text[])`,
    ids,
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * Signs and POSTs the message once. Reads only (the message, unless the caller read it already:
 * null when it is gone); never throws for an endpoint's failure.
 */
async function sendWebhookMessage(p: DeliveryPayload, now = new Date(), read?: MessageToSend | null): Promise<SendResult> {
  const m = read === undefined ? ((await readWebhookMessages([p.messageId])).get(p.messageId) ?? null) : read;
  if (!m) return { sent: false, skipped: "MESSAGE_GONE" };
  if (!p.manual && m.status === "DELIVERED") return { sent: false, skipped: "ALREADY_DELIVERED" };
  if (!p.manual && !p.force && !m.enabled) return { sent: false, skipped: "ENDPOINT_DISABLED" };
  const secrets = [decryptSecret(m.secretCiphertext)];
  if (m.previousSecretCiphertext && m.previousSecretExpiresAt && m.previousSecretExpiresAt > now) {
    secrets.push(decryptSecret(m.previousSecretCiphertext));
  }
  const timestamp = Math.floor(now.getTime() / 1000);
  const headers = {
    "content-type": "application/json",
    "user-agent": "referral-tracking-service-webhooks/1",
    "webhook-id": m.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signatureHeader(secrets, m.id, timestamp, m.body),
  };
  return { sent: true, webhookTimestamp: timestamp, outcome: await postWebhook(m.environment, m.url, headers, m.body) };
}

/** One attempt to record: what the delivery job asked for and what sendWebhookMessage did. */
export interface WebhookAttempt {
  payload: DeliveryPayload;
  sent: SendResult;
}

/**
 * Sends a job's messages (deliveryPayloadsOf), each POST on its own and all at once, the messages
 * read in one statement unless the caller read them (`read`); the attempts come back in the
 * payloads' order, ready for recordWebhookAttempts. Never throws for an endpoint's failure.
 */
export async function sendWebhookMessages(payloads: DeliveryPayload[], now = new Date(), read?: Promise<Map<string, MessageToSend>>): Promise<WebhookAttempt[]> {
  const messages = await (read ?? readWebhookMessages(payloads.map((p) => p.messageId)));
  return Promise.all(payloads.map(async (payload) => ({ payload, sent: await sendWebhookMessage(payload, now, messages.get(payload.messageId) ?? null) })));
}

/** `manualAttempts`: the message's attempts made by hand (retries from the log), which its schedule does not count. */
type LockedMessage = { id: string; endpointId: string; businessId: string; environment: Environment; status: string; attempts: number; manualAttempts: number; nextAttemptAt: Date | null; deliveredAt: Date | null };

/**
 * Records attempts in the caller's transaction (their jobs already owned), in the order given,
 * set-based: the messages locked and read in one statement (the row locks order concurrent
 * attempts of one message: a manual retry beside the schedule), then the deliveries, the
 * messages' new states, the retry jobs and the endpoints' health in one. Returns each attempt's
 * job result. An endpoint whose last attempt failed is checked for disabling.
 */
export async function recordWebhookAttempts(tx: Tx, attempts: WebhookAttempt[], now = new Date()): Promise<Prisma.InputJsonObject[]> {
  const sql = await txSql(tx);
  const at = now.toISOString();
  const results: Prisma.InputJsonObject[] = attempts.map((a) => ({ messageId: a.payload.messageId, skipped: a.sent.sent ? "MESSAGE_GONE" : a.sent.skipped }));
  const disabled = attempts.filter((a) => !a.sent.sent && a.sent.skipped === "ENDPOINT_DISABLED").map((a) => a.payload.messageId);
  if (disabled.length) {
    await sql.execute(`UPDATE "WebhookMessage" SET status = 'FAILED', "nextAttemptAt" = NULL, "updatedAt" = $2::timestamp(3) WHERE id = ANY($1::text[]) AND status = 'PENDING'`, disabled, at);
  }
  const sent = attempts.flatMap((a, i) => (a.sent.sent ? [{ i, p: a.payload, o: a.sent.outcome }] : []));
  if (!sent.length) return results;
  const locked = await sql.query<LockedMessage>(
    `SELECT id, "endpointId", "businessId", environment::text AS environment, status::text AS status, attempts, "nextAttemptAt", "deliveredAt",
            CASE WHEN attempts = 0 THEN 0 ELSE (SELECT count(*) FROM "WebhookDelivery" d WHERE d."messageId" = m.id AND d.manual)::int END AS "manualAttempts"
       FROM "WebhookMessage" m WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`,
    [...new Set(sent.map((s) => s.p.messageId))],
  );
  const messages = new Map(locked.map((m) => [m.id, { ...m, next: m.nextAttemptAt, touched: false }]));
  const deliveries: unknown[] = [];
  const retries: unknown[] = [];
  // Per endpoint, its attempts' outcomes in order: the last one decides its health.
  const health = new Map<string, { anySuccess: boolean; lastSuccess: boolean }>();
  for (const { i, p, o } of sent) {
    const m = messages.get(p.messageId);
    if (!m) continue; // gone: MESSAGE_GONE
    const attempt = m.attempts + 1;
    // The schedule counts its own attempts only: retrying by hand never ends or speeds up the retries.
    const scheduled = attempt - m.manualAttempts;
    const retry = !o.success && !p.manual && m.status === "PENDING" && scheduled < MAX_WEBHOOK_ATTEMPTS;
    const nextRetryAt = retry ? new Date(now.getTime() + webhookRetryDelayMs(scheduled)) : null;
    deliveries.push({
      id: newId(),
      mid: m.id,
      eid: m.endpointId,
      bid: m.businessId,
      att: attempt,
      code: o.statusCode,
      ms: o.durationMs,
      ok: o.success,
      // What the endpoint answered is a third party's text: kept, with what no column takes (NUL) replaced.
      err: o.error === null ? null : storableText(o.error),
      resp: o.responseBody === null ? null : storableText(o.responseBody),
      next: nextRetryAt?.toISOString() ?? null,
      manual: p.manual,
    });
    // A manual retry leaves the message's state and its next scheduled attempt alone unless it succeeds.
    m.status = o.success ? "DELIVERED" : retry ? "PENDING" : p.manual ? m.status : "FAILED";
    m.attempts = attempt;
    if (p.manual) m.manualAttempts++;
    if (o.success) m.deliveredAt ??= now;
    if (!p.manual || o.success) m.next = nextRetryAt;
    m.touched = true;
    if (retry) retries.push({ id: newId(), bid: m.businessId, env: m.environment, mid: m.id, run: nextRetryAt!.toISOString() });
    const h = health.get(m.endpointId) ?? { anySuccess: false, lastSuccess: false };
    health.set(m.endpointId, { anySuccess: h.anySuccess || o.success, lastSuccess: o.success });
    results[i] = { messageId: m.id, attempt, success: o.success, statusCode: o.statusCode, error: o.error, nextRetryAt: nextRetryAt?.toISOString() ?? null };
  }
  if (!deliveries.length) return results;
  const changed = [...messages.values()]
    .filter((m) => m.touched)
    .map((m) => ({ id: m.id, att: m.attempts, st: m.status, next: m.next?.toISOString() ?? null, done: m.deliveredAt?.toISOString() ?? null }));
  // Endpoint health: `ok` its last attempt succeeded; `reset` one succeeded, a later one failed (failing from now); `fail` none succeeded.
  const endpoints = [...health].map(([id, h]) => ({ id, mode: h.lastSuccess ? "ok" : h.anySuccess ? "reset" : "fail" }));
  await sql.execute(
    `WITH d AS (
       INSERT INTO "WebhookDelivery" (id, "messageId", "endpointId", "businessId", attempt, "statusCode", "durationMs", success, error, "responseBody", "nextRetryAt", manual, "createdAt")
       SELECT t.id, t.mid, t.eid, t.bid, t.att, t.code, t.ms, t.ok, t.err, t.resp, t.next::timestamp(3), t.manual, $1::timestamp(3)
         FROM jsonb_to_recordset($2::jsonb) AS t(id text, mid text, eid text, bid text, att int, code int, ms int, ok boolean, err text, resp text, next text, manual boolean)),
     m AS (
       UPDATE "WebhookMessage" AS m SET attempts = t.att, status = t.st::"WebhookMessageStatus", "nextAttemptAt" = t.next::timestamp(3), "deliveredAt" = t.done::timestamp(3), "updatedAt" = $1::timestamp(3)
         FROM jsonb_to_recordset($3::jsonb) AS t(id text, att int, st text, next text, done text) WHERE m.id = t.id),
     j AS (
       INSERT INTO "Job" (id, "businessId", environment, "apiKeyId", type, status, payload, "maxAttempts", "runAt", "createdAt", "updatedAt")
       SELECT t.id, t.bid, t.env::"Environment", NULL, 'WEBHOOK_DELIVER', 'QUEUED', jsonb_build_object('messageId', t.mid, 'manual', false), $5, t.run::timestamp(3), $1::timestamp(3), $1::timestamp(3)
         FROM jsonb_to_recordset($4::jsonb) AS t(id text, bid text, env text, mid text, run text))
     UPDATE "WebhookEndpoint" AS e
        SET "failingSince" = CASE t.mode WHEN 'ok' THEN NULL WHEN 'reset' THEN $1::timestamp(3) ELSE COALESCE(e."failingSince", $1::timestamp(3)) END,
            "lastSuccessAt" = CASE WHEN t.mode = 'fail' THEN e."lastSuccessAt" ELSE $1::timestamp(3) END,
            "updatedAt" = $1::timestamp(3)
       FROM jsonb_to_recordset($6::jsonb) AS t(id text, mode text)
      WHERE e.id = t.id AND (t.mode <> 'fail' OR e."failingSince" IS NULL)`,
    at,
    JSON.stringify(deliveries),
    JSON.stringify(changed),
    JSON.stringify(retries),
    env.jobMaxAttempts,
    JSON.stringify(endpoints),
  );
  for (const e of endpoints) if (e.mode !== "ok") await disableIfFailingForDays(tx, e.id, now);
  return results;
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
  const message = `Webhook endpoint ${ep.url} was disabled: ${reason}. Fix it, then re-enable it on the Webhooks page.`;
  await tx.alert.create({ data: { businessId: ep.businessId, environment: ep.environment, kind: "WEBHOOK_DISABLED", message, balanceWei: "0", thresholdWei: "0" } });
  await queueEmails(await txSql(tx), { businessId: ep.businessId, environment: ep.environment }, [{ kind: "WEBHOOK_DISABLED", data: { endpointId: ep.id, message } }]);
}
