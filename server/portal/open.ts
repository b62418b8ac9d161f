// GET /portal/open?token=…: the link a portal session answers with. Exchanges the token for the
// portal cookie (HttpOnly, SameSite=Lax, Path=/portal, Secure outside localhost) and redirects
// to /portal, so the token leaves the address bar and the browser history.
import { authenticatePortalToken } from "../domain/portal/sessions";
import { portalCookie } from "./auth";

export async function openPortal(req: Request): Promise<Response> {
  const token = new URL(req.url).searchParams.get("token");
  const auth = await authenticatePortalToken(token).catch(() => null);
  const headers = new Headers({ Location: "/portal", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" });
  // An invalid link clears any older session so the page says the link expired.
  headers.append("Set-Cookie", auth ? portalCookie(token!, (auth.expiresAt.getTime() - Date.now()) / 1000) : portalCookie("", 0));
  return new Response(null, { status: 303, headers });
}
