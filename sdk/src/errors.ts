// Typed errors: every non-2xx answer becomes a ReferralApiError (or a subclass by status)
// carrying the body's `code`, `message` and `details`.
import type { ErrorCode } from "./types.js";

export class ReferralApiError extends Error {
  /** The error body's code, e.g. "VALIDATION_ERROR", "INVALID_API_KEY", "RATE_LIMITED". */
  readonly code: ErrorCode | (string & {});
  readonly status: number;
  readonly details?: unknown;
  /** Seconds from Retry-After, when the service sent one (429, 503). */
  readonly retryAfter?: number;

  constructor(init: { status: number; code: string; message: string; details?: unknown; retryAfter?: number }) {
    super(init.message);
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.retryAfter = init.retryAfter;
  }
}

export class ValidationError extends ReferralApiError {}
export class AuthenticationError extends ReferralApiError {}
export class PermissionError extends ReferralApiError {}
export class NotFoundError extends ReferralApiError {}
export class ConflictError extends ReferralApiError {}
export class UnprocessableError extends ReferralApiError {}
export class RateLimitError extends ReferralApiError {}
export class ServerError extends ReferralApiError {}

/** The network failed or timed out on every attempt (no answer to read a code from). */
export class ConnectionError extends ReferralApiError {}

/** waitForJob gave up before the job ended. */
export class JobTimeoutError extends ReferralApiError {}

export function errorFor(init: ConstructorParameters<typeof ReferralApiError>[0]): ReferralApiError {
  const s = init.status;
  const C =
    s === 400 || s === 413 || s === 415
      ? ValidationError
      : s === 401
        ? AuthenticationError
        : s === 403
          ? PermissionError
          : s === 404
            ? NotFoundError
            : s === 409
              ? ConflictError
              : s === 422
                ? UnprocessableError
                : s === 429
                  ? RateLimitError
                  : s >= 500
                    ? ServerError
                    : ReferralApiError;
  return new C(init);
}
