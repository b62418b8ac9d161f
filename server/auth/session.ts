// Resolves the caller of a /business request by asking the session provider:
// GET {AUTH_URL}/api/auth/get-session, forwarding the session cookie or the Bearer token.
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
  const forward = new Headers();
  if (cookie) forward.set("cookie", cookie);
  if (authorization) forward.set("authorization", authorization);
  let res: Response;
  try {
    res = await fetch(`${env.authUrl}/api/auth/get-session`, { headers: forward, cache: "no-store", signal: AbortSignal.timeout(5000) });
  } catch {
    throw new AppError("SERVICE_UNAVAILABLE", "The session provider is unreachable");
  }
  if (res.status === 401 || res.status === 404) return null;
  if (!res.ok) throw new AppError("SERVICE_UNAVAILABLE", `The session provider answered ${res.status}`);
  const body = (await res.json().catch(() => null)) as { user?: SessionUser } | null;
  const user = body?.user;
  if (!user || typeof user.id !== "string") return null;
  return user;
}
