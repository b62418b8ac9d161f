// The client's IP address, from trusted proxies only. The HTTP server stamps every incoming
// request with CLIENT_IP_HEADER (server/http-peer.ts), replacing whatever a client sent under
// that name: the socket's peer address, or — when that peer is one of TRUSTED_PROXIES — the
// first address of X-Forwarded-For, read right to left, that is not a trusted proxy.
// Default: trust no proxy, so X-Forwarded-For is ignored and the peer address is the client.
// Every per-client limit (Better Auth's sign-in limit, the session provider's) reads this header.
import { isIP } from "node:net";

export const CLIENT_IP_HEADER = "x-rts-client-ip";

interface Cidr {
  bytes: Uint8Array;
  bits: number;
}

function toBytes(ip: string): Uint8Array | null {
  const v = ip.trim().replace(/^\[|\]$/g, "");
  const kind = isIP(v);
  if (kind === 4) return Uint8Array.from(v.split(".").map(Number));
  if (kind !== 6) return null;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(v);
  if (mapped) return toBytes(mapped[1]);
  const [head, tail = ""] = v.split("::");
  const h = head ? head.split(":") : [];
  const t = v.includes("::") ? (tail ? tail.split(":") : []) : [];
  const groups = [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    const n = parseInt(g, 16);
    out[i * 2] = n >> 8;
    out[i * 2 + 1] = n & 255;
  });
  return out;
}

/** Canonical text of an address ("::ffff:1.2.3.4" → "1.2.3.4"); null when not an IP. */
export function normalizeIp(ip: string | null | undefined): string | null {
  if (!ip) return null;
  const v = ip.trim().replace(/^\[|\]$/g, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(v);
  if (mapped && isIP(mapped[1]) === 4) return mapped[1];
  return isIP(v) ? v.toLowerCase() : null;
}

/** "10.0.0.1", "10.0.0.0/8", "::1", "fd00::/8" → CIDRs; invalid entries are reported and skipped. */
export function parseTrustedProxies(list: string | undefined): Cidr[] {
  const out: Cidr[] = [];
  for (const raw of (list ?? "").split(",")) {
    const entry = raw.trim();
    if (!entry) continue;
    const [addr, bitsText] = entry.split("/");
    const bytes = toBytes(addr);
    const max = bytes ? bytes.length * 8 : 0;
    const bits = bitsText === undefined ? max : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : -1;
    if (!bytes || bits < 0 || bits > max) {
      console.warn(`[client-ip] TRUSTED_PROXIES entry ignored: ${entry}`);
      continue;
    }
    out.push({ bytes, bits });
  }
  return out;
}

function inCidr(ip: Uint8Array, c: Cidr): boolean {
  if (ip.length !== c.bytes.length) return false;
  let bits = c.bits;
  for (let i = 0; i < ip.length && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 255 : (255 << (8 - bits)) & 255;
    if ((ip[i] & mask) !== (c.bytes[i] & mask)) return false;
  }
  return true;
}

function isTrusted(ip: string, trusted: readonly Cidr[]): boolean {
  const b = toBytes(ip);
  return !!b && trusted.some((c) => inCidr(b, c));
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
