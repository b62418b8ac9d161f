// Privacy tools for one participant (owner): everything held about them as JSON, and erasure.
// Erasure tombstones the personal data (email, name, external id, handle, and those values
// wherever events or webhook bodies repeat them) but keeps ids, amounts, ledger entries and
// proofs, so every total and published proof stays valid. Hashes of the erased values keep a
// later event from bringing them back (trigger Participant_keep_erased, migration 0081).
import { db, type Tx } from "../../db/client";
import { notFound } from "../../shared/errors";
import { emitWebhookEvent } from "../webhooks/emit";

const ERASED = "[erased]";

/** GET /business/participants/:participantId/export */
export async function exportParticipant(businessId: string, participantId: string): Promise<Record<string, unknown>> {
  const p = await db.participant.findFirst({ where: { id: participantId, businessId } });
  if (!p) throw notFound("Participant");
  const [referralsMade, referralsReceived, rewards, payouts, reversals] = await Promise.all([
    db.referral.findMany({ where: { referrerId: p.id }, orderBy: { createdAt: "asc" } }),
    db.referral.findMany({ where: { referredId: p.id }, orderBy: { createdAt: "asc" } }),
    db.reward.findMany({ where: { participantId: p.id }, orderBy: { createdAt: "asc" }, include: { ledgerEntries: true } }),
    db.payout.findMany({ where: { participantId: p.id }, orderBy: { createdAt: "asc" }, omit: { rawTx: true } }),
    db.rewardReversal.findMany({ where: { participantId: p.id }, orderBy: { createdAt: "asc" } }),
  ]);
  const referralIds = [...referralsMade, ...referralsReceived].map((r) => r.id);
  const events = await db.trackedEvent.findMany({ where: { businessId, referralId: { in: referralIds } }, orderBy: { createdAt: "asc" }, omit: { apiKeyId: true } });
  const erasure = await db.erasedIdentity.findFirst({ where: { businessId, participantId: p.id, kind: "participant" }, select: { erasedAt: true } });
  return plain({ exportedAt: new Date(), participant: { ...p, erasedAt: erasure?.erasedAt ?? null }, referralsMade, referralsReceived, events, rewards, payouts, reversals }) as Record<string, unknown>;
}

/** Dates as ISO strings, decimals and bigints as integer strings. */
function plain(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === "bigint") return v.toString();
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v === "object") {
    if ("toFixed" in v && typeof v.toFixed === "function") return (v as { toFixed(): string }).toFixed();
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  }
  return v;
}

/** Replaces every string equal (case-insensitively) to an erased value, at any depth. */
function scrub(v: unknown, values: Set<string>): unknown {
  if (typeof v === "string") return values.has(v.toLowerCase()) ? ERASED : v;
  if (Array.isArray(v)) return v.map((x) => scrub(x, values));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x, values)]));
  return v;
}

/** POST /business/participants/:participantId/erase */
export async function eraseParticipant(businessId: string, participantId: string) {
  return db.$transaction(async (tx: Tx) => {
    const p = await tx.participant.findFirst({ where: { id: participantId, businessId } });
    if (!p) throw notFound("Participant");
    const already = await tx.erasedIdentity.findFirst({ where: { businessId, participantId: p.id, kind: "participant" } });
    const erasedAt = already?.erasedAt ?? new Date();
    const fields = { participant: p.id, email: p.email, externalId: p.externalId, handle: p.handle } as const;
    for (const [kind, value] of Object.entries(fields)) {
      if (!value) continue;
      await tx.$executeRaw`
        INSERT INTO "ErasedIdentity" ("businessId", "environment", "kind", "valueHash", "participantId", "erasedAt")
        VALUES (${businessId}, ${p.environment}::"Environment", ${kind}, "erasure_hash"(${value}), ${p.id}, ${erasedAt})
        ON CONFLICT DO NOTHING`;
    }
    await tx.participant.update({ where: { id: p.id }, data: { email: null, name: null, externalId: null, handle: null } });

    const values = new Set([p.email, p.externalId, p.handle, p.name].filter((v): v is string => !!v).map((v) => v.toLowerCase()));
    if (values.size > 0) {
      const referrals = await tx.referral.findMany({ where: { OR: [{ referrerId: p.id }, { referredId: p.id }] }, select: { id: true } });
      const events = await tx.trackedEvent.findMany({ where: { businessId, referralId: { in: referrals.map((r) => r.id) } }, select: { id: true, metadata: true, referrer: true } });
      for (const e of events) {
        await tx.trackedEvent.update({
          where: { id: e.id },
          data: { metadata: scrub(e.metadata, values) as object, referrer: e.referrer && values.has(e.referrer.toLowerCase()) ? ERASED : e.referrer },
        });
      }
      // Webhook bodies already written repeat the values; what was sent is gone, what is kept is
      // scrubbed. An email is the person's wherever it appears; a name or a user id can be anyone's
      // ("John", "1"), so those go only from messages that name this participant (or their email:
      // scrubbed last).
      const pid = JSON.stringify(p.id);
      const mail = p.email ? JSON.stringify(p.email) : null;
      for (const v of [p.externalId, p.name, p.email].filter((x): x is string => !!x)) {
        const quoted = JSON.stringify(v);
        const anywhere = v === p.email;
        await tx.$executeRaw`UPDATE "WebhookMessage" SET "body" = replace("body", ${quoted}, ${JSON.stringify(ERASED)})
          WHERE "businessId" = ${businessId} AND "environment" = ${p.environment}::"Environment" AND strpos("body", ${quoted}) > 0
            AND (${anywhere} OR strpos("body", ${pid}) > 0 OR (${mail}::text IS NOT NULL AND strpos("body", ${mail}::text) > 0))`;
        // Finished referral applies keep their input (email, name, user id) until the job retention
        // sweep: scrubbed the same way. Queued ones still need it to run.
        await tx.$executeRaw`UPDATE "Job" SET "payload" = replace("payload"::text, ${quoted}, ${JSON.stringify(ERASED)})::jsonb
          WHERE "businessId" = ${businessId} AND "environment" = ${p.environment}::"Environment" AND "status" IN ('SUCCEEDED', 'FAILED')
            AND strpos("payload"::text, ${quoted}) > 0
            AND (${anywhere} OR strpos(COALESCE("result"::text, ''), ${pid}) > 0 OR (${mail}::text IS NOT NULL AND strpos("payload"::text, ${mail}::text) > 0))`;
      }
    }
    if (!already) {
      await emitWebhookEvent(tx, { businessId, environment: p.environment, type: "participant.erased", data: { participantId: p.id, erasedAt: erasedAt.toISOString() } });
    }
    return { participantId: p.id, environment: p.environment, erasedAt: erasedAt.toISOString() };
  });
}
