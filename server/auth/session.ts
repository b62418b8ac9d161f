// Resolves the caller of a /business or tRPC request.
// - Built-in provider (AUTH_URL unset or equal to APP_URL): Better Auth's api.getSession with the
//   request's headers, in process — no HTTP hop, so no shared rate-limit bucket, and a garbage
//   cookie costs one indexed lookup and never affects another user.
// - External provider (AUTH_URL elsewhere): GET {AUTH_URL}/api/auth/get-session forwarding the
//   cookie / Bearer token and the caller's own address (X-Forwarded-For, from trusted proxies
//   only), so the provider's limits apply per client. Positive answers are cached for
//   SESSION_CACHE_SECONDS (default 5 s, 0 disables): a sign-out or revocation at the provider
//   takes effect here within that bound. Negative answers are never cached.
import { createHash } from "node:crypto";
import { requestClientIp } from "../shared/client-ip";
import { AppError } from "../shared/errors";
import { env } from "../shared/env";

export interface SessionUser {
  id: string;
  email: string;
  name?: string;
  role?: string;
}

export async function resolveSession(headers: Headers): Promise<SessionUser | null> {
  const cookie = headers.get("cookie");
  const authorization = headers.get("authorization");
  if (!cookie && !authorization) return null;
  return env.authIsSelf ? resolveInProcess(headers) : resolveRemote(headers, cookie, authorization);
}

async function resolveInProcess(headers: Headers): Promise<SessionUser | null> {
  const { auth } = await import("./better-auth");
  // Only the credentials: the lookup must not depend on anything else the client sent.
  const only = new Headers();
  for (const name of ["cookie", "authorization"]) {
    const v = headers.get(name);
    if (v) only.set(name, v);
  }
  let result: Awaited<ReturnType<typeof auth.api.getSession>>;
  try {
    result = await auth.api.getSession({ headers: only });
  } catch (e) {
    // Better Auth answers malformed credentials with an APIError (4xx): that is "no session".
    const status = (e as { statusCode?: number })?.statusCode;
    if (typeof status === "number" && status >= 400 && status < 500) return null;
    throw e;
  }
  const user = result?.user as (SessionUser & { role?: string | null }) | undefined;
  if (!user || typeof user.id !== "string") return null;
  return { id: user.id, email: user.email, name: user.name ?? undefined, role: user.role ?? undefined };
}

const MAX_CACHED = 10_000;
const cache = new Map<string, { user: SessionUser; until: number }>();

async function resolveRemote(headers: Headers, cookie: string | null, authorization: string | null): Promise<SessionUser | null> {
  const ttl = env.sessionCacheSeconds * 1000;
  const cacheKey = createHash("sha256").update(`${cookie ?? ""}\n${authorization ?? ""}`).digest("hex");
  const hit = cache.get(cacheKey);
  if (hit && hit.until > Date.now()) return hit.user;
  if (hit) cache.delete(cacheKey);

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
  if (ttl > 0) {
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(cacheKey, { user, until: Date.now() + ttl });
  }
  return user;
}
