// Resolves the caller of a /business or tRPC request.
// - Built-in provider (AUTH_URL unset or equal to APP_URL): Better Auth's api.getSession with the
//   request's headers, in process — no HTTP hop, so no shared rate-limit bucket. A credential no
//   session could have (not a Better Auth token's shape) is answered before Better Auth; a client
//   whose session-shaped credentials keep missing is refused further lookups for a while (429),
//   so a flood of made-up cookies or tokens does not queue other businesses' reads. A positive answer is
//   remembered per credential for SESSION_CACHE_SECONDS (default 5 s, 0 disables); every reuse
//   still reads the session row (one indexed read, instead of Better Auth's whole lookup), so a
//   sign-out or a revoked or expired session — through any instance — is refused at once. Only a
//   change to the user's own profile (name, email) can show up to that bound late.
// - External provider (AUTH_URL elsewhere): GET {AUTH_URL}/api/auth/get-session forwarding the
//   cookie / Bearer token and the caller's own address (X-Forwarded-For, from trusted proxies
//   only), so the provider's limits apply per client. Positive answers are cached for
//   SESSION_CACHE_SECONDS (default 5 s, 0 disables): a sign-out or revocation at the provider
//   takes effect here within that bound. Negative answers are never cached.
import { createHash } from "node:crypto";
import type { LRUCache } from "lru-cache";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { requestClientIp } from "../shared/client-ip";
import { db } from "../db/client";
import { activeMembership, type Membership } from "../domain/members/service";
import { AppError } from "../shared/errors";
import { env } from "../shared/env";
import { ttlCache } from "../shared/ttl-cache";

export interface SessionUser {
  id: string;
  email: string;
  name?: string;
  role?: string;
  /**
   * The user's active membership, when it was read in the same statement as the session row
   * (a remembered session); absent means "not read yet", null "none".
   */
  membership?: Membership | null;
}

export async function resolveSession(headers: Headers): Promise<SessionUser | null> {
  const cookie = headers.get("cookie");
  const authorization = headers.get("authorization");
  if (!cookie && !authorization) return null;
  return env.authIsSelf ? resolveInProcess(headers) : resolveRemote(headers, cookie, authorization);
}

const MAX_CACHED = 10_000;

/** Remembers a positive lookup, by a hash of the credentials the request carried, until `until`. */
function remember<T extends NonNullable<unknown>>(cache: LRUCache<string, T>, key: string, value: T, until: number) {
  const ttl = until - Date.now();
  if (ttl > 0) cache.set(key, value, { ttl });
}

const credentialKey = (cookie: string | null, authorization: string | null) =>
  createHash("sha256").update(`${cookie ?? ""}\n${authorization ?? ""}`).digest("hex");

const localCache = ttlCache<{ user: SessionUser; token: string }>({ max: MAX_CACHED });

// Better Auth's session tokens are 32 letters and digits; signed (cookie, some Bearer clients) they
// carry ".<HMAC>" too. Anything else cannot be a session: answered before any lookup.
const TOKEN = "[A-Za-z0-9]{32}";
const SIGNED_TOKEN_RE = new RegExp(`^${TOKEN}\\.[A-Za-z0-9+/_=-]{20,100}$`);
const RAW_TOKEN_RE = new RegExp(`^${TOKEN}$`);
const decoded = (v: string) => {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
};

/** True when the request carries a credential shaped like one of Better Auth's sessions. */
function sessionShaped(cookie: string | null, authorization: string | null, cookieName: string): boolean {
  if (authorization && /^bearer /i.test(authorization)) {
    const token = decoded(authorization.slice(7).trim());
    if (RAW_TOKEN_RE.test(token) || SIGNED_TOKEN_RE.test(token)) return true;
  }
  if (!cookie) return false;
  return cookie.split(";").some((part) => {
    const eq = part.indexOf("=");
    return eq > 0 && part.slice(0, eq).trim() === cookieName && SIGNED_TOKEN_RE.test(decoded(part.slice(eq + 1).trim()));
  });
}

/**
 * Lookups of session-shaped credentials that found no session, per client, in a window: past
 * the budget the client's unknown credentials are refused (429) without a lookup, so a flood of
 * made-up tokens costs the shared database nothing. Remembered sessions are still answered.
 */
export const SESSION_MISS_BUDGET = 30;
const missesPerClient = new RateLimiterMemory({ keyPrefix: "session-miss", points: SESSION_MISS_BUDGET, duration: 10 });

async function refuseFloodingClient(client: string) {
  const used = await missesPerClient.get(client);
  if (used && used.consumedPoints >= SESSION_MISS_BUDGET) {
    const retry = Math.max(1, Math.ceil(used.msBeforeNext / 1000));
    throw new AppError("RATE_LIMITED", "Too many requests with unknown session credentials from this client; retry later", undefined, { "Retry-After": String(retry) });
  }
}

async function resolveInProcess(headers: Headers): Promise<SessionUser | null> {
  const cookie = headers.get("cookie");
  const authorization = headers.get("authorization");
  const ttl = env.sessionCacheSeconds * 1000;
  const key = ttl > 0 ? credentialKey(cookie, authorization) : "";
  const hit = ttl > 0 ? localCache.get(key) : undefined;
  if (hit) {
    // The row decides: deleted (sign-out, revocation, user removed) or expired means no session.
    // The membership comes with it, fresh, in the same statement.
    // No member row: every column of the LEFT JOIN is null.
    type Row = { id: string; businessId: string; role: Membership["role"]; status: string } | { id: null; businessId: null; role: null; status: null };
    const rows = await db.$queryRaw<Row[]>`
      SELECT m.id, m."businessId", m.role::text AS role, m.status::text AS status
        FROM "session" s LEFT JOIN "Member" m ON m."userId" = s."userId"
       WHERE s.token = ${hit.token} AND s."expiresAt" > (now() AT TIME ZONE 'UTC')`;
    const row = rows[0];
    if (!row) {
      localCache.delete(key);
      return null;
    }
    return { ...hit.user, membership: activeMembership(row.id === null ? null : row) };
  }
  const { auth } = await import("./better-auth");
  if (!sessionShaped(cookie, authorization, (await auth.$context).authCookies.sessionToken.name)) return null;
  const client = requestClientIp(headers) ?? "unknown";
  await refuseFloodingClient(client);
  // Only the credentials: the lookup must not depend on anything else the client sent.
  const only = new Headers();
  if (cookie) only.set("cookie", cookie);
  if (authorization) only.set("authorization", authorization);
  let result: Awaited<ReturnType<typeof auth.api.getSession>>;
  try {
    result = await auth.api.getSession({ headers: only });
  } catch (e) {
    // Better Auth answers malformed credentials with an APIError (4xx): that is "no session".
    const status = (e as { statusCode?: number })?.statusCode;
    if (typeof status === "number" && status >= 400 && status < 500) {
      await missesPerClient.penalty(client);
      return null;
    }
    throw e;
  }
  const user = result?.user as (SessionUser & { role?: string | null }) | undefined;
  if (!user || typeof user.id !== "string") {
    await missesPerClient.penalty(client);
    return null;
  }
  const found: SessionUser = { id: user.id, email: user.email, name: user.name ?? undefined, role: user.role ?? undefined };
  const session = result?.session as { token?: unknown; expiresAt?: unknown } | undefined;
  if (ttl > 0 && typeof session?.token === "string") {
    const expires = session.expiresAt instanceof Date ? session.expiresAt.getTime() : Number.POSITIVE_INFINITY;
    remember(localCache, key, { user: found, token: session.token }, Math.min(Date.now() + ttl, expires));
  }
  return found;
}

const remoteCache = ttlCache<SessionUser>({ max: MAX_CACHED });

async function resolveRemote(headers: Headers, cookie: string | null, authorization: string | null): Promise<SessionUser | null> {
  const ttl = env.sessionCacheSeconds * 1000;
  const cacheKey = credentialKey(cookie, authorization);
  const hit = ttl > 0 ? remoteCache.get(cacheKey) : undefined;
  if (hit) return hit;

  const forward = new Headers();
  if (cookie) forward.set("cookie", cookie);
  if (authorization) forward.set("authorization", authorization);
  const ip = requestClientIp(headers);
  if (ip) forward.set("x-forwarded-for", ip);
  const ua = headers.get("user-agent");
  if (ua) forward.set("user-agent", ua.slice(0, 512));
  let res: Response;
  try {
    res = await fetch(`${env.authUrl}/api/auth/get-session`, { headers: forward, cache: "no-store", signal: AbortSignal.timeout(5000) });
  } catch (e) {
    // Operators find the cause in the log; people see what it means for them.
    console.error(`session lookup at ${env.authUrl}/api/auth/get-session failed`, e);
    throw new AppError("SERVICE_UNAVAILABLE", "Sign-in cannot be checked right now. Try again in a moment.");
  }
  if (res.status === 401 || res.status === 404) return null;
  if (res.status === 429) {
    // The provider limits this client (not everybody): an answer about this caller only.
    throw new AppError("RATE_LIMITED", "Too many sign-in checks from this client; retry later", undefined, { "Retry-After": res.headers.get("retry-after") ?? "10" });
  }
  if (!res.ok) {
    console.error(`session lookup at ${env.authUrl}/api/auth/get-session answered ${res.status}`);
    throw new AppError("SERVICE_UNAVAILABLE", "Sign-in cannot be checked right now. Try again in a moment.");
  }
  const body = (await res.json().catch(() => null)) as { user?: SessionUser } | null;
  const user = body?.user;
  if (!user || typeof user.id !== "string") return null;
  if (ttl > 0) remember(remoteCache, cacheKey, user, Date.now() + ttl);
  return user;
}
