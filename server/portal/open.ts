// GET /portal/open?token=…: the link a portal session answers with. Exchanges the token for the
// portal cookie (HttpOnly, SameSite=Lax, Path=/portal, Secure outside localhost) and redirects
// to /portal, so the token leaves the address bar and the browser history. The opening device's
// visitor hash is kept with the session (the referrer's own device, for the SAME_VISITOR signal).
import { visitorHash } from "../domain/links/visitor";
import { authenticatePortalToken, recordPortalVisit, takePortalOpening } from "../domain/portal/sessions";
import { requestClientIp } from "../shared/client-ip";
import { portalCookie } from "./auth";

export async function openPortal(req: Request): Promise<Response> {
  const token = new URL(req.url).searchParams.get("token");
  const found = await authenticatePortalToken(token).catch(() => null);
  // A single-use link (sign-in by email, the dashboard's link) opens once.
  const auth = found?.sessionId && !(await takePortalOpening(found.sessionId)) ? null : found;
  if (auth?.sessionId) await recordPortalVisit(auth.sessionId, visitorHash(requestClientIp(req.headers), req.headers.get("user-agent"), new Date()));
  const headers = new Headers({ Location: "/portal", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" });
  // An invalid link clears any older session so the page says the link expired.
  headers.append("Set-Cookie", auth ? portalCookie(token!, (auth.expiresAt.getTime() - Date.now()) / 1000) : portalCookie("", 0));
  return new Response(null, { status: 303, headers });
}
