// Resolves the code of a link (/r/:code) to its participant and the environment's link settings,
// through a small in-process cache: a redirect reads the database only on a miss. Referral codes
// are unique across the installation; a handle is used when exactly one participant has it (a
// business's TEST and LIVE participants of the same handle: the one whose environment has a
// destination, LIVE first). Cached for LINK_CACHE_SECONDS; a config change forgets its business.
import { LRUCache } from "lru-cache";
import { db } from "../../db/client";
import { env } from "../../shared/env";
import type { Environment } from "../../shared/environment";
import { readConfig } from "../effective-config/load";

export interface LinkTarget {
  participantId: string;
  businessId: string;
  environment: Environment;
  referralCode: string;
  destination: string | null;
  linkParam: string;
  attribution: "FIRST_CLICK" | "LAST_CLICK";
}

const CODE_RE = /^[A-Za-z0-9_.-]{1,64}$/;
type Entry = { target: LinkTarget | null };

// On globalThis: the route bundles and the config service must share one cache per process.
const g = globalThis as unknown as { __rtsLinkCache?: LRUCache<string, Entry> };
const cache = () => (g.__rtsLinkCache ??= new LRUCache<string, Entry>({ max: 10_000, ttl: env.linkCacheSeconds * 1000 || 1 }));

/** Drops the cached links of a business (its destination, parameter or attribution changed). */
export function forgetLinkTargets(businessId: string) {
  const c = cache();
  for (const [k, v] of c.entries()) if (!v.target || v.target.businessId === businessId) c.delete(k);
}

async function load(code: string): Promise<LinkTarget | null> {
  const select = { id: true, businessId: true, environment: true, referralCode: true } as const;
  // The code first, on its own: handles other businesses gave their participants (any number of
  // them) never push the code's owner out of the answer.
  const byCode = await db.participant.findFirst({ where: { referralCode: code.toUpperCase() }, select });
  // A handle leads to the business that first gave it (LinkHandle, migration 0168): another
  // business's participant with the same handle neither takes nor breaks the link.
  const owner = byCode ? null : await db.linkHandle.findUnique({ where: { handle: code.toLowerCase() }, select: { businessId: true } });
  const candidates = byCode ? [byCode] : owner ? await db.participant.findMany({ where: { handle: code.toLowerCase(), businessId: owner.businessId }, select, take: 5 }) : [];
  const targets = await Promise.all(
    (byCode ? [byCode] : candidates).map(async (p) => {
      const c = await readConfig(db, p.businessId, p.environment);
      return {
        participantId: p.id,
        businessId: p.businessId,
        environment: p.environment,
        referralCode: p.referralCode,
        destination: c?.linkDestinationUrl ?? null,
        linkParam: c?.linkParam ?? "ref",
        attribution: (c?.attribution ?? "LAST_CLICK") as LinkTarget["attribution"],
      } satisfies LinkTarget;
    }),
  );
  if (byCode) return targets[0];
  if (!targets.length) return null;
  const rank = (t: LinkTarget) => (t.destination ? 2 : 0) + (t.environment === "LIVE" ? 1 : 0);
  return targets.sort((a, b) => rank(b) - rank(a))[0] ?? null;
}

/** The link's participant and settings, or null for an unknown code. */
export async function resolveLink(code: string): Promise<LinkTarget | null> {
  if (!CODE_RE.test(code)) return null;
  const key = code.toLowerCase();
  const c = cache();
  const hit = c.get(key);
  if (hit) return hit.target;
  const target = await load(code);
  c.set(key, { target });
  return target;
}

const FALLBACK_KEY = "\u0000fallback";

/**
 * Where an unknown code goes: LINK_FALLBACK_URL, else the installation's destination when exactly
 * one is configured (a single business); null otherwise.
 */
export async function fallbackDestination(): Promise<string | null> {
  if (env.linkFallbackUrl) return env.linkFallbackUrl;
  const c = cache();
  const hit = c.get(FALLBACK_KEY);
  if (hit) return hit.target?.destination ?? null;
  const rows = await db.$queryRawUnsafe<{ url: string }[]>(
    `SELECT DISTINCT url FROM (
       SELECT "linkDestinationUrl" AS url FROM "EnvironmentConfig" WHERE "linkDestinationUrl" IS NOT NULL
       UNION ALL
       SELECT b."linkDestinationUrl" FROM "BusinessConfig" b WHERE b."linkDestinationUrl" IS NOT NULL
          AND (SELECT count(*) FROM "EnvironmentConfig" e WHERE e."businessId" = b."businessId") < 2
     ) s LIMIT 2`,
  );
  const url = rows.length === 1 ? rows[0].url : null;
  c.set(FALLBACK_KEY, { target: url ? ({ destination: url } as LinkTarget) : null });
  return url;
}
