// The fallback of attribution: a referral apply or an event that names no click id is given the
// click of its request's visitor (IP + user agent, hashed per UTC day: only the same day's clicks
// match), the first or the last per the environment's `attribution`, so that it then goes
// through the rules core exactly as a named click does (creditingClick). A click id the
// integration names is never replaced, and a referrer the request names is never overridden by
// a guess: with one named, only the clicks on that referrer's own link are considered.
import { db } from "../../db/client";
import { requestClientIp } from "../../shared/client-ip";
import type { Scope } from "../../shared/scope";
import { readConfig } from "../effective-config/load";
import { flushClicks } from "./clicks";
import { isBotUserAgent, visitorHash } from "./visitor";

/** Who sent the request: the client IP as the server stamped it (trusted proxies only) and the user agent. */
export interface Visitor {
  ip: string | null;
  userAgent: string | null;
}

export const visitorOf = (req: Request): Visitor => ({ ip: requestClientIp(req.headers), userAgent: req.headers.get("user-agent") });

/**
 * Only a browser has clicked a link: every browser's user agent starts "Mozilla/", a server's
 * HTTP client's does not, so calls from an integration's backend cost no lookup.
 */
const isBrowser = (v: Visitor | undefined): v is Visitor & { ip: string } => !!v?.ip && !!v.userAgent?.startsWith("Mozilla/") && !isBotUserAgent(v.userAgent);

/** The referrer value an item names as the lookup's key ("" for none); too long a value matches no participant. */
const refKey = (referrer: string | null | undefined) => referrer?.trim() ?? "";

/**
 * Per referrer value named (null: none), the visitor's first or last non-bot click of the
 * business and environment made at or before `now`; with a referrer named, on that referrer's
 * link only (by referral code or handle, as the rules core reads it). One statement for a batch.
 */
async function visitorClicks(scope: Scope, visitor: Visitor | undefined, referrers: readonly (string | null | undefined)[], now = new Date()): Promise<Map<string, string>> {
  // No address or no browser, no visitor: a request not served by our HTTP server, or sent by a
  // backend, names nobody.
  if (!isBrowser(visitor) || !referrers.length) return new Map();
  const keys = [...new Set(referrers.map(refKey))].filter((k) => k.length <= 64);
  if (!keys.length) return new Map();
  const cfg = await readConfig(db, scope.businessId, scope.environment);
  const first = cfg?.attribution === "FIRST_CLICK";
  // A click this instance still buffers is written first, so the lookup finds it.
  await flushClicks();
  const rows = await db.$queryRawUnsafe<{ ref: string; id: string }[]>(
    `SELECT r.ref, pick.id FROM unnest($4::text[]) AS r(ref)
     CROSS JOIN LATERAL (
       SELECT c.id FROM "LinkClick" c JOIN "Participant" p ON p.id = c."participantId"
        WHERE c."businessId" = $1 AND c.environment = $2::"Environment" AND c."visitorHash" = $3 AND NOT c.bot AND c."createdAt" <= $5::timestamp(3)
          AND (r.ref = '' OR p."referralCode" = upper(r.ref) OR p.handle = lower(r.ref))
        ORDER BY ${first ? `c."createdAt" ASC, c.id ASC` : `c."createdAt" DESC, c.id DESC`} LIMIT 1) pick`,
    scope.businessId,
    scope.environment,
    visitorHash(visitor.ip, visitor.userAgent, now),
    keys,
    now.toISOString(),
  );
  return new Map(rows.map((r) => [r.ref, r.id]));
}

/** Fills the click id of the items that name none, in place (a batch: one lookup). */
export async function fillVisitorClicks<T extends { clickId?: string | null }>(scope: Scope, visitor: Visitor | undefined, items: T[], referrerOf: (item: T) => string | null | undefined, now = new Date()): Promise<void> {
  const open = items.filter((i) => !i.clickId);
  if (!open.length || !isBrowser(visitor)) return;
  const found = await visitorClicks(scope, visitor, open.map(referrerOf), now);
  for (const i of open) {
    const id = found.get(refKey(referrerOf(i)));
    if (id) i.clickId = id;
  }
}
