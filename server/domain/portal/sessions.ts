// Portal sessions: a secret API key creates a short-lived token for one participant of its
// business and environment; the token (only its SHA-256 is stored) opens the portal as a cookie
// or authenticates GET /portal/api/* as a bearer token. authenticatePortalToken is the one check
// every portal route (and any later one) runs: a revoked or expired session, or one whose key was
// revoked or expired, is refused on the very next request (no cache).
import { db } from "../../db/client";
import { AppError, notFound } from "../../shared/errors";
import { sha256Hex } from "../../shared/ids";
import type { PortalAuth } from "../../shared/portal-auth";
import { newPortalToken, portalOpenUrl } from "../portal-links/links";
import type { Scope } from "../../shared/scope";
import type { CreatePortalSessionInput, PortalSessionOutput } from "./schemas";

const TOKEN_RE = /^pt_(test|live)_[0-9A-Za-z]{43}$/;


export async function createPortalSession(scope: Scope, input: CreatePortalSessionInput, now = new Date()): Promise<PortalSessionOutput> {
  if (!scope.apiKeyId) throw new AppError("FORBIDDEN", "Portal sessions are created with a secret API key");
  const where = { businessId: scope.businessId, environment: scope.environment };
  const participant = await db.participant.findFirst({
    where: input.participantId !== undefined ? { ...where, id: input.participantId } : input.userId !== undefined ? { ...where, externalId: input.userId } : { ...where, email: input.email },
    select: { id: true },
  });
  if (!participant) throw notFound("Participant");
  const token = newPortalToken(scope.environment);
  const expiresAt = new Date(now.getTime() + input.expiresInSeconds * 1000);
  await db.portalSession.create({
    data: { ...where, tokenHash: sha256Hex(token), participantId: participant.id, apiKeyId: scope.apiKeyId, returnUrl: input.returnUrl ?? null, expiresAt, createdAt: now },
  });
  return { url: portalOpenUrl(token), token, expiresAt: expiresAt.toISOString(), participantId: participant.id };
}

/** DELETE /sdk/participants/portal-sessions/:token: ends a session of the key's business and environment (idempotent). */
export async function revokePortalSession(scope: Scope, token: string) {
  const row = TOKEN_RE.test(token)
    ? await db.portalSession.findFirst({ where: { tokenHash: sha256Hex(token), businessId: scope.businessId, environment: scope.environment } })
    : null;
  if (!row) throw notFound("Portal session");
  const revokedAt = row.revokedAt ?? new Date();
  if (!row.revokedAt) await db.portalSession.updateMany({ where: { id: row.id, revokedAt: null }, data: { revokedAt } });
  return { participantId: row.participantId, expiresAt: row.expiresAt.toISOString(), revokedAt: revokedAt.toISOString(), revoked: true };
}

/** The session a token names when it is still good (live session, active key), else null. One statement: every portal request runs it. */
export async function authenticatePortalToken(token: string | null | undefined, now = new Date()): Promise<PortalAuth | null> {
  if (!token || !TOKEN_RE.test(token)) return null;
  const [s] = await db.$queryRaw<Array<{ id: string; businessId: string; environment: "TEST" | "LIVE"; participantId: string; returnUrl: string | null; expiresAt: Date }>>`
    SELECT s."id", s."businessId", s."environment"::text AS "environment", s."participantId", s."returnUrl", s."expiresAt"
      FROM "PortalSession" s LEFT JOIN "ApiKey" k ON k."id" = s."apiKeyId"
     WHERE s."tokenHash" = ${sha256Hex(token)} AND s."revokedAt" IS NULL AND s."expiresAt" > ${now}
       AND (s."apiKeyId" IS NULL OR (k."status" = 'ACTIVE' AND (k."expiresAt" IS NULL OR k."expiresAt" > ${now})))`;
  if (!s) return null;
  return { sessionId: s.id, businessId: s.businessId, environment: s.environment, participantId: s.participantId, returnUrl: s.returnUrl, expiresAt: new Date(s.expiresAt), readOnly: false };
}

/** /portal/open's check: a single-use link opens once (the first opening marks it); any other session opens while it lasts. */
export async function takePortalOpening(sessionId: string, now = new Date()): Promise<boolean> {
  const s = await db.portalSession.findUnique({ where: { id: sessionId }, select: { singleUse: true } });
  if (!s) return false;
  if (!s.singleUse) return true;
  const r = await db.portalSession.updateMany({ where: { id: sessionId, openedAt: null }, data: { openedAt: now } });
  return r.count === 1;
}

/** Remembers the device (visitor hash) that opened a session: the referrer's own, for SAME_VISITOR. */
export async function recordPortalVisit(sessionId: string, visitorHash: string) {
  await db.portalSession.updateMany({ where: { id: sessionId }, data: { visitorHash } });
}

/** A staff member's read-only view of one participant of their business (dashboard preview). */
export async function staffPreviewAuth(businessId: string, participantId: string): Promise<PortalAuth> {
  const p = await db.participant.findFirst({ where: { id: participantId, businessId }, select: { id: true, environment: true } });
  if (!p) throw notFound("Participant");
  return { sessionId: null, businessId, environment: p.environment, participantId: p.id, returnUrl: null, expiresAt: new Date(Date.now() + 3_600_000), readOnly: true };
}
