// The REST face of the business router: trpc-to-openapi answers the interface's /business/*
// paths with the very procedures the dashboard calls, and errors are rewritten into the
// contract's { error: { code, message, details } } body.
import { createOpenApiFetchHandler, generateOpenApiDocument } from "trpc-to-openapi";
import { appRouter } from "../routers/_app";
import { AppError, errorResponse } from "../shared/errors";
import { readCapped } from "../shared/http";
import { assertCleanJson, assertCleanUrl } from "../shared/json-guard";
import { env } from "../shared/env";
import { sdkOpenApiPaths, sdkSecuritySchemes } from "../sdk/openapi";
import { appErrorOf, createContext } from "./init";

const MAX_BODY = 32 * 1024;

export async function handleBusinessRest(req: Request): Promise<Response> {
  const len = Number(req.headers.get("content-length") ?? 0);
  if (len > MAX_BODY) return errorResponse(new AppError("PAYLOAD_TOO_LARGE", "The request body exceeds 32 KB"));
  try {
    assertCleanUrl(new URL(req.url));
  } catch (e) {
    return errorResponse(e);
  }
  if (req.body && req.method !== "GET" && req.method !== "HEAD") {
    // Re-read the body with a hard cap (chunked uploads carry no content-length).
    const text = await readCapped(req, MAX_BODY);
    if (text === null) return errorResponse(new AppError("PAYLOAD_TOO_LARGE", "The request body exceeds 32 KB"));
    // Checked here, on the body as sent: the adapter merges it into a fresh object, where a
    // top-level "__proto__" key would silently vanish.
    // (Non-JSON bodies are left to the adapter, which answers 415.)
    if (text.trim() && /^application\/json\b/i.test((req.headers.get("content-type") ?? "").trim())) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return errorResponse(new AppError("INVALID_JSON", "The body is not valid JSON"));
      }
      try {
        assertCleanJson(parsed);
      } catch (e) {
        return errorResponse(e);
      }
    }
    // An empty body (e.g. POST …/test, …/retry) is the empty JSON object, whatever its content type.
    const empty = text.trim() === "";
    const headers = new Headers(req.headers);
    if (empty) headers.set("content-type", "application/json");
    req = new Request(req.url, { method: req.method, headers, body: empty ? "{}" : text });
  }
  let failure: AppError | undefined;
  const res = await createOpenApiFetchHandler({
    endpoint: "/",
    router: appRouter,
    req,
    createContext: () => createContext(req),
    onError: ({ error }) => {
      failure = appErrorOf(error);
    },
    responseMeta: ({ errors }) => (errors.length ? { status: appErrorOf(errors[0]).status, headers: new Headers() } : {}),
  });
  if (res.status < 400) return res;
  if (!failure) {
    // Errors raised before a procedure ran (unknown path, bad JSON) arrive without onError.
    const body = (await res.json().catch(() => ({}))) as { code?: string; message?: string };
    if (res.status === 404) failure = new AppError("NOT_FOUND", "No such route");
    else if (res.status === 415) failure = new AppError("UNSUPPORTED_MEDIA_TYPE", "Send a JSON body with Content-Type: application/json");
    else if (res.status === 413) failure = new AppError("PAYLOAD_TOO_LARGE", "The request body exceeds 32 KB");
    else failure = new AppError(res.status === 400 ? "INVALID_JSON" : "INTERNAL", body.message ?? "Request failed");
  }
  return errorResponse(failure);
}

let doc: unknown;
export function openApiDocument() {
  doc ??= generateOpenApiDocument(appRouter, {
    title: "Referral Tracking Service API",
    version: "1.0.0",
    baseUrl: env.appUrl,
    description:
      "Business routes (/business/*) take a session (better-auth.session_token cookie or Authorization: Bearer <session token>). " +
      "SDK routes (/track, /sdk/*) take an API key (x-service-api-key, x-api-key or Authorization: Bearer rk_…). " +
      'Errors: { "error": { "code", "message", "details"? } }.',
    paths: sdkOpenApiPaths,
    // Business routes: a Better Auth session, as a bearer token or the browser's cookie.
    securitySchemes: {
      sessionToken: { type: "http", scheme: "bearer", description: "Better Auth session token: Authorization: Bearer <session token>" },
      sessionCookie: { type: "apiKey", in: "cookie", name: "better-auth.session_token", description: "The dashboard's session cookie" },
    },
  });
  // SDK routes (plain route handlers, described in server/sdk/openapi.ts) take an API key.
  const components = (doc as { components: { securitySchemes: Record<string, unknown> } }).components;
  Object.assign(components.securitySchemes, sdkSecuritySchemes);
  return doc;
}

