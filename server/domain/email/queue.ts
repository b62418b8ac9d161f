// The email outbox's write side. Emails are written in the transaction of the change that causes
// them, as the webhook outbox's messages are (webhooks/emit.ts calls emailsForEvents beside its own
// rows), each with an EMAIL_SEND job; both commit or roll back with the change. One statement
// for any number of emails: referrer emails go to the participant's address (SUPPRESSED with the
// reason when the business turned the kind off or the referrer unsubscribed; an earned reward
// then writes nothing), staff emails to each active member who did not turn the kind off. Earned
// rewards gather in one digest per participant: the first is due at once, the next an hour after
// the previous one gathered (send.ts gathers when it is due).
import type { DirectSql } from "../../db/direct-sql";
import { env } from "../../shared/env";
import type { Environment } from "../../shared/environment";
import { newId } from "../../shared/ids";
import { amountOf, type Asset } from "../../shared/asset";
import { isStaffKind, type EmailKind } from "./kinds";

export interface EmailIntent {
  kind: EmailKind;
  /** A referrer email's participant (none for staff emails). */
  participantId?: string;
  data: Record<string, unknown>;
}

/** A domain event as the webhook outbox carries it (webhooks/emit.ts WebhookEvent). */
interface DomainEvent {
  type: string;
  data: unknown;
}

const rec = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {});

/**
 * The emails of a run of the rules core (pure): a digest for each participant who earned a
 * reward, LOW_POOL when the run raised the alert. The run's webhook events do not mail again.
 */
export function emailsOfRun(run: { asset: Asset; rewards: readonly { row: { participantId: string; status: string } }[]; alerts: readonly { kind: string; balanceWei: bigint; thresholdWei: bigint }[] }): EmailIntent[] {
  const earned = [...new Set(run.rewards.filter((r) => r.row.status === "PAID").map((r) => r.row.participantId))];
  const out: EmailIntent[] = earned.map((participantId) => ({ kind: "REWARD_EARNED", participantId, data: {} }));
  for (const a of run.alerts) if (a.kind === "LOW_POOL") out.push({ kind: "LOW_POOL", data: { balanceEth: amountOf(a.balanceWei, run.asset), thresholdEth: amountOf(a.thresholdWei, run.asset) } });
  return out;
}

/** The emails some domain events cause (pure): earned rewards (one digest per participant), reversals, payouts, a low pool. The rules core's own events are not passed here (its run writes its emails: emailsOfRun). */
export function emailsForEvents(events: readonly DomainEvent[]): EmailIntent[] {
  const out: EmailIntent[] = [];
  const earned = new Set<string>();
  for (const e of events) {
    const d = rec(e.data);
    const pid = typeof d.participantId === "string" ? d.participantId : undefined;
    // An earned reward: made by hand (reward.created), or released from review (event.reviewed's rewards).
    const paid = e.type === "reward.created" ? [d] : e.type === "event.reviewed" && Array.isArray(d.rewards) ? d.rewards.map(rec) : [];
    for (const r of paid) {
      const to = typeof r.participantId === "string" ? r.participantId : null;
      if (r.status !== "PAID" || !to || earned.has(to)) continue;
      earned.add(to);
      out.push({ kind: "REWARD_EARNED", participantId: to, data: {} });
    }
    if (e.type === "reward.created" || e.type === "event.reviewed") continue;
    if (e.type === "reward.reversed" && pid) {
      const reversal = rec(d.reversal);
      out.push({ kind: "REWARD_REVERSED", participantId: pid, data: { rewardId: d.rewardId, amountEth: reversal.amountEth ?? d.amountEth, reason: reversal.reason ?? d.reversalReason ?? null } });
    } else if (e.type === "payout.sent" && pid) {
      out.push({ kind: "PAYOUT_SENT", participantId: pid, data: { payoutId: d.payoutId, amountEth: d.amountEth, txHash: d.txHash, walletAddress: d.walletAddress } });
    } else if (e.type === "payout.failed" && pid) {
      const facts = { payoutId: d.payoutId, amountEth: d.amountEth, walletAddress: d.walletAddress, error: d.error };
      out.push({ kind: "PAYOUT_FAILED", participantId: pid, data: facts }, { kind: "PAYOUT_RUN_FAILED", data: facts });
    } else if (e.type === "pool.low") {
      out.push({ kind: "LOW_POOL", data: { balanceEth: d.balanceEth, thresholdEth: d.thresholdEth } });
    }
  }
  return out;
}

/** The provisional subject of a queued email (the rendered one replaces it when it is sent). */
const QUEUED_SUBJECT: Record<EmailKind, string> = {
  REWARD_EARNED: "You earned a reward",
  PAYOUT_SENT: "A payout was sent",
  PAYOUT_FAILED: "A payout failed",
  WALLET_MISSING: "Add a wallet to be paid",
  REWARD_REVERSED: "A reward was reversed",
  PORTAL_SIGN_IN: "Your portal link",
  LOW_POOL: "The reward pool is low",
  REVIEW_QUEUE: "Events wait for review",
  PAYOUT_RUN_FAILED: "A payout failed",
  WEBHOOK_DISABLED: "A webhook endpoint was disabled",
  STRIPE_FAILED: "The Stripe connection failed",
};

/**
 * Writes the emails and their EMAIL_SEND jobs in one statement of the caller's transaction;
 * answers the ids of those queued to be sent. Without SMTP_URL nothing is sent, so no job is
 * queued: the emails are kept NOT_CONFIGURED at once (rendered when read, service.ts), an earned
 * reward's at most once per participant and hour, as the digest would send them.
 */
export async function queueEmails(sql: DirectSql, scope: { businessId: string; environment: Environment }, intents: readonly EmailIntent[], now = new Date()): Promise<string[]> {
  if (intents.length === 0) return [];
  const rows = intents.map((i) => ({ id: `em_${newId()}`, kind: i.kind, pid: i.participantId ?? null, staff: isStaffKind(i.kind), subject: QUEUED_SUBJECT[i.kind], data: i.data }));
  const args = [JSON.stringify(rows), scope.businessId, scope.environment, now.toISOString()];
  const queued = env.smtpUrl ? await sql.query<{ emailId: string }>(QUEUE_SQL, ...args, env.jobMaxAttempts) : await sql.query<{ emailId: string }>(KEEP_SQL, ...args);
  return queued.map((q) => q.emailId);
}

/** Who each intent goes to and why it may not (shared by the two statements below). */
const RECIPIENTS_SQL = `
WITH t AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS t(id text, kind text, pid text, staff boolean, subject text, data jsonb)),
off AS (SELECT "referrerOff" AS kinds FROM "NotificationSettings" WHERE "businessId" = $2 AND environment = $3::"Environment"),
r AS (
  SELECT CASE WHEN t.staff THEN t.id || '_' || m.id ELSE t.id END AS id, t.kind, p.id AS pid, m.id AS mid, COALESCE(p.email, m.email) AS "to", t.subject, t.data,
         CASE WHEN t.staff OR t.kind = 'PORTAL_SIGN_IN' THEN NULL
              WHEN t.kind = ANY(COALESCE((SELECT kinds FROM off), '{}')) THEN 'The business turned this email off'
              WHEN EXISTS (SELECT 1 FROM "EmailOptOut" o WHERE o."participantId" = p.id AND o.kind::text = t.kind) THEN 'The recipient unsubscribed from this email' END AS reason
    FROM t
    LEFT JOIN "Participant" p ON NOT t.staff AND p.id = t.pid AND p."businessId" = $2 AND p.environment = $3::"Environment"
    LEFT JOIN "Member" m ON t.staff AND m."businessId" = $2 AND m.status = 'ACTIVE' AND m."userId" IS NOT NULL AND NOT (t.kind = ANY(m."notificationsOff"))
   WHERE COALESCE(p.email, m.email) IS NOT NULL
)`;

const QUEUE_SQL = `${RECIPIENTS_SQL},
e AS (
  INSERT INTO "Email" (id, "businessId", environment, kind, "participantId", "memberId", "to", subject, status, error, data, "sendAt", "createdAt", "updatedAt")
  SELECT r.id, $2, $3::"Environment", r.kind::"EmailKind", r.pid, r.mid, r."to", r.subject,
         (CASE WHEN r.reason IS NULL THEN 'QUEUED' ELSE 'SUPPRESSED' END)::"EmailStatus", r.reason, r.data,
         CASE WHEN r.kind = 'REWARD_EARNED'
              THEN GREATEST($4::timestamp(3), (SELECT max(x."gatheredAt") + interval '1 hour' FROM "Email" x WHERE x."participantId" = r.pid AND x.kind = 'REWARD_EARNED'))
              ELSE $4::timestamp(3) END,
         $4::timestamp(3), $4::timestamp(3)
    FROM r WHERE NOT (r.kind = 'REWARD_EARNED' AND r.reason IS NOT NULL)
  ON CONFLICT DO NOTHING
  RETURNING id, status, "sendAt"
)
INSERT INTO "Job" (id, "businessId", environment, "apiKeyId", type, status, payload, "maxAttempts", "runAt", "createdAt", "updatedAt")
SELECT 'job_' || e.id, $2, $3::"Environment", NULL, 'EMAIL_SEND', 'QUEUED', jsonb_build_object('emailId', e.id), $5::int, e."sendAt", $4::timestamp(3), $4::timestamp(3)
  FROM e WHERE e.status = 'QUEUED'
RETURNING payload->>'emailId' AS "emailId"`;

const NOT_SENT = "SMTP_URL is not set: the email was not sent";
const KEEP_SQL = `${RECIPIENTS_SQL}
INSERT INTO "Email" (id, "businessId", environment, kind, "participantId", "memberId", "to", subject, status, error, data, "sendAt", "gatheredAt", "createdAt", "updatedAt")
SELECT r.id, $2, $3::"Environment", r.kind::"EmailKind", r.pid, r.mid, r."to", r.subject,
       (CASE WHEN r.reason IS NULL THEN 'NOT_CONFIGURED' ELSE 'SUPPRESSED' END)::"EmailStatus", COALESCE(r.reason, '${NOT_SENT}'), r.data,
       $4::timestamp(3), CASE WHEN r.kind = 'REWARD_EARNED' THEN $4::timestamp(3) END, $4::timestamp(3), $4::timestamp(3)
  FROM r
 WHERE NOT (r.kind = 'REWARD_EARNED' AND (r.reason IS NOT NULL OR EXISTS (
         SELECT 1 FROM "Email" x WHERE x."participantId" = r.pid AND x.kind = 'REWARD_EARNED' AND x."createdAt" > $4::timestamp(3) - interval '1 hour')))
ON CONFLICT DO NOTHING
RETURNING id AS "emailId"`;
