// Notification settings (the business's, each member's, each referrer's), the email log, and the
// ways a referrer gets a portal link by email (their own request, or staff from the dashboard).
import { db, txSql } from "../../db/client";
import type { Email } from "../../db/generated";
import { AppError, notFound } from "../../shared/errors";
import type { Environment } from "../../shared/environment";
import { checkCursor, pageArgs, toPage } from "../../shared/list-page";
import { choices, offAfter, REFERRER_KINDS, STAFF_KINDS, type ReferrerKind, type StaffKind } from "./kinds";
import { queueEmails } from "./queue";
import { withoutPortalLink } from "./content";
import { isKept, keptSubjects, renderKept } from "./send";
import type { z } from "zod";
import type { listEmailsInput, updateNotificationsInput } from "./schemas";

export async function getNotifications(businessId: string, environment: Environment) {
  const s = await db.notificationSettings.findUnique({ where: { businessId_environment: { businessId, environment } } });
  return { environment, referrer: choices(REFERRER_KINDS, s?.referrerOff ?? []), fromName: s?.fromName ?? null, replyTo: s?.replyTo ?? null };
}

export async function updateNotifications(businessId: string, input: z.infer<typeof updateNotificationsInput>) {
  const { environment } = input;
  await db.$transaction(async (tx) => {
    const s = await tx.notificationSettings.findUnique({ where: { businessId_environment: { businessId, environment } } });
    const data = {
      referrerOff: offAfter(REFERRER_KINDS, s?.referrerOff ?? [], input.referrer ?? {}),
      ...(input.fromName !== undefined ? { fromName: input.fromName || null } : {}),
      ...(input.replyTo !== undefined ? { replyTo: input.replyTo } : {}),
    };
    await tx.notificationSettings.upsert({ where: { businessId_environment: { businessId, environment } }, create: { businessId, environment, ...data }, update: data });
  });
  return getNotifications(businessId, environment);
}

export async function getMemberNotifications(memberId: string) {
  const m = await db.member.findUniqueOrThrow({ where: { id: memberId }, select: { notificationsOff: true } });
  return choices(STAFF_KINDS, m.notificationsOff);
}

export async function updateMemberNotifications(memberId: string, change: Partial<Record<StaffKind, boolean>>) {
  await db.$transaction(async (tx) => {
    const m = await tx.member.findUniqueOrThrow({ where: { id: memberId }, select: { notificationsOff: true } });
    await tx.member.update({ where: { id: memberId }, data: { notificationsOff: offAfter(STAFF_KINDS, m.notificationsOff, change) } });
  });
  return getMemberNotifications(memberId);
}

/** The referrer emails a participant gets (the portal's preferences; an unsubscribe turns one off). */
export async function getParticipantNotifications(participantId: string) {
  const rows = await db.emailOptOut.findMany({ where: { participantId }, select: { kind: true } });
  return choices(REFERRER_KINDS, rows.map((r) => r.kind));
}

export async function updateParticipantNotifications(participantId: string, change: Partial<Record<ReferrerKind, boolean>>) {
  const off = REFERRER_KINDS.filter((k) => change[k] === false);
  const on = REFERRER_KINDS.filter((k) => change[k] === true);
  await db.$transaction([
    db.emailOptOut.createMany({ data: off.map((kind) => ({ participantId, kind })), skipDuplicates: true }),
    db.emailOptOut.deleteMany({ where: { participantId, kind: { in: on } } }),
  ]);
  return getParticipantNotifications(participantId);
}

const toEmailOutput = (e: Email) => ({
  emailId: e.id,
  kind: e.kind,
  to: e.to,
  subject: e.subject,
  status: e.status,
  error: e.error,
  attempts: e.attempts,
  createdAt: e.createdAt.toISOString(),
  sentAt: e.sentAt?.toISOString() ?? null,
});

export async function listEmails(businessId: string, q: z.infer<typeof listEmailsInput>) {
  const where = { businessId, environment: q.environment, kind: q.kind, status: q.status, ...(q.to ? { to: { equals: q.to, mode: "insensitive" as const } } : {}) };
  await checkCursor(q.cursor, (id) => db.email.findFirst({ where: { id, businessId, environment: q.environment }, select: { id: true } }));
  const rows = await db.email.findMany({ where, ...pageArgs(q.limit, q.cursor) });
  const subjects = await keptSubjects(rows);
  return toPage(rows, q.limit, (e) => ({ ...toEmailOutput(e), subject: subjects.get(e.id) ?? e.subject }));
}

export async function getEmail(businessId: string, emailId: string) {
  const e = await db.email.findFirst({ where: { id: emailId, businessId } });
  if (!e) throw notFound("Email");
  const shown = isKept(e) ? await renderKept(e) : { subject: e.subject, html: e.html, text: e.text };
  return { ...toEmailOutput(e), subject: shown.subject, environment: e.environment, text: withoutPortalLink(shown.text, businessId), html: withoutPortalLink(shown.html, businessId) };
}

/** Sign-in requests answered with an email per address per hour, at most. */
const SIGN_IN_PER_HOUR = 3;

/**
 * POST /portal/api/sign-in: emails a portal link to the participants of the business (given by
 * id or handle) with that email, when there are some and the address asked fewer than
 * SIGN_IN_PER_HOUR times this hour. Answers nothing either way: the caller learns nothing.
 */
export async function requestPortalSignIn(input: { businessId: string; email: string }, now = new Date()): Promise<void> {
  const businessId = (await resolveBusiness(input.businessId))?.id;
  if (!businessId) return;
  const participants = await db.participant.findMany({ where: { businessId, email: input.email }, select: { id: true, environment: true } });
  for (const p of participants) {
    await db.$transaction(async (tx) => {
      // One request at a time per address and business, so the hourly count holds under concurrency.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`sign-in:${businessId}:${input.email}`}))`;
      const recent = await tx.email.count({ where: { kind: "PORTAL_SIGN_IN", to: input.email, createdAt: { gt: new Date(now.getTime() - 3_600_000) } } });
      if (recent >= SIGN_IN_PER_HOUR) return;
      await queueEmails(await txSql(tx), { businessId, environment: p.environment }, [{ kind: "PORTAL_SIGN_IN", participantId: p.id, data: { requestedBy: "REFERRER" } }], now);
    });
  }
}

/** A business named by id or by one of its participants' link handles (the /portal/sign-in page's `business`). */
export async function resolveBusiness(idOrHandle: string): Promise<{ id: string; name: string } | null> {
  const select = { id: true, name: true };
  const b = await db.business.findUnique({ where: { id: idOrHandle }, select });
  if (b) return b;
  const h = await db.linkHandle.findUnique({ where: { handle: idOrHandle.toLowerCase() }, select: { business: { select } } });
  return h?.business ?? null;
}

/** Staff's "Email portal link": a PORTAL_SIGN_IN email to a participant of their business. */
export async function emailPortalLink(businessId: string, participantId: string) {
  const p = await db.participant.findFirst({ where: { id: participantId, businessId }, select: { id: true, environment: true, email: true } });
  if (!p) throw notFound("Participant");
  if (!p.email) throw new AppError("VALIDATION_ERROR", "This participant has no email address", [{ path: "participantId", message: "No email address" }]);
  const [emailId] = await db.$transaction(async (tx) => queueEmails(await txSql(tx), { businessId, environment: p.environment }, [{ kind: "PORTAL_SIGN_IN", participantId: p.id, data: { requestedBy: "STAFF" } }]));
  return { queued: emailId !== undefined, emailId: emailId ?? null };
}
