// The client's IP address, from trusted proxies only. The HTTP server stamps every incoming
// request with CLIENT_IP_HEADER (server/http-peer.ts), replacing whatever a client sent under
// that name: the socket's peer address, or — when that peer is one of TRUSTED_PROXIES — the
// first address of X-Forwarded-For, read right to left, that is not a trusted proxy.
// Default: trust no proxy, so X-Forwarded-For is ignored and the peer address is the client.
// Every per-client limit (Better Auth's sign-in limit, the session provider's) reads this header.
// Addresses and ranges are parsed and matched by ipaddr.js; node's isIP is the strict gate
// (it refuses the short IPv4 forms such as "127.1" that ipaddr.js would accept).
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

export const CLIENT_IP_HEADER = "x-rts-client-ip";

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** The address, with IPv4-mapped IPv6 ("::ffff:1.2.3.4") as IPv4; null when not an IP. */
function parseIp(ip: string | null | undefined): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const v = ip?.trim().replace(/^\[|\]$/g, "");
  return v && isIP(v) ? ipaddr.process(v) : null;
}

/** Canonical text of an address ("::ffff:1.2.3.4" → "1.2.3.4", IPv6 compressed, lower case); null when not an IP. */
export function normalizeIp(ip: string | null | undefined): string | null {
  return parseIp(ip)?.toString() ?? null;
}

/**
 * The network a client counts as for per-client limits: its IPv4 address, or its IPv6 /64 (one
 * subscriber gets a whole /64, so single IPv6 addresses cost nothing to change); null when not an IP.
 */
export function clientNetwork(ip: string | null | undefined): string | null {
  const a = parseIp(ip);
  if (!a) return null;
  if (a.kind() === "ipv4") return a.toString();
  const parts = (a as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(":")}::/64`;
}

/** "10.0.0.1", "10.0.0.0/8", "::1", "fd00::/8" → CIDRs; invalid entries are reported and skipped. */
export function parseTrustedProxies(list: string | undefined): Cidr[] {
  const out: Cidr[] = [];
  for (const raw of (list ?? "").split(",")) {
    const entry = raw.trim();
    if (!entry) continue;
    const [addr, bitsText] = entry.split("/");
    const ip = parseIp(addr);
    const max = ip?.kind() === "ipv4" ? 32 : 128;
    const bits = bitsText === undefined ? max : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : -1;
    if (!ip || bits < 0 || bits > max) {
      console.warn(`[client-ip] TRUSTED_PROXIES entry ignored: ${entry}`);
      continue;
    }
    out.push([ip, bits]);
  }
  return out;
}

function isTrusted(ip: string, trusted: readonly Cidr[]): boolean {
  const addr = parseIp(ip);
  return !!addr && trusted.some((range) => range[0].kind() === addr.kind() && addr.match(range));
}

/**
 * The client address of a request that arrived from `peer` carrying `forwardedFor`
 * (X-Forwarded-For). Only hops appended by trusted proxies are believed.
 */
export function clientIpFrom(peer: string | null | undefined, forwardedFor: string | null | undefined, trusted: readonly Cidr[]): string | null {
  let current = normalizeIp(peer);
  if (!current) return null;
  if (!forwardedFor || trusted.length === 0) return current;
  const hops = forwardedFor.split(",").map((s) => s.trim()).filter(Boolean);
  while (isTrusted(current, trusted) && hops.length > 0) {
    const next = normalizeIp(hops.pop());
    if (!next) break; // a malformed hop: stop at the last address we could verify
    current = next;
  }
  return current;
}

/** The request's client IP as stamped by the server (null when not served by our HTTP server). */
export function requestClientIp(headers: Headers): string | null {
  return normalizeIp(headers.get(CLIENT_IP_HEADER));
}
