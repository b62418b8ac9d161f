// /api/auth/* answers (the built-in provider, Better Auth) in the contract's error shape:
// { error: { code, message, details: { reason } } }, the provider's own code kept as the reason,
// and Retry-After on 429 (the provider sends only X-Retry-After). Successes pass untouched.
import { ERROR_CODES, type ErrorCode } from "../shared/errors";

const BY_STATUS: Record<number, ErrorCode> = {
  400: "VALIDATION_ERROR",
  401: "UNAUTHENTICATED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  422: "UNPROCESSABLE",
  429: "RATE_LIMITED",
  503: "SERVICE_UNAVAILABLE",
};
/** Seconds to wait after a 429 when the provider does not say. */
const DEFAULT_RETRY_AFTER_S = "10";

export async function inContractShape(res: Response): Promise<Response> {
  if (res.status < 400) return res;
  const sent = (await res
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown; message?: unknown } | null;
  const reason = typeof sent?.code === "string" && sent.code ? sent.code : undefined;
  const code: ErrorCode = reason && reason in ERROR_CODES && ERROR_CODES[reason as ErrorCode].status === res.status ? (reason as ErrorCode) : (BY_STATUS[res.status] ?? (res.status >= 500 ? "INTERNAL" : "VALIDATION_ERROR"));
  let message = typeof sent?.message === "string" && sent.message ? sent.message : res.statusText || "Request failed";
  if (code === "RATE_LIMITED") message = "Too many attempts; retry after the delay in Retry-After";
  if (res.status >= 500) message = "An internal error occurred";
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  headers.set("content-type", "application/json");
  if (res.status === 429) headers.set("Retry-After", /^\d+$/.test(headers.get("x-retry-after") ?? "") ? headers.get("x-retry-after")! : DEFAULT_RETRY_AFTER_S);
  const error = { code, message, ...(reason && reason !== code ? { details: { reason } } : {}) };
  return new Response(JSON.stringify({ error }), { status: res.status, statusText: res.statusText, headers });
}
