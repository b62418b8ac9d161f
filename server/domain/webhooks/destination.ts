// Where a webhook may go, and the one HTTP POST that takes it there.
//
// Every endpoint must be a public address: every address its host resolves to must be global
// unicast (not private, link-local (cloud metadata 169.254.169.254), carrier-grade NAT,
// unique-local, multicast, reserved, IPv4-compatible IPv6 (::/96) or other non-global ranges).
// LIVE endpoints must use https. TEST endpoints may use http and, for local development with
// WEBHOOK_ALLOW_LOOPBACK=1 only, loopback (127.0.0.0/8, ::1, localhost): off by default, since a
// delivery's status would tell a business which of the server's own ports answer. The answer of
// a loopback endpoint is never stored (a delivery log would otherwise read local services).
// Host names ending with a dot ("localhost.") and single-label names are refused.
// The check runs inside the connection's own DNS lookup, so the address checked is the address
// connected to: a DNS answer that changes between a check and the connect (DNS rebinding)
// cannot slip through. IP literals skip DNS and are checked before connecting.
// Redirects are never followed (a 3xx is a failed attempt); 2xx within 10 s is success.
import dns from "node:dns";
import net from "node:net";
import ipaddr from "ipaddr.js";
import { Agent, buildConnector, request } from "undici";
import { env } from "../../shared/env";
import { AppError } from "../../shared/errors";
import type { Environment } from "../../shared/environment";

const DELIVERY_TIMEOUT_MS = 10_000;
/** An endpoint that takes this long to answer is slow: its business's deliveries run one job at a time (jobs/pool-room.ts). */
export const SLOW_ENDPOINT_MS = DELIVERY_TIMEOUT_MS / 2;
const RESPONSE_BODY_MAX = 1024;
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

type AddressClass = "public" | "loopback" | "refused";

/** public: globally routable unicast; loopback; refused: everything else (or not an address). */
function classifyAddress(address: string): AddressClass {
  if (!ipaddr.isValid(address)) return "refused";
  let ip = ipaddr.parse(address);
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  const range = ip.range();
  if (range === "loopback") return "loopback";
  if (range !== "unicast") return "refused";
  // IPv6 "unicast" also covers ::/96 (IPv4-compatible, e.g. ::7f00:1) and unassigned space.
  return ip.kind() === "ipv4" || (ip as ipaddr.IPv6).match(GLOBAL_UNICAST_V6) ? "public" : "refused";
}

/** True for a globally routable unicast address. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === "public";
}

const loopbackAllowed = (environment: Environment) => environment === "TEST" && env.webhookAllowLoopback;
const hostOf = (u: URL) => u.hostname.replace(/^\[|\]$/g, "").toLowerCase();
const isLocalhostName = (host: string) => host === "localhost" || host.endsWith(".localhost");

/** A loopback IP literal or a localhost name: delivered only through the loopback agent. */
function isLoopbackHost(host: string): boolean {
  return net.isIP(host) ? classifyAddress(host) === "loopback" : isLocalhostName(host);
}

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
  if (environment === "LIVE" && u.protocol !== "https:") throw invalidUrl("LIVE endpoints must use https");
  const host = hostOf(u);
  if (host.endsWith(".")) throw invalidUrl("The host name must not end with a dot");
  const allowed = net.isIP(host)
    ? classifyAddress(host) === "public" || (classifyAddress(host) === "loopback" && loopbackAllowed(environment))
    : isLocalhostName(host)
      ? loopbackAllowed(environment)
      : host.includes(".");
  if (!allowed) {
    throw invalidUrl(
      loopbackAllowed(environment)
        ? "TEST endpoints must be public addresses or loopback (no private, link-local, metadata, carrier-grade NAT or reserved ranges)"
        : `${environment} endpoints must be public addresses (no loopback, private, link-local, metadata, carrier-grade NAT or reserved ranges)`,
    );
  }
  return u.toString();
}

const invalidUrl = (message: string) => new AppError("VALIDATION_ERROR", message, [{ path: "url", message }]);

class DestinationRefused extends Error {
  readonly code = "DESTINATION_REFUSED";
}

type LookupCb = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
type Reach = "public" | "loopback";

/** dns.lookup that refuses hosts resolving to any address outside `reach`. */
function checkedLookup(reach: Reach) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCb) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const bad = addresses.find((a) => classifyAddress(a.address) !== reach);
      // The address is not named: the message is shown in the delivery log, and would tell what internal names resolve to.
      if (bad || addresses.length === 0) return callback(new DestinationRefused(`${hostname} resolves to a non-${reach} address; webhooks only go to public addresses`), []);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

function checkedConnector(reach: Reach): buildConnector.connector {
  const base = buildConnector({ lookup: checkedLookup(reach), timeout: DELIVERY_TIMEOUT_MS });
  return (opts, cb) => {
    const host = opts.hostname.replace(/^\[|\]$/g, "");
    if (net.isIP(host) && classifyAddress(host) !== reach) return cb(new DestinationRefused(`${host} is not a public address; webhooks only go to public addresses`), null);
    base(opts, cb);
  };
}

const g = globalThis as unknown as { __rtsWebhookAgents?: Record<Reach, Agent> };
function agentFor(reach: Reach): Agent {
  g.__rtsWebhookAgents ??= {
    public: new Agent({ connect: checkedConnector("public"), keepAliveTimeout: 4_000, connections: 50 }),
    loopback: new Agent({ connect: checkedConnector("loopback"), keepAliveTimeout: 4_000, connections: 50 }),
  };
  return g.__rtsWebhookAgents[reach];
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
  // The scheme and the kind of host are checked here; the address only at connect time (below), where it is decided.
  if (environment === "LIVE" && !url.startsWith("https://")) {
    return { success: false, statusCode: null, durationMs: took(), error: "LIVE endpoints must use https", responseBody: null };
  }
  let loopback: boolean;
  try {
    loopback = isLoopbackHost(hostOf(new URL(url)));
  } catch {
    return { success: false, statusCode: null, durationMs: took(), error: "Not an absolute http(s) URL", responseBody: null };
  }
  if (loopback && !loopbackAllowed(environment)) {
    return { success: false, statusCode: null, durationMs: took(), error: "Loopback endpoints are not allowed here; webhooks only go to public addresses", responseBody: null };
  }
  const signal = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
  try {
    const res = await request(url, {
      method: "POST",
      headers,
      body,
      dispatcher: agentFor(loopback ? "loopback" : "public"),
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
    // A loopback endpoint's answer is not kept: it may be a local service's.
    return { success: ok, statusCode: res.statusCode, durationMs: took(), error, responseBody: loopback ? null : text };
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
