// verifyWebhook: checks a delivery signed per Standard Webhooks (webhook-id, webhook-timestamp,
// webhook-signature "v1,<base64 HMAC-SHA256 of id.timestamp.body>") and returns the parsed event.
import { hmacSha256 } from "./hmac.js";
import type { WebhookEventType } from "./types.js";

export interface WebhookEvent<T = Record<string, unknown>> {
  type: WebhookEventType;
  /** When the change happened (ISO 8601). */
  timestamp: string;
  data: T;
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Largest accepted difference between webhook-timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time, for tests. */
  now?: Date;
}

export class WebhookVerificationError extends Error {
  readonly code = "WEBHOOK_VERIFICATION_FAILED";
  constructor(message: string) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const h = headers as Record<string, string | string[] | undefined>;
  const found = Object.keys(h).find((k) => k.toLowerCase() === name);
  const v = found === undefined ? undefined : h[found];
  return Array.isArray(v) ? v[0] : v;
}

const utf8 = (s: string) => new TextEncoder().encode(s);

function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function toBase64(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** Compares without an early exit, so timing tells nothing about where strings differ. */
function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The endpoint's signing key from its whsec_ secret; an empty or non-base64 secret is refused. */
function signingKey(secret: string): Uint8Array {
  if (typeof secret !== "string" || secret.trim() === "") throw new WebhookVerificationError("The secret is empty: pass the endpoint's whsec_ secret");
  let key: Uint8Array;
  try {
    key = fromBase64(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret);
  } catch {
    throw new WebhookVerificationError("The secret is not a whsec_ base64 secret");
  }
  if (key.length === 0) throw new WebhookVerificationError("The secret is empty: pass the endpoint's whsec_ secret");
  return key;
}

/**
 * Verifies a webhook delivery and returns its event. `rawBody` must be the exact bytes received
 * (a string or Uint8Array), not a re-serialised object. `secret` is the endpoint's `whsec_…`.
 * Throws WebhookVerificationError on an empty secret, a tolerance that is not a finite number
 * of seconds, a missing header, a stale or future timestamp, or a signature that matches none
 * of the header's signatures.
 */
export function verifyWebhook<T = Record<string, unknown>>(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string, options: VerifyOptions = {}): WebhookEvent<T> {
  // Checked before any header: an empty key would make every signature an HMAC anyone can compute,
  // and a NaN or infinite tolerance would disable replay protection.
  const key = signingKey(secret);
  const tolerance = options.toleranceSeconds ?? 300;
  if (typeof tolerance !== "number" || !Number.isFinite(tolerance) || tolerance < 0) {
    throw new WebhookVerificationError("toleranceSeconds must be a finite number of seconds, 0 or more");
  }
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError("Missing webhook-id, webhook-timestamp or webhook-signature header");
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError("Invalid webhook-timestamp");
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > tolerance) throw new WebhookVerificationError("Stale or future webhook-timestamp (replay protection)");
  const body = typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBody);
  const expected = toBase64(hmacSha256(key, utf8(`${id}.${timestamp}.${body}`)));
  const ok = signatures.split(" ").some((s) => {
    const [version, sig] = s.split(",", 2);
    return version === "v1" && sig !== undefined && constantTimeEqual(sig, expected);
  });
  if (!ok) throw new WebhookVerificationError("No matching signature");
  try {
    return JSON.parse(body) as WebhookEvent<T>;
  } catch {
    throw new WebhookVerificationError("The body is not JSON");
  }
}
