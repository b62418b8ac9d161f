// Cross-site request forgery, beyond SameSite cookies: a state-changing request authenticated
// by a cookie (no Authorization header) must come from one of the app's own origins. Refused
// with 403 CSRF when Sec-Fetch-Site says "cross-site", or when an Origin header names another
// origin (or is "null"). Requests with Authorization: Bearer are not cookie-authenticated and
// a browser never attaches that header cross-site on its own.
import { AppError } from "../shared/errors";
import { env } from "../shared/env";

/** The origins the dashboard is served from (APP_URL, localhost forms, TRUSTED_ORIGINS). */
export function appOrigins(): string[] {
  const port = env.port;
  const list = [env.appUrl, `http://localhost:${port}`, `http://127.0.0.1:${port}`];
  list.push(...env.trustedOrigins);
  return list;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function assertSameOrigin(method: string, headers: Headers): void {
  if (SAFE_METHODS.has(method.toUpperCase())) return;
  if (!headers.get("cookie") || headers.get("authorization")) return;
  if ((headers.get("sec-fetch-site") ?? "").toLowerCase() === "cross-site") {
    throw new AppError("CSRF", "Cross-site request refused: a state-changing request with a session cookie must come from the dashboard's own origin");
  }
  const origin = headers.get("origin");
  if (origin === null) return;
  const own = appOrigins().map((o) => o.toLowerCase());
  if (!own.includes(origin.toLowerCase().replace(/\/+$/, ""))) {
    throw new AppError("CSRF", `Cross-site request refused: Origin ${origin} is not this app's origin`);
  }
}
