// Privacy tools for one participant (owner): everything held about them as JSON, and erasure.
// Erasure tombstones the personal data (email, name, external id, handle, and those values
// wherever the business's tables repeat them: COPIES) but keeps ids, amounts, ledger entries and
// proofs, so every total and published proof stays valid. Hashes of the erased values keep a
// later event from bringing them back (trigger Participant_keep_erased, migration 0081).
import { db, type Tx } from "../../db/client";
import { notFound } from "../../shared/errors";
import { emitWebhookEvent } from "../webhooks/emit";

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

/**
 * Where the business keeps text that can repeat a person's values, and when a row is about them.
 * The email is replaced wherever it appears; a name, user id or handle can be anyone's ("John",
 * "1"), so those only in rows about this participant (`about`, which sees the row before the
 * change). The rule that finds and replaces a value is the database's ("erasure_scrub", migration
 * 0170). Parameters: $1 business, $2 environment, $3 every value, $4 the email alone, $5 the
 * participant id, $6 the ids of their referrals.
 */
interface Copies {
  table: string;
  text?: string[];
  json?: string[];
  /** Text columns holding a JSON document (webhook bodies): rewritten string by string too. */
  jsonText?: string[];
  about: string;
  /** Which of the business's rows: those of the participant's environment, and any further condition. */
  rows: string;
}

const mentions = (col: string) => `"erasure_mentions"(${col}, $4::text[])`;
const OWN = `t."businessId" = $1 AND t."environment" = $2::"Environment"`;
const OF_PARTICIPANT = `t."participantId" = $5`;

const COPIES: Copies[] = [
  {
    table: "TrackedEvent",
    text: ["referrer", "campaign", "source", "reason"],
    json: ["metadata"],
    about: `t."referralId" = ANY($6::text[]) OR strpos(t."metadata"::text, $5) > 0 OR ${mentions(`t."metadata"::text || ' ' || COALESCE(t."referrer", '')`)}`,
    rows: OWN,
  },
  { table: "Referral", text: ["source", "campaign", "reason"], about: `$5 IN (t."referrerId", t."referredId")`, rows: OWN },
  { table: "Reward", text: ["reason", "note"], about: OF_PARTICIPANT, rows: OWN },
  { table: "RewardReversal", text: ["reason", "eventName"], about: OF_PARTICIPANT, rows: OWN },
  { table: "Payout", text: ["error"], about: OF_PARTICIPANT, rows: OWN },
  { table: "LinkClick", text: ["refererHost", "utmSource", "utmMedium", "utmCampaign", "utmTerm", "utmContent"], about: OF_PARTICIPANT, rows: OWN },
  { table: "PortalSession", text: ["returnUrl"], about: OF_PARTICIPANT, rows: OWN },
  // The email log: the participant's own emails, and staff emails that name them.
  { table: "Email", text: ["to", "subject", "text", "html", "error"], about: `t."participantId" = $5 OR ${mentions(`COALESCE(t."text", '') || ' ' || t."to"`)}`, rows: OWN },
  { table: "Alert", text: ["message"], about: `strpos(t."message", $5) > 0 OR ${mentions(`t."message"`)}`, rows: OWN },
  // Deliveries before their messages: a message still names the email that makes it about them.
  {
    table: "WebhookDelivery",
    text: ["responseBody", "error"],
    about: `EXISTS (SELECT 1 FROM "WebhookMessage" m WHERE m.id = t."messageId" AND (strpos(m."body", $5) > 0 OR ${mentions(`m."body"`)}))`,
    rows: `t."businessId" = $1 AND EXISTS (SELECT 1 FROM "WebhookMessage" m WHERE m.id = t."messageId" AND m."environment" = $2::"Environment")`,
  },
  { table: "WebhookMessage", jsonText: ["body"], about: `strpos(t."body", $5) > 0 OR ${mentions(`t."body"`)}`, rows: OWN },
  // Finished jobs keep their input until the retention sweep; queued ones still need it to run.
  {
    table: "Job",
    text: ["lastError"],
    json: ["payload", "result"],
    about: `strpos(COALESCE(t."result"::text, ''), $5) > 0 OR ${mentions(`t."payload"::text`)}`,
    rows: `${OWN} AND t."status" IN ('SUCCEEDED', 'FAILED')`,
  },
  { table: "IdempotencyRecord", json: ["responseBody"], about: `strpos(COALESCE(t."responseBody"::text, ''), $5) > 0`, rows: OWN },
];

/** One statement per table: every copy of the values in its rows replaced by [erased]. */
function scrubStatement(c: Copies): string {
  const vals = `(CASE WHEN ${c.about} THEN $3::text[] ELSE $4::text[] END)`;
  const q = (col: string) => `t."${col}"`;
  const sets = [
    ...(c.text ?? []).map((col) => `"${col}" = "erasure_scrub"(${q(col)}, ${vals})`),
    ...(c.json ?? []).map((col) => `"${col}" = "erasure_scrub_json"(${q(col)}, ${vals})`),
    // Rewritten only when a value went: an untouched body keeps its bytes.
    ...(c.jsonText ?? []).map((col) => `"${col}" = COALESCE(NULLIF("erasure_scrub_json"(${q(col)}::jsonb, ${vals})::text, ${q(col)}::jsonb::text), ${q(col)})`),
  ];
  const all = [...(c.text ?? []).map(q), ...(c.json ?? []).map((col) => `${q(col)}::text`), ...(c.jsonText ?? []).map(q)];
  // Every statement names all six parameters once (not every table's rules use each of them).
  const params = `WITH params AS (SELECT $1::text, $2::"Environment", $3::text[], $4::text[], $5::text, $6::text[])`;
  return `${params} UPDATE "${c.table}" t SET ${sets.join(", ")} WHERE ${c.rows} AND "erasure_mentions"(concat_ws(' ', ${all.join(", ")}), $3::text[])`;
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
    await tx.participant.update({ where: { id: p.id }, data: { email: null, name: null, externalId: null, handle: null, stripeCustomerId: null } });

    // Longer values first, so that a name inside an email is not replaced before the email.
    const values = [...new Set([p.email, p.externalId, p.handle, p.name].filter((v): v is string => !!v))].sort((a, b) => b.length - a.length);
    if (values.length > 0) {
      const referrals = await tx.referral.findMany({ where: { OR: [{ referrerId: p.id }, { referredId: p.id }] }, select: { id: true } });
      const params = [businessId, p.environment, values, p.email ? [p.email] : [], p.id, referrals.map((r) => r.id)];
      for (const c of COPIES) await tx.$executeRawUnsafe(scrubStatement(c), ...params);
    }
    if (!already) {
      await emitWebhookEvent(tx, { businessId, environment: p.environment, type: "participant.erased", data: { participantId: p.id, erasedAt: erasedAt.toISOString() } });
    }
    return { participantId: p.id, environment: p.environment, erasedAt: erasedAt.toISOString() };
  });
}
