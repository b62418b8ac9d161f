// The wrapper of the portal's JSON API (/portal/api/*), like withSdkKey for the SDK: CORS
// preflight, method, portal session (cookie or bearer), CSRF for cookie-authenticated writes,
// a rate limit per session, JSON body, then the handler; every failure in the contract's error
// shape. Cross-origin answers are readable only from the business's portal origins.
import { assertSameOrigin } from "../auth/csrf";
import { portalOrigins } from "../domain/portal/origins";
import type { PortalAuth } from "../shared/portal-auth";
import { consumeRateLimit } from "../sdk/rate-limit";
import { originAllowed, requestOrigin } from "../sdk/origin";
import { readJson } from "../sdk/with-sdk-key";
import { AppError, errorResponse } from "../shared/errors";
import { assertCleanUrl } from "../shared/json-guard";
import { requirePortalAuth } from "./auth";

type Method = "GET" | "POST";
interface PortalContext {
  req: Request;
  url: URL;
  auth: PortalAuth;
  body: unknown;
}
export type PortalHandler = (ctx: PortalContext) => Promise<{ status?: number; body: unknown }>;

async function corsFor(req: Request, auth: PortalAuth | null): Promise<Record<string, string>> {
  const origin = req.headers.get("origin");
  if (!origin || !auth) return origin ? { Vary: "Origin" } : {};
  const o = requestOrigin(req.headers);
  const allowed = o !== null && originAllowed(o, await portalOrigins(auth.businessId, auth.environment));
  return allowed ? { "Access-Control-Allow-Origin": origin, Vary: "Origin" } : { Vary: "Origin" };
}

/** A request that sent no body at all (no Content-Type, nothing to read). */
const bodiless = (req: Request) => !req.headers.get("content-type") && !Number(req.headers.get("content-length") ?? 0) && !req.headers.get("transfer-encoding");

/**
 * Route functions for one portal path; OPTIONS answers the preflight (the response itself is gated
 * by origin). `optionalBody`: a POST that takes no fields may come without a body.
 */
export function withPortalAuth(handlers: Partial<Record<Method, PortalHandler>>, opts: { optionalBody?: boolean } = {}): Record<Method | "OPTIONS", (req: Request) => Promise<Response>> {
  const allowed = Object.keys(handlers);
  const handle = async (req: Request): Promise<Response> => {
    let auth: PortalAuth | null = null;
    let rate: Record<string, string> = {};
    try {
      if (req.method === "OPTIONS") {
        return new Response(null, {
          status: 204,
          headers: {
            "Access-Control-Allow-Origin": req.headers.get("origin") ?? "*",
            "Access-Control-Allow-Methods": [...allowed, "OPTIONS"].join(", "),
            "Access-Control-Allow-Headers": "Authorization, Content-Type",
            "Access-Control-Max-Age": "86400",
            Vary: "Origin",
          },
        });
      }
      const handler = handlers[req.method as Method];
      if (!handler) throw new AppError("METHOD_NOT_ALLOWED", `Use ${allowed.join(" or ")} on this route`, undefined, { Allow: [...allowed, "OPTIONS"].join(", ") });
      assertSameOrigin(req.method, req.headers);
      auth = await requirePortalAuth(req.headers);
      const decision = await consumeRateLimit(`portal:${auth.sessionId}`, "PUBLISHABLE");
      rate = decision.headers;
      if (!decision.allowed) throw new AppError("RATE_LIMITED", "Too many requests for this portal session; retry after the delay in Retry-After");
      const url = new URL(req.url);
      assertCleanUrl(url);
      const body = req.method === "GET" || (opts.optionalBody && bodiless(req)) ? undefined : await readJson(req);
      const result = await handler({ req, url, auth, body });
      return Response.json(result.body, { status: result.status ?? 200, headers: { ...(await corsFor(req, auth)), ...rate, "Cache-Control": "no-store" } });
    } catch (e) {
      return errorResponse(e, { ...(await corsFor(req, auth).catch(() => ({}))), ...rate, "Cache-Control": "no-store" });
    }
  };
  return { GET: handle, POST: handle, OPTIONS: handle };
}

/** Query parameters as an object (list inputs are parsed by their zod schema). */
export const queryOf = (url: URL) => Object.fromEntries(url.searchParams);
