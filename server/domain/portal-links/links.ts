// Portal links: the token of a portal session (only its SHA-256 is stored) and the address that
// opens it. Shared by the sessions an API key creates (portal/sessions.ts) and the links made
// without one: a referrer's sign-in by email and the dashboard's "Copy portal link".
import { db } from "../../db/client";
import { env } from "../../shared/env";
import { notFound } from "../../shared/errors";
import { randomBase62, sha256Hex } from "../../shared/ids";

/** A new portal session token of an environment. */
export const newPortalToken = (environment: "TEST" | "LIVE") => `pt_${environment.toLowerCase()}_${randomBase62(43)}`;

/** Where a session token is opened: exchanged for the portal cookie, then redirected to /portal. */
export const portalOpenUrl = (token: string) => `${env.appUrl}/portal/open?token=${encodeURIComponent(token)}`;

/** How long a link made without a key (sign-in by email, the dashboard's portal link) can be opened. */
const PORTAL_LINK_TTL_SECONDS = 24 * 3600;

/**
 * A portal link made without an API key: by the referrer's sign-in request or by staff from the
 * dashboard. Single use: /portal/open takes it once (portal/sessions.ts takePortalOpening), the cookie then carries the session.
 */
export async function createPortalLink(p: { businessId: string; environment: "TEST" | "LIVE"; participantId: string }, now = new Date()): Promise<{ url: string; expiresAt: string }> {
  const token = newPortalToken(p.environment);
  const expiresAt = new Date(now.getTime() + PORTAL_LINK_TTL_SECONDS * 1000);
  await db.portalSession.create({ data: { ...p, tokenHash: sha256Hex(token), apiKeyId: null, singleUse: true, expiresAt, createdAt: now } });
  return { url: portalOpenUrl(token), expiresAt: expiresAt.toISOString() };
}


/** The dashboard's "Copy portal link": a fresh single-use link for a participant of the business. */
export async function participantPortalLink(businessId: string, participantId: string) {
  const p = await db.participant.findFirst({ where: { id: participantId, businessId }, select: { id: true, environment: true } });
  if (!p) throw notFound("Participant");
  return createPortalLink({ businessId, environment: p.environment, participantId: p.id });
}
