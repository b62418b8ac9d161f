// Portal authentication, one function for every portal route (and any later one): the
// participant's portal cookie, or Authorization: Bearer <portal token>. Answers the session or
// throws 401 UNAUTHENTICATED.
import { authenticatePortalToken } from "../domain/portal/sessions";
import type { PortalAuth } from "../shared/portal-auth";
import { AppError } from "../shared/errors";
import { env } from "../shared/env";

export const PORTAL_COOKIE = "portal_session";

function cookieValue(headers: Headers, name: string): string | null {
  for (const part of (headers.get("cookie") ?? "").split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return null;
}

/** The bearer token when one is sent, else the portal cookie. */
export function portalTokenOf(headers: Headers): { token: string | null; via: "bearer" | "cookie" | null } {
  const auth = headers.get("authorization");
  if (auth !== null) return { token: /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1] ?? "", via: "bearer" };
  const c = cookieValue(headers, PORTAL_COOKIE);
  return c ? { token: c, via: "cookie" } : { token: null, via: null };
}

export async function requirePortalAuth(headers: Headers): Promise<PortalAuth> {
  const { token } = portalTokenOf(headers);
  if (!token) throw new AppError("UNAUTHENTICATED", "A portal session is required: open the portal link again, or send Authorization: Bearer <portal token>");
  const auth = await authenticatePortalToken(token);
  if (!auth) throw new AppError("UNAUTHENTICATED", "The portal session is invalid, expired or revoked: ask for a new link");
  return auth;
}

/** Secure outside localhost (a plain-http local app could not keep a Secure cookie). */
function secureCookie(): boolean {
  const u = new URL(env.appUrl);
  return u.protocol === "https:" || !["localhost", "127.0.0.1", "[::1]"].includes(u.hostname);
}

export function portalCookie(token: string, maxAgeSeconds: number): string {
  return `${PORTAL_COOKIE}=${token}; Path=/portal; HttpOnly; SameSite=Lax; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}${secureCookie() ? "; Secure" : ""}`;
}
