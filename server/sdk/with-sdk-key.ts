// The one wrapper every SDK route goes through (/track, /sdk/*). In order: CORS preflight,
// method, API key (x-service-api-key, then x-api-key, then Authorization: Bearer — the first
// present is the one validated), the route's scope (INSUFFICIENT_SCOPE), allowedOrigins, per-key
// rate limit (charged per event: see rate-limit.ts), URL and JSON body checks (≤ 32 KB, json-guard.ts), then
// the handler; every failure becomes the contract's error body. Handlers are plain functions
// of a context, so the produced (Request) => Response can be mounted anywhere.
import { db } from "../db/client";
import { authenticateApiKey, type AuthenticatedKey } from "../domain/api-keys/service";
import type { ApiKeyScope } from "../domain/api-keys/schemas";
import type { Scope } from "../shared/scope";
import { AppError, errorResponse } from "../shared/errors";
import { readCapped } from "../shared/http";
import { ttlCache } from "../shared/ttl-cache";
import { assertCleanJson, assertCleanUrl } from "../shared/json-guard";
import { originAllowed, requestOrigin } from "./origin";
import { consumeRateLimit } from "./rate-limit";

const MAX_BODY_BYTES = 32 * 1024;
type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

const ALLOWED_HEADERS = "Content-Type, Authorization, X-API-Key, X-Service-API-Key, Idempotency-Key";
const EXPOSED_HEADERS = "RateLimit, RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After";

export interface SdkContext {
  req: Request;
  url: URL;
  key: AuthenticatedKey;
  /** Everything written through this request carries this business, environment and key. */
  scope: Scope;
  /** The parsed JSON body (POST/PUT/PATCH); undefined for GET. */
  body: unknown;
}

type SdkResult = { status?: number; body: unknown; headers?: Record<string, string> };
export type SdkHandler = (ctx: SdkContext) => Promise<SdkResult>;

/** Keys whose lastUsedAt was written in the last minute. */
const touched = ttlCache<true>({ max: 10_000, ttlMs: 60_000 });

/** Keeps ApiKey.lastUsedAt roughly current (at most one write per key per minute per process, off the request path). */
function touchKey(apiKeyId: string) {
  if (touched.has(apiKeyId)) return;
  touched.set(apiKeyId, true);
  db.apiKey.updateMany({ where: { id: apiKeyId }, data: { lastUsedAt: new Date() } }).catch(() => touched.delete(apiKeyId));
}

/** The API key from the three header forms, in the contract's precedence. */
export function extractApiKey(headers: Headers): string | null {
  const service = headers.get("x-service-api-key");
  if (service !== null) return service.trim();
  const apiKey = headers.get("x-api-key");
  if (apiKey !== null) return apiKey.trim();
  const auth = headers.get("authorization");
  if (auth !== null) {
    const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
    return m ? m[1].trim() : "";
  }
  return null;
}

function corsHeaders(req: Request): Record<string, string> {
  const origin = req.headers.get("origin");
  if (!origin) return {};
  return { "Access-Control-Allow-Origin": origin, Vary: "Origin", "Access-Control-Expose-Headers": EXPOSED_HEADERS };
}

function preflight(req: Request, methods: string[]): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "Access-Control-Allow-Origin": req.headers.get("origin") ?? "*",
      "Access-Control-Allow-Methods": [...methods, "OPTIONS"].join(", "),
      "Access-Control-Allow-Headers": ALLOWED_HEADERS,
      "Access-Control-Max-Age": "86400",
      Vary: "Origin",
    },
  });
}

export async function readJson(req: Request, opaqueItemsAt?: string): Promise<unknown> {
  const type = req.headers.get("content-type") ?? "";
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(type.trim())) {
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send a JSON body with Content-Type: application/json");
  }
  const declared = Number(req.headers.get("content-length") ?? 0);
  if (declared > MAX_BODY_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", "The request body exceeds 32 KB");
  const text = req.body ? await readCapped(req, MAX_BODY_BYTES) : "";
  if (text === null) throw new AppError("PAYLOAD_TOO_LARGE", "The request body exceeds 32 KB");
  if (!text.trim()) throw new AppError("VALIDATION_ERROR", "A JSON body is required", [{ path: "", message: "empty body" }]);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError("INVALID_JSON", "The body is not valid JSON");
  }
  assertCleanJson(body, { opaqueItemsAt });
  return body;
}

export interface SdkRouteOptions {
  /** The scope a key needs for this route (publishable keys hold only track and referrals:write). */
  scope: ApiKeyScope;
  /** A batch field whose items are each checked (and fail) alone, by the handler. */
  perItemField?: string;
  /** What the request costs against the key's rate limit once its body is read (default 1: one event). */
  cost?: (body: unknown) => number;
}

/**
 * Builds the route functions for one SDK path: each HTTP method is answered (unsupported ones
 * with 405 in the contract's shape), OPTIONS with the CORS preflight.
 */
export function withSdkKey(handlers: Partial<Record<Method, SdkHandler>>, options: SdkRouteOptions): Record<Method | "OPTIONS", (req: Request) => Promise<Response>> {
  const allowed = Object.keys(handlers);
  const handle = async (req: Request): Promise<Response> => {
    const cors = corsHeaders(req);
    let rate: Record<string, string> = {};
    try {
      if (req.method === "OPTIONS") return preflight(req, allowed);
      const handler = handlers[req.method as Method];
      if (!handler) {
        throw new AppError("METHOD_NOT_ALLOWED", `Use ${allowed.join(" or ")} on this route`, undefined, { Allow: [...allowed, "OPTIONS"].join(", ") });
      }
      const secret = extractApiKey(req.headers);
      if (!secret) throw new AppError("INVALID_API_KEY", "An API key is required (x-service-api-key, x-api-key or Authorization: Bearer)");
      const key = await authenticateApiKey(secret);
      if (!key) throw new AppError("INVALID_API_KEY", "The API key is invalid, expired or revoked");
      touchKey(key.apiKeyId);
      if (!key.scopes.includes(options.scope)) {
        throw new AppError(
          "INSUFFICIENT_SCOPE",
          key.kind === "PUBLISHABLE"
            ? "A publishable key may only call POST /track, POST /track/batch and POST /sdk/referrals/apply; use a secret key on your server"
            : `This API key lacks the "${options.scope}" scope`,
          { requiredScope: options.scope, kind: key.kind },
        );
      }
      if (key.allowedOrigins.length > 0) {
        const origin = requestOrigin(req.headers);
        if (!origin || !originAllowed(origin, key.allowedOrigins)) {
          throw new AppError("ORIGIN_NOT_ALLOWED", origin ? `Origin ${origin} is not allowed for this API key` : "This API key only accepts requests with an allowed Origin or Referer");
        }
      }
      // One unit before the body is read (a flood of refused requests costs nothing more), the
      // rest of the request's cost (a batch: one per event) once it is.
      const charge = async (cost: number) => {
        const decision = await consumeRateLimit(key.apiKeyId, key.kind, cost);
        rate = decision.headers;
        if (!decision.allowed) throw new AppError("RATE_LIMITED", "Too many requests for this API key; retry after the delay in Retry-After");
      };
      await charge(1);
      const url = new URL(req.url);
      assertCleanUrl(url);
      const body = req.method === "GET" || req.method === "DELETE" ? undefined : await readJson(req, options.perItemField);
      const cost = options.cost ? Math.floor(options.cost(body)) : 1;
      if (cost > 1) await charge(cost - 1);
      const result = await handler({ req, url, key, body, scope: { businessId: key.businessId, environment: key.environment, apiKeyId: key.apiKeyId, untrusted: key.kind === "PUBLISHABLE" } });
      return Response.json(result.body, { status: result.status ?? 200, headers: { ...cors, ...rate, ...result.headers } });
    } catch (e) {
      return errorResponse(e, { ...cors, ...rate });
    }
  };
  return { GET: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle, OPTIONS: handle };
}
