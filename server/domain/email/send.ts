// The email outbox's send side, run by the EMAIL_SEND job (jobs/handlers.ts) in the email pool.
// prepareEmail (its own transaction) checks that the email may still go (the referrer not erased
// nor unsubscribed, the kind still on), renders it once (a digest gathers its rewards then) and
// keeps what it rendered, so that every retry sends the same message under the same Message-ID;
// sendPrepared sends it outside any transaction; recordSent marks it in the job's transaction.
import { db, type Tx } from "../../db/client";
import type { Email } from "../../db/generated";
import { env } from "../../shared/env";
import { toBigInt } from "../../shared/money";
import { readAsset } from "../assets/read";
import { createPortalLink } from "../portal-links/links";
import { emailContent, oneLine, PORTAL_LINK_SLOT } from "./content";
import { isReferrerKind } from "./kinds";
import { renderEmail } from "./render";
import { smtpTransport } from "./transport";
import { unsubscribeUrl } from "./unsubscribe";

interface PreparedEmail {
  email: Email;
  from: { name: string; address: string };
  replyTo: string | null;
  unsubscribeUrl: string | null;
}

const HOUR_MS = 3_600_000;

/** The Message-ID of an email: stable across retries, so a receiver can drop a second copy. */
const messageIdOf = (emailId: string) => `<${emailId}@${new URL(env.appUrl).hostname || "localhost"}>`;

/** EMAIL_FROM's address and name, the business's fromName replacing the name. */
function sender(fromName: string | null | undefined): { name: string; address: string } {
  const m = /^\s*(.*?)\s*<([^<>\s]+)>\s*$/.exec(env.emailFrom);
  const address = m ? m[2] : env.emailFrom.trim();
  const name = oneLine(fromName || (m ? m[1].replace(/^"|"$/g, "") : "") || "Referrals", 100);
  return { name, address };
}

/** Why a queued email must not go now, or null. */
async function suppressedBecause(tx: Tx, e: Email, referrerOff: string[]): Promise<string | null> {
  if (!e.participantId || !isReferrerKind(e.kind)) return null;
  if (referrerOff.includes(e.kind)) return "The business turned this email off";
  const optOut = await tx.emailOptOut.findUnique({ where: { participantId_kind: { participantId: e.participantId, kind: e.kind } } });
  return optOut ? "The recipient unsubscribed from this email" : null;
}

/** A participant's rewards paid into the balance in (`after`, `until`], as a digest lists them. */
async function paidRewards(client: Tx, e: Email, after: Date, until: Date) {
  const rows = await client.reward.findMany({
    where: { participantId: e.participantId!, businessId: e.businessId, environment: e.environment, status: "PAID", paidAt: { gt: after, lte: until } },
    orderBy: { paidAt: "asc" },
    take: 200,
    select: { id: true, amountWei: true, kind: true, paidAt: true },
  });
  return rows.map((r) => ({ rewardId: r.id, amountWei: toBigInt(r.amountWei), kind: r.kind, createdAt: r.paidAt! }));
}

/** Gathers a digest's rewards: earned (paid into the balance, `paidAt`) since the previous digest gathered, or the hour before this one was written. */
async function gatherRewards(tx: Tx, e: Email, now: Date) {
  const prev = await tx.email.findFirst({ where: { participantId: e.participantId, kind: "REWARD_EARNED", gatheredAt: { not: null } }, orderBy: { gatheredAt: "desc" }, select: { gatheredAt: true } });
  return paidRewards(tx, e, prev?.gatheredAt ?? new Date(e.createdAt.getTime() - HOUR_MS), now);
}

/** What an email kept NOT_CONFIGURED says (no SMTP_URL: nothing was sent, nothing stored rendered); an earned reward's gathers the rewards of its hour, as the digest would. */
async function keptContent(e: Email, businessName: string) {
  const participant = e.participantId ? await db.participant.findUnique({ where: { id: e.participantId }, select: { name: true } }) : null;
  const rows = e.kind === "REWARD_EARNED" && e.participantId ? await paidRewards(db, e, new Date(e.createdAt.getTime() - 60_000), new Date(e.createdAt.getTime() + HOUR_MS)) : [];
  const asset = await readAsset(db, e.businessId, e.environment);
  return emailContent({ kind: e.kind, environment: e.environment, businessId: e.businessId, businessName, name: participant?.name ?? null, data: e.data as Record<string, unknown>, asset, rewards: rows.length ? rows : undefined });
}

const businessNameOf = async (businessId: string) => (await db.business.findUniqueOrThrow({ where: { id: businessId }, select: { name: true } })).name;

/** Whether an email was kept NOT_CONFIGURED without being rendered (its subject and body are made when read). */
export const isKept = (e: Email) => e.html === null && e.status === "NOT_CONFIGURED";

/** An email kept NOT_CONFIGURED, rendered when staff read it. */
export async function renderKept(e: Email): Promise<{ subject: string; html: string; text: string }> {
  const name = await businessNameOf(e.businessId);
  const content = await keptContent(e, name);
  const unsub = e.participantId && isReferrerKind(e.kind) ? unsubscribeUrl(e.participantId, e.kind) : null;
  const { html, text } = await renderEmail({ content, unsubscribeUrl: unsub, footer: `${oneLine(name, 100)} sent you this email through its referral program.` });
  return { subject: content.subject, html, text };
}

/** The subjects of listed emails kept NOT_CONFIGURED (the others carry the subject they were sent with). */
export async function keptSubjects(rows: readonly Email[]): Promise<Map<string, string>> {
  const kept = rows.filter(isKept);
  const out = new Map<string, string>();
  if (!kept.length) return out;
  const name = await businessNameOf(kept[0].businessId);
  for (const e of kept) out.set(e.id, (await keptContent(e, name)).subject);
  return out;
}

/** Readies a due email (null: nothing to send: already done, or suppressed now). */
export async function prepareEmail(emailId: string, now = new Date()): Promise<PreparedEmail | null> {
  return db.$transaction(async (tx) => {
    const [locked] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "Email" WHERE id = ${emailId} AND status = 'QUEUED' FOR UPDATE`;
    if (!locked) return null;
    const e = await tx.email.findUniqueOrThrow({ where: { id: emailId } });
    const [business, settings, participant, asset] = await Promise.all([
      tx.business.findUniqueOrThrow({ where: { id: e.businessId }, select: { name: true } }),
      tx.notificationSettings.findUnique({ where: { businessId_environment: { businessId: e.businessId, environment: e.environment } } }),
      e.participantId ? tx.participant.findUnique({ where: { id: e.participantId }, select: { email: true, name: true } }) : null,
      readAsset(tx, e.businessId, e.environment),
    ]);
    const suppress = (error: string) => tx.email.update({ where: { id: e.id }, data: { status: "SUPPRESSED", error, gatheredAt: e.kind === "REWARD_EARNED" ? now : undefined } }).then(() => null);
    if (e.participantId && !participant?.email) return suppress("The participant was erased or has no email");
    const why = await suppressedBecause(tx, e, settings?.referrerOff ?? []);
    if (why) return suppress(why);
    const unsub = e.participantId && isReferrerKind(e.kind) ? unsubscribeUrl(e.participantId, e.kind) : null;
    let ready = e;
    if (e.html === null) {
      const rewards = e.kind === "REWARD_EARNED" ? await gatherRewards(tx, e, now) : undefined;
      if (rewards && rewards.length === 0) return suppress("No earned reward left to report (reversed or refused meanwhile)");
      const content = emailContent({ kind: e.kind, environment: e.environment, businessId: e.businessId, businessName: business.name, name: participant?.name ?? null, data: e.data as Record<string, unknown>, asset, rewards });
      const footer = `${oneLine(business.name, 100)} sent you this email through its referral program.`;
      const { html, text } = await renderEmail({ content, unsubscribeUrl: unsub, footer });
      const data = rewards ? { ...(e.data as object), rewardIds: rewards.map((r) => r.rewardId) } : undefined;
      ready = await tx.email.update({
        where: { id: e.id },
        data: { subject: content.subject, html, text, to: participant?.email ?? e.to, ...(data ? { data, gatheredAt: now } : {}) },
      });
    }
    return { email: ready, from: sender(settings?.fromName), replyTo: settings?.replyTo ?? null, unsubscribeUrl: unsub };
  });
}

/** Sends a prepared email through SMTP_URL; "NOT_CONFIGURED" when there is none. Throws when the server refuses or does not answer. */
export async function sendPrepared(p: PreparedEmail): Promise<"SENT" | "NOT_CONFIGURED"> {
  const transport = smtpTransport();
  if (!transport) return "NOT_CONFIGURED";
  const e = p.email;
  let { text, html } = e;
  if (e.kind === "PORTAL_SIGN_IN" && e.participantId) {
    // The one-time link is made as it is sent and kept nowhere but in the message.
    const link = await createPortalLink({ businessId: e.businessId, environment: e.environment, participantId: e.participantId });
    text = (text ?? "").replaceAll(PORTAL_LINK_SLOT, link.url);
    html = (html ?? "").replaceAll(PORTAL_LINK_SLOT, link.url);
  }
  await transport.sendMail({
    from: p.from,
    to: e.to,
    replyTo: p.replyTo ?? undefined,
    subject: e.subject,
    text: text ?? "",
    html: html ?? "",
    messageId: messageIdOf(e.id),
    headers: p.unsubscribeUrl ? { "List-Unsubscribe": `<${p.unsubscribeUrl}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" } : {},
  });
  return "SENT";
}

/** A failed attempt, kept on the email while its job retries. */
export async function recordAttemptFailed(emailId: string, error: string): Promise<void> {
  await db.email.updateMany({ where: { id: emailId, status: "QUEUED" }, data: { attempts: { increment: 1 }, error: oneLine(error, 500) } });
}

/** The outcome of a sent (or not configured) email, in the job's transaction. */
export async function recordSent(tx: Tx, emailId: string, status: "SENT" | "NOT_CONFIGURED", now = new Date()): Promise<void> {
  await tx.email.updateMany({
    where: { id: emailId, status: "QUEUED" },
    data: { status, attempts: { increment: status === "SENT" ? 1 : 0 }, sentAt: status === "SENT" ? now : null, error: status === "SENT" ? null : "SMTP_URL is not set: the email was not sent" },
  });
}

/** The job's last attempt failed: the email is FAILED with the reason. */
export async function recordFailed(tx: Tx, emailId: string, error: string): Promise<void> {
  // The last attempt's own error (recordAttemptFailed) says more than the job's.
  await tx.$executeRaw`UPDATE "Email" SET status = 'FAILED', error = COALESCE(error, ${oneLine(error, 500)}), "updatedAt" = now() WHERE id = ${emailId} AND status = 'QUEUED'`;
}

export const emailIdOf = (payload: unknown): string | null => {
  const id = (payload as { emailId?: unknown } | null)?.emailId;
  return typeof id === "string" ? id : null;
};
