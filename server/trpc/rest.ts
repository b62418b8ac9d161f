// The REST face of the business router: trpc-to-openapi answers the interface's /business/*
// paths with the very procedures the dashboard calls, and errors are rewritten into the
// contract's { error: { code, message, details } } body.
import { createOpenApiFetchHandler, generateOpenApiDocument } from "trpc-to-openapi";
import { appRouter } from "../routers/_app";
import { AppError, errorResponse } from "../shared/errors";
import { readCapped } from "../shared/http";
import { env } from "../shared/env";
import { sdkOpenApiPaths } from "../sdk/openapi";
import { appErrorOf, createContext } from "./init";

const MAX_BODY = 32 * 1024;

export async function handleBusinessRest(req: Request): Promise<Response> {
  const len = Number(req.headers.get("content-length") ?? 0);
  if (len > MAX_BODY) return errorResponse(new AppError("PAYLOAD_TOO_LARGE", "The request body exceeds 32 KB"));
  if (req.body && req.method !== "GET" && req.method !== "HEAD") {
    // Re-read the body with a hard cap (chunked uploads carry no content-length).
    const text = await readCapped(req, MAX_BODY);
    if (text === null) return errorResponse(new AppError("PAYLOAD_TOO_LARGE", "The request body exceeds 32 KB"));
    req = new Request(req.url, { method: req.method, headers: req.headers, body: text });
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
  });
  return doc;
}

