// Where a webhook may go, and the one HTTP POST that takes it there.
//
// LIVE endpoints: https only, and every address the host resolves to must be public (not
// loopback, private, link-local (cloud metadata 169.254.169.254), carrier-grade NAT, unique-local,
// multicast or reserved). The check runs inside the connection's own DNS lookup, so the address
// checked is the address connected to: a DNS answer that changes between a check and the connect
// (DNS rebinding) cannot slip through. IP literals skip DNS and are checked before connecting.
// TEST endpoints may be http and local, for development.
// Redirects are never followed (a 3xx is a failed attempt); 2xx within 10 s is success.
import dns from "node:dns";
import net from "node:net";
import ipaddr from "ipaddr.js";
import { Agent, buildConnector, request } from "undici";
import { AppError } from "../../shared/errors";
import type { Environment } from "../../shared/environment";

const DELIVERY_TIMEOUT_MS = 10_000;
const RESPONSE_BODY_MAX = 1024;

/** True for a globally routable unicast address. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return ip.range() === "unicast";
}

const hostOf = (u: URL) => u.hostname.replace(/^\[|\]$/g, "");

/** Create/update-time check of an endpoint URL (connect time re-checks every resolved address). */
export function checkDestinationUrl(environment: Environment, raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw invalidUrl("Must be an absolute http(s) URL");
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") throw invalidUrl("Only http and https URLs are allowed");
  if (u.username || u.password) throw invalidUrl("Credentials in the URL are not allowed; verify the webhook signature instead");
  if (environment === "LIVE") {
    if (u.protocol !== "https:") throw invalidUrl("LIVE endpoints must use https");
    const host = hostOf(u).toLowerCase();
    if (net.isIP(host) ? !isPublicAddress(host) : host === "localhost" || host.endsWith(".localhost") || !host.includes(".")) {
      throw invalidUrl("LIVE endpoints must be public addresses (no loopback, private, link-local or metadata hosts)");
    }
  }
  return u.toString();
}

const invalidUrl = (message: string) => new AppError("VALIDATION_ERROR", message, [{ path: "url", message }]);

class DestinationRefused extends Error {
  readonly code = "DESTINATION_REFUSED";
}

type LookupCb = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** dns.lookup that refuses hosts resolving to any non-public address. */
function publicOnlyLookup(hostname: string, options: dns.LookupOptions, callback: LookupCb) {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad || addresses.length === 0) return callback(new DestinationRefused(`${hostname} resolves to a non-public address (${bad?.address ?? "none"}); LIVE webhooks only go to public addresses`), []);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

function publicOnlyConnector(): buildConnector.connector {
  const base = buildConnector({ lookup: publicOnlyLookup, timeout: DELIVERY_TIMEOUT_MS });
  return (opts, cb) => {
    const host = opts.hostname.replace(/^\[|\]$/g, "");
    if (net.isIP(host) && !isPublicAddress(host)) return cb(new DestinationRefused(`${host} is not a public address; LIVE webhooks only go to public addresses`), null);
    base(opts, cb);
  };
}

const g = globalThis as unknown as { __rtsWebhookAgents?: Record<Environment, Agent> };
function agentFor(environment: Environment): Agent {
  g.__rtsWebhookAgents ??= {
    LIVE: new Agent({ connect: publicOnlyConnector(), keepAliveTimeout: 4_000, connections: 50 }),
    TEST: new Agent({ connect: { timeout: DELIVERY_TIMEOUT_MS }, keepAliveTimeout: 4_000, connections: 50 }),
  };
  return g.__rtsWebhookAgents[environment];
}

export interface PostOutcome {
  success: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
}

/** One POST of a signed webhook. Never throws: every failure is an outcome to record. */
export async function postWebhook(environment: Environment, url: string, headers: Record<string, string>, body: string): Promise<PostOutcome> {
  const started = Date.now();
  const took = () => Date.now() - started;
  // The scheme is checked here; the address only at connect time (below), where it is decided.
  if (environment === "LIVE" && !url.startsWith("https://")) {
    return { success: false, statusCode: null, durationMs: took(), error: "LIVE endpoints must use https", responseBody: null };
  }
  const signal = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
  try {
    const res = await request(url, {
      method: "POST",
      headers,
      body,
      dispatcher: agentFor(environment),
      signal,
      headersTimeout: DELIVERY_TIMEOUT_MS,
      bodyTimeout: DELIVERY_TIMEOUT_MS,
    });
    const text = await readSome(res.body);
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    const error = ok
      ? null
      : res.statusCode >= 300 && res.statusCode < 400
        ? `Redirect (${res.statusCode}) not followed: point the endpoint at its final URL`
        : `Endpoint answered ${res.statusCode}`;
    return { success: ok, statusCode: res.statusCode, durationMs: took(), error, responseBody: text };
  } catch (e) {
    return { success: false, statusCode: null, durationMs: took(), error: describe(e, signal), responseBody: null };
  }
}

async function readSome(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= RESPONSE_BODY_MAX) break;
    }
  } catch {
    /* the status already decided the attempt */
  } finally {
    body.destroy();
  }
  const s = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_MAX).toString("utf8");
  return s.length ? s : null;
}

function describe(e: unknown, signal: AbortSignal): string {
  if (signal.aborted) return `No answer within ${DELIVERY_TIMEOUT_MS / 1000} s`;
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur; i++) {
    if (cur instanceof DestinationRefused) return cur.message;
    cur = (cur as { cause?: unknown }).cause;
  }
  const err = e as { code?: string; message?: string };
  return `${err.code ? `${err.code}: ` : ""}${err.message ?? String(e)}`.slice(0, 500);
}
