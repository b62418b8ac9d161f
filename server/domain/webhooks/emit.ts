// The webhook outbox's write side. emitWebhookEvent runs inside the transaction of the change it
// reports: for each enabled endpoint of the business and environment that subscribes to the
// type, one WebhookMessage (its id is the webhook-id header), delivered by a WEBHOOK_DELIVER job
// that carries a group of one endpoint's messages. Both commit or roll back with the change, so
// a crash can neither lose an event nor invent one. The job is picked up by the embedded runner's poll or the Inngest re-dispatch loop (callers
// deep in the engine need not dispatch). Every message is written by writeWebhookMessages, a
// fixed number of statements for any number of events and endpoints.
//
// Call sites are one line each, `await emitWebhookEvent(tx, <builder>(…))`, in the referral,
// reward, event-review, funding and ledger code.
import { txSql, type Tx } from "../../db/client";
import type { Prisma } from "../../db/generated";
import { env } from "../../shared/env";
import { newId } from "../../shared/ids";
import type { Environment } from "../../shared/environment";
import type { QueuedJob } from "../jobs/queue";
import type { WebhookEventType } from "./schemas";
import { deliveryGroupSize } from "./deliver";
import { rewardWebhook, trackedEventWebhook, type WebhookEvent } from "./events";
import { emailsForEvents, queueEmails } from "../email/queue";
import { readAsset } from "../assets/read";
import { assetTagOf } from "../../shared/asset";

// The payload builders are pure (webhooks/events.ts), so that the rules core can build its events without a database.
export * from "./events";

/**
 * Writes the outbox rows for every matching enabled endpoint (one event or several, of one
 * business and environment); returns the queued jobs (one per group of messages). Two statements whatever the number of
 * events and endpoints: the endpoints, then every message with its job (writeWebhookMessages).
 */
export async function emitWebhookEvent(tx: Tx, events: WebhookEvent | WebhookEvent[], opts: { emails?: boolean } = {}): Promise<QueuedJob[]> {
  const list = Array.isArray(events) ? events : [events];
  if (list.length === 0) return [];
  const { businessId, environment } = list[0];
  if (list.some((e) => e.businessId !== businessId || e.environment !== environment)) throw new Error("emitWebhookEvent: one business and environment per call");
  // One indexed query per call; nothing more when the business has no endpoint.
  const endpoints = await tx.webhookEndpoint.findMany({ where: { businessId, environment, enabled: true }, select: { id: true, events: true } });
  const jobs = new Map((await writeWebhookMessages(tx, webhookMessagesFor(endpoints, list))).map((m) => [m.job.id, m.job]));
  // The emails the same events cause (email/queue.ts): one statement, none when no event mails anyone.
  // `emails: false`: the rules core's events, whose emails its run wrote (rules/write.ts).
  const emails = opts.emails === false ? [] : emailsForEvents(list);
  if (emails.length) await queueEmails(await txSql(tx), { businessId, environment }, emails);
  return [...jobs.values()];
}

export interface SubscribedEndpoint {
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

/** The outbox rows of some messages: ids named before the write, a delivery job per group. */
export interface OutboxRows {
  /** Each message's id and its delivery job, in the order given. */
  written: { messageId: string; job: QueuedJob }[];
  /**
   * The two data-modifying CTEs (`outbox_m`, `outbox_j`) that write them, for a statement of the
   * caller's; `param` adds a parameter and answers its placeholder.
   */
  ctes(param: (value: unknown) => string): string[];
}

/**
 * The one writer of outbox messages: each message, and a delivery job per group of up to
 * deliveryGroupSize() messages to one endpoint (with the same `force`), in the order given (a
 * job's payload lists its messages in that order). Pure: the rows and the SQL that writes them,
 * as part of any statement (writeWebhookMessages' own, or the rules core's writes, rules/write.ts).
 * @public
 */
export function outboxRows(messages: WebhookMessageInput[], now: Date): OutboxRows {
  const timestamp = now.toISOString();
  const max = deliveryGroupSize();
  // The open group of each endpoint (and force): a new job id once it is full.
  const open = new Map<string, { jobId: string; n: number }>();
  const rows = messages.map((m, ord) => {
    const key = `${m.endpointId}\u0000${m.force === true}`;
    let g = open.get(key);
    if (!g || g.n >= max) open.set(key, (g = { jobId: newId(), n: 0 }));
    g.n++;
    return {
      mid: `msg_${newId()}`,
      jid: g.jobId,
      eid: m.endpointId,
      bid: m.businessId,
      env: m.environment,
      type: m.type,
      body: JSON.stringify({ type: m.type, timestamp, data: m.data }),
      force: m.force === true,
      ord,
    };
  });
  return {
    written: rows.map((r) => ({ messageId: r.mid, job: { id: r.jid, type: "WEBHOOK_DELIVER" as const } })),
    ctes(param) {
      const input = `jsonb_to_recordset(${param(JSON.stringify(rows))}::jsonb) AS t(mid text, jid text, eid text, bid text, env text, type text, body text, force boolean, ord int)`;
      const at = `${param(timestamp)}::timestamp(3)`;
      return [
        `outbox_m AS (
          INSERT INTO "WebhookMessage" (id, "endpointId", "businessId", environment, "eventType", body, "createdAt", "updatedAt")
          SELECT t.mid, t.eid, t.bid, t.env::"Environment", t.type, t.body, ${at}, ${at} FROM ${input})`,
        `outbox_j AS (
          INSERT INTO "Job" (id, "businessId", environment, "apiKeyId", type, status, payload, "maxAttempts", "runAt", "createdAt", "updatedAt")
          SELECT t.jid, min(t.bid), min(t.env)::"Environment", NULL, 'WEBHOOK_DELIVER', 'QUEUED',
                 CASE WHEN count(*) = 1 THEN jsonb_build_object('messageId', min(t.mid), 'manual', false, 'force', bool_or(t.force))
                      ELSE jsonb_build_object('messageIds', jsonb_agg(t.mid ORDER BY t.ord), 'manual', false, 'force', bool_or(t.force)) END,
                 ${param(env.jobMaxAttempts)}::int, ${at}, ${at}, ${at}
            FROM ${input} GROUP BY t.jid ORDER BY min(t.ord))`,
      ];
    },
  };
}

/**
 * The webhook events of a run, kept whole for a later fan-out: one WEBHOOK_DELIVER job whose
 * payload holds the events (`{ events: [{ type, data }] }`), written in the run's statement
 * (`ctes`). The job turns them into their messages and delivery jobs (fanOutWebhookEvents) in a
 * transaction of its own, so a batch of events writes one row for all its webhooks and the
 * messages are written beside the next batches instead of inside them. Both commit with the
 * events, so none is lost or invented; the messages' ids are given once, by the fan-out.
 * @public
 */
export function fanOutRow(events: WebhookEvent[], now: Date): { job: QueuedJob; ctes(param: (value: unknown) => string): string[] } {
  const first = events[0];
  if (events.some((e) => e.businessId !== first.businessId || e.environment !== first.environment)) throw new Error("fanOutRow: one business and environment per call");
  const job = { id: newId(), type: "WEBHOOK_DELIVER" as const };
  const payload = { events: events.map((e) => ({ type: e.type, data: e.data })) };
  return {
    job,
    ctes(param) {
      const at = `${param(now.toISOString())}::timestamp(3)`;
      return [
        `outbox_f AS (
          INSERT INTO "Job" (id, "businessId", environment, "apiKeyId", type, status, payload, "maxAttempts", "runAt", "createdAt", "updatedAt")
          VALUES (${param(job.id)}, ${param(first.businessId)}, ${param(first.environment)}::"Environment", NULL, 'WEBHOOK_DELIVER', 'QUEUED',
                  ${param(JSON.stringify(payload))}::jsonb, ${param(env.jobMaxAttempts)}::int, ${at}, ${at}, ${at}))`,
      ];
    },
  };
}

/** The events of a fan-out job's payload (fanOutRow), or null for a delivery job's. */
export function fanOutEventsOf(payload: unknown): { type: WebhookEventType; data: Prisma.InputJsonObject }[] | null {
  const events = (payload as { events?: unknown } | null)?.events;
  return Array.isArray(events) ? (events as { type: WebhookEventType; data: Prisma.InputJsonObject }[]) : null;
}

/** A fan-out job's work, in its transaction: the messages of its events for the endpoints enabled now (emitWebhookEvent). */
export async function fanOutWebhookEvents(tx: Tx, scope: { businessId: string; environment: Environment }, events: { type: WebhookEventType; data: Prisma.InputJsonObject }[]): Promise<Prisma.InputJsonObject> {
  const jobs = await emitWebhookEvent(
    tx,
    events.map((e) => ({ ...scope, type: e.type, data: e.data })),
    { emails: false },
  );
  return { events: events.length, deliveryJobs: jobs.length };
}

/**
 * Writes messages and their delivery jobs (outboxRows) in one statement of the caller's
 * transaction, for any number of messages (single changes, the test button, the batches of a
 * caller that did not write them with its own rows).
 * @public
 */
export async function writeWebhookMessages(tx: Tx, messages: WebhookMessageInput[]): Promise<{ messageId: string; job: QueuedJob }[]> {
  if (messages.length === 0) return [];
  const out = outboxRows(messages, new Date());
  const values: unknown[] = [];
  const ctes = out.ctes((v) => {
    values.push(v);
    return `$${values.length}`;
  });
  await (await txSql(tx)).execute(`WITH ${ctes.join(",\n")} SELECT 1`, ...values);
  return out.written;
}

/** event.reviewed: the event as decided, with its rewards (released, or refused). */
export async function reviewedEventWebhook(tx: Tx, eventId: string): Promise<WebhookEvent> {
  const e = await tx.trackedEvent.findUniqueOrThrow({ where: { id: eventId }, include: { rewards: { orderBy: [{ kind: "asc" }, { createdAt: "asc" }] } } });
  const asset = await readAsset(tx, e.businessId, e.environment);
  const base = trackedEventWebhook("event.reviewed", e);
  return { ...base, data: { ...base.data, asset: assetTagOf(asset), rewards: e.rewards.map((r) => rewardWebhook("reward.created", r, asset).data) } };
}
