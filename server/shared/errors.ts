// The one error type of the service. Domain code throws AppError with a code; the SDK wrapper,
// the REST face and tRPC all turn it into the contract's body:
//   { "error": { "code": "SCREAMING_SNAKE", "message": "…", "details"?: … } }
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
// Validation messages in words wherever errors are built (a side effect: zod's global config).
import "./validation-words";

export const ERROR_CODES = {
  VALIDATION_ERROR: { status: 400, trpc: "BAD_REQUEST" },
  INVALID_JSON: { status: 400, trpc: "BAD_REQUEST" },
  UNAUTHENTICATED: { status: 401, trpc: "UNAUTHORIZED" },
  INVALID_API_KEY: { status: 401, trpc: "UNAUTHORIZED" },
  FORBIDDEN: { status: 403, trpc: "FORBIDDEN" },
  NOT_OWNER: { status: 403, trpc: "FORBIDDEN" },
  ORIGIN_NOT_ALLOWED: { status: 403, trpc: "FORBIDDEN" },
  // A cookie-authenticated state-changing request from another site (Origin / Sec-Fetch-Site).
  CSRF: { status: 403, trpc: "FORBIDDEN" },
  // An operation that asks for the signed-in user's password again (transferring ownership) without it, or with a wrong one.
  REAUTHENTICATION_REQUIRED: { status: 403, trpc: "FORBIDDEN" },
  // An API key used outside its kind or scopes (e.g. a publishable key on GET /sdk/referrals).
  INSUFFICIENT_SCOPE: { status: 403, trpc: "FORBIDDEN" },
  // A wallet signature (Sign-In with Ethereum) that does not verify for the stated address (400: the session is
  // good, the pasted or signed input is not; a 401 would read as "signed out" to a portal client).
  INVALID_SIGNATURE: { status: 400, trpc: "BAD_REQUEST" },
  // A Sign-In with Ethereum message whose nonce is unknown, used or expired, or whose domain, chain or address is not the challenge's.
  INVALID_CHALLENGE: { status: 400, trpc: "BAD_REQUEST" },
  NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  METHOD_NOT_ALLOWED: { status: 405, trpc: "METHOD_NOT_SUPPORTED" },
  CONFLICT: { status: 409, trpc: "CONFLICT" },
  IDEMPOTENCY_CONFLICT: { status: 409, trpc: "CONFLICT" },
  // A wallet already verified by another participant of the same business and environment.
  WALLET_IN_USE: { status: 409, trpc: "CONFLICT" },
  PAYLOAD_TOO_LARGE: { status: 413, trpc: "PAYLOAD_TOO_LARGE" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, trpc: "UNSUPPORTED_MEDIA_TYPE" },
  // 422: the request is well-formed but a business rule refuses it.
  UNPROCESSABLE: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  SELF_REFERRAL: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  UNKNOWN_REFERRAL_CODE: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  INSUFFICIENT_POOL: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  INVALID_TRANSITION: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  TIER_OVERLAP: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  FUNDING_REJECTED: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  // An environment's asset once it has a ledger entry: a program's money stays in one asset.
  ASSET_LOCKED: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  RATE_LIMITED: { status: 429, trpc: "TOO_MANY_REQUESTS" },
  INTERNAL: { status: 500, trpc: "INTERNAL_SERVER_ERROR" },
  SERVICE_UNAVAILABLE: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  CHAIN_UNAVAILABLE: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  // A manual reward that the daily cap per participant leaves at zero (recorded as REFUSED).
  DAILY_CAP_REACHED: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  // A referrer's withdrawal (POST /portal/api/withdrawals): one open at a time, and why one is refused.
  WITHDRAWAL_PENDING: { status: 409, trpc: "CONFLICT" },
  WITHDRAWALS_DISABLED: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  NO_WALLET: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  WALLET_FAILED: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  BELOW_MINIMUM: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
} as const satisfies Record<string, { status: number; trpc: TRPC_ERROR_CODE_KEY }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, details?: unknown, headers?: Record<string, string>) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  toBody(): ErrorBody {
    const error: ErrorBody["error"] = { code: this.code, message: this.message };
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }
}

export const notFound = (what = "Resource") => new AppError("NOT_FOUND", `${what} not found`);

/** Field-level details from a zod error: [{ path: "a.b", message }] */
function zodDetails(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>) {
  return issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }));
}

function isZodError(e: unknown): e is { issues: Array<{ path: PropertyKey[]; message: string }> } {
  return !!e && typeof e === "object" && (e as { name?: string }).name === "ZodError" && Array.isArray((e as { issues?: unknown }).issues);
}

/**
 * Any thrown value → AppError. Unknown errors become 500 INTERNAL with no stack or SQL;
 * they are logged here, once.
 */
export function toAppError(e: unknown): AppError {
  if (e instanceof AppError) return e;
  if (isZodError(e)) return new AppError("VALIDATION_ERROR", "Request validation failed", zodDetails(e.issues));
  const cause = (e as { cause?: unknown })?.cause;
  if (cause instanceof AppError) return cause;
  if (isZodError(cause)) return new AppError("VALIDATION_ERROR", "Request validation failed", zodDetails(cause.issues));
  if (isDatabaseUnavailable(e)) return new AppError("SERVICE_UNAVAILABLE", "The database is unavailable; try again shortly", undefined, { "Retry-After": String(DB_RETRY_AFTER_S) });
  console.error("[internal error]", e);
  return new AppError("INTERNAL", "An internal error occurred");
}

/** Seconds a client should wait after a 503 for an unreachable or restarting database. */
const DB_RETRY_AFTER_S = 2;

// Connection-level failures (server down, restarting, connection cut, pool starved), as pg,
// the Prisma driver adapter and Prisma report them: answered 503 + Retry-After, never 500.
const DB_DOWN_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "P1001", "P1002", "P1017", "P2024", "57P01", "57P02", "57P03", "08000", "08001", "08003", "08006"]);
const DB_DOWN_MESSAGE =
  /ECONNREFUSED|ECONNRESET|Can't reach database server|Connection terminated|terminating connection|database system is (starting up|shutting down|in recovery|not yet accepting)|Connection ended|connection error|server closed the connection|Timed out fetching a new connection|Client was closed|Cannot use a pool after calling end|DatabaseNotReachable|ConnectionClosed|Query read timeout|timeout exceeded when trying to connect/i;

function isDatabaseUnavailable(e: unknown): boolean {
  // The cause chain, iteratively and bounded (adapters wrap the driver's error).
  let cur: unknown = e;
  for (let i = 0; i < 6 && cur && typeof cur === "object"; i++) {
    const o = cur as { code?: unknown; message?: unknown; kind?: unknown; originalCode?: unknown; cause?: unknown };
    for (const c of [o.code, o.originalCode, o.kind]) if (typeof c === "string" && DB_DOWN_CODES.has(c)) return true;
    if (typeof o.kind === "string" && /DatabaseNotReachable|ConnectionClosed|SocketTimeout/.test(o.kind)) return true;
    if (typeof o.message === "string" && DB_DOWN_MESSAGE.test(o.message)) return true;
    cur = o.cause;
  }
  return false;
}

export function errorResponse(e: unknown, extraHeaders?: Record<string, string>): Response {
  const err = toAppError(e);
  return Response.json(err.toBody(), { status: err.status, headers: { ...err.headers, ...extraHeaders } });
}
