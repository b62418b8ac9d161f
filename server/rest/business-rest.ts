// The REST face of the business router: trpc-to-openapi answers the interface's /business/*
// paths with the very procedures the dashboard calls, and errors are rewritten into the
// contract's { error: { code, message, details } } body.
import type { TRPCError } from "@trpc/server";
import { createOpenApiNodeHttpHandler, generateOpenApiDocument } from "trpc-to-openapi";
import { appRouter } from "../routers/_app";
import { AppError, errorResponse } from "../shared/errors";
import { readCapped } from "../shared/http";
import { assertCleanJson, assertCleanUrl, assertJsonObject } from "../shared/json-guard";
import { env } from "../shared/env";
import { sdkOpenApiPaths, sdkSecuritySchemes } from "../sdk/openapi";
import { documentErrors } from "./openapi-errors";
import { appErrorOf, createContext } from "../trpc/init";

const MAX_BODY = 32 * 1024;

export async function handleBusinessRest(req: Request): Promise<Response> {
  const len = Number(req.headers.get("content-length") ?? 0);
  if (len > MAX_BODY) return errorResponse(new AppError("PAYLOAD_TOO_LARGE", "The request body exceeds 32 KB"));
  try {
    assertCleanUrl(new URL(req.url));
  } catch (e) {
    return errorResponse(e);
  }
  const allowed = methodsOf(new URL(req.url).pathname);
  if (allowed.length && !allowed.includes(req.method)) {
    const refused = new AppError("METHOD_NOT_ALLOWED", `${req.method} is not allowed on this path; it takes ${allowed.join(", ")}`);
    return errorResponse(refused, { allow: allowed.join(", ") });
  }
  let body: unknown;
  if (req.body && req.method !== "GET" && req.method !== "HEAD") {
    // Re-read the body with a hard cap (chunked uploads carry no content-length).
    const text = await readCapped(req, MAX_BODY);
    if (text === null) return errorResponse(new AppError("PAYLOAD_TOO_LARGE", "The request body exceeds 32 KB"));
    // An empty body (e.g. POST …/test, …/retry) is the empty JSON object, whatever its content type.
    if (text.trim() === "") {
      const headers = new Headers(req.headers);
      headers.set("content-type", "application/json");
      req = new Request(req.url, { method: req.method, headers, signal: req.signal });
      body = {};
    } else if ((req.headers.get("content-type") ?? "").startsWith("application/json")) {
      try {
        body = JSON.parse(text);
      } catch {
        return errorResponse(new AppError("INVALID_JSON", "The body is not valid JSON"));
      }
      // Checked here, on the body as sent: the adapter merges it into a fresh object, where a
      // top-level "__proto__" key would silently vanish.
      try {
        assertCleanJson(body);
        assertJsonObject(body); // the adapter would merge a top-level [] or "x" into {}
      } catch (e) {
        return errorResponse(e);
      }
    }
    // (Other content types are left to the adapter, which answers 415 before reading a body.)
  }
  const { response, failure: raised } = await runOpenApi(req, body);
  if (response.status < 400) return response;
  let failure = raised;
  if (!failure) {
    // Errors raised before a procedure ran (unknown path, wrong content type) arrive without onError.
    const answer = (await response.json().catch(() => ({}))) as { code?: string; message?: string };
    if (response.status === 404) failure = new AppError("NOT_FOUND", "No such route");
    else if (response.status === 415) failure = new AppError("UNSUPPORTED_MEDIA_TYPE", "Send a JSON body with Content-Type: application/json");
    else if (response.status === 413) failure = new AppError("PAYLOAD_TOO_LARGE", "The request body exceeds 32 KB");
    else failure = new AppError(response.status === 400 ? "INVALID_JSON" : "INTERNAL", answer.message ?? "Request failed");
  }
  return errorResponse(failure);
}

// trpc-to-openapi's own fetch adapter builds its route table (every procedure's path as a
// regular expression) on every request; this one keeps a single handler for the process and
// hands it the request with the body already read and checked above.
const failures = new WeakMap<object, AppError>();
/** Procedures whose REST success is 201 Created (the interface names them so). */
const CREATED = new Set(["commissionRules.create"]);
let openApiHandler: ((req: Request, res: OpenApiResponse) => Promise<void>) | undefined;

interface OpenApiResponse {
  statusCode: number;
  setHeader(name: string, value: string | string[]): void;
  end(body?: string): void;
}

function handler() {
  openApiHandler ??= createOpenApiNodeHttpHandler({
    router: appRouter,
    createContext: ({ req }: { req: Request }) => createContext(req),
    onError: ({ error, req }: { error: TRPCError; req: Request }) => {
      failures.set(req, appErrorOf(error));
    },
    responseMeta: ({ errors, paths }: { errors: TRPCError[]; paths?: readonly string[] }) =>
      errors.length ? { status: appErrorOf(errors[0]).status, headers: {} } : paths?.length === 1 && CREATED.has(paths[0]) ? { status: 201, headers: {} } : {},
  } as never) as unknown as (req: Request, res: OpenApiResponse) => Promise<void>;
  return openApiHandler;
}

async function runOpenApi(req: Request, body: unknown): Promise<{ response: Response; failure?: AppError }> {
  // The adapter reads `body` as the parsed JSON (a Request's own body is its stream).
  const proxied = new Proxy(req, {
    get: (target, prop) => {
      if (prop === "body") return body;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const headers = new Headers();
  const response = await new Promise<Response>((resolve, reject) => {
    const res: OpenApiResponse = {
      statusCode: 200,
      setHeader: (name, value) => {
        if (typeof value === "string") headers.set(name, value);
        else for (const v of value) headers.append(name, v);
      },
      end: (text) => resolve(new Response(text, { status: res.statusCode, headers })),
    };
    handler()(proxied, res).catch(reject);
  });
  return { response, failure: failures.get(proxied) };
}

let routes: { pattern: RegExp; methods: string[] }[] | undefined;
/** The methods the document lists for a concrete path (e.g. /business/webhooks/abc), none for an unknown path. */
function methodsOf(pathname: string): string[] {
  routes ??= Object.entries((openApiDocument() as { paths: Record<string, Record<string, unknown>> }).paths)
    .filter(([template]) => template.startsWith("/business/"))
    .map(([template, ops]) => ({
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}/?$`),
      methods: Object.keys(ops).map((m) => m.toUpperCase()),
    }));
  return [...new Set(routes.filter((r) => r.pattern.test(pathname)).flatMap((r) => r.methods))];
}

let doc: unknown;
/** The document GET /api/openapi.json serves, built once per process. */
export function openApiDocument() {
  doc ??= buildDocument();
  return doc;
}

function buildDocument() {
  const built = generateOpenApiDocument(appRouter, {
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
  const components = (built as { components: { securitySchemes: Record<string, unknown> } }).components;
  Object.assign(components.securitySchemes, sdkSecuritySchemes);
  // Created procedures answer 201 (responseMeta above), which the adapter documents as 200.
  for (const ops of Object.values((built as unknown as { paths: Record<string, Record<string, { operationId?: string; responses: Record<string, unknown> }>> }).paths)) {
    for (const op of Object.values(ops)) {
      if (!CREATED.has(op.operationId?.replaceAll("-", ".") ?? "")) continue;
      op.responses["201"] = op.responses["200"];
      delete op.responses["200"];
    }
  }
  // Every error response in the contract's shape, every status an operation can answer listed.
  documentErrors(built as Parameters<typeof documentErrors>[0], new Set(Object.keys(sdkOpenApiPaths)));
  return built;
}

