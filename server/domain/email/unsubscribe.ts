// The unsubscribe link of every referrer email: `{APP_URL}/email/unsubscribe?token=…`, the token
// naming one participant and one kind, signed (HMAC-SHA256 with a key derived from the app
// secret) so that it can be neither forged nor turned into another participant's or kind's.
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { db } from "../../db/client";
import { env } from "../../shared/env";
import { isReferrerKind, type ReferrerKind } from "./kinds";

const key = () => Buffer.from(hkdfSync("sha256", env.authSecret, "", "email-unsubscribe", 32));
const sign = (participantId: string, kind: string) => createHmac("sha256", key()).update(`${participantId}\n${kind}`).digest("base64url");

export function unsubscribeToken(participantId: string, kind: ReferrerKind): string {
  return `${participantId}.${kind}.${sign(participantId, kind)}`;
}

export const unsubscribeUrl = (participantId: string, kind: ReferrerKind) => `${env.appUrl}/email/unsubscribe?token=${encodeURIComponent(unsubscribeToken(participantId, kind))}`;

/** The participant and kind a token names, or null when it is not one of ours. */
export function readUnsubscribeToken(token: string | null | undefined): { participantId: string; kind: ReferrerKind } | null {
  if (!token || token.length > 200) return null;
  const [participantId, kind, sig, ...rest] = token.split(".");
  if (rest.length || !participantId || !kind || !sig || !isReferrerKind(kind)) return null;
  const want = Buffer.from(sign(participantId, kind));
  const got = Buffer.from(sig);
  return want.length === got.length && timingSafeEqual(want, got) ? { participantId, kind } : null;
}

/** Turns the kind off for the participant (idempotent); the business's name for the page. */
export async function unsubscribe(t: { participantId: string; kind: ReferrerKind }): Promise<{ businessName: string } | null> {
  const p = await db.participant.findUnique({ where: { id: t.participantId }, select: { business: { select: { name: true } } } });
  if (!p) return null;
  await db.emailOptOut.upsert({ where: { participantId_kind: t }, create: t, update: {} });
  return { businessName: p.business.name };
}
