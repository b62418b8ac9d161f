// allowedOrigins: exact origin (scheme, host, port) or "https://*.example.com" for any
// subdomain of example.com (not example.com itself, nor a host with an empty label such as
// "a..example.com"). The request's origin is its Origin
// header when one is sent — "Origin: null" (sandboxed frames, file: pages, some redirects) is
// then refused, never replaced by the Referer — else the origin of its Referer; with neither,
// a restricted key is refused.

import { wildcardUnderRegistrableDomain } from "../domain/api-keys/schemas";

/** "https://Shop.Example.com:443/x" → "https://shop.example.com"; null when not an http(s) URL. */
export function originOf(value: string | null | undefined): string | null {
  if (!value || value === "null") return null;
  try {
    const u = new URL(value);
    if (u.protocol !== "http:" && u.protocol !== "https:") return null;
    return u.origin.toLowerCase();
  } catch {
    return null;
  }
}

export function requestOrigin(headers: Headers): string | null {
  const origin = headers.get("origin");
  if (origin !== null) return originOf(origin);
  return originOf(headers.get("referer"));
}

export function originAllowed(origin: string, allowed: readonly string[]): boolean {
  const o = new URL(origin);
  for (const entry of allowed) {
    if (!entry.includes("*.")) {
      if (entry === origin) return true;
      continue;
    }
    // https://*.example.com[:port]
    const m = /^(https?):\/\/\*\.([^/:]+)(?::(\d+))?$/.exec(entry);
    if (!m || !wildcardUnderRegistrableDomain(entry)) continue; // e.g. a "https://*.com" stored before the rule
    const [, scheme, domain, port = ""] = m;
    if (o.protocol !== `${scheme}:`) continue;
    if (o.port !== port) continue;
    if (o.hostname.endsWith(`.${domain}`) && wholeLabels(o.hostname.slice(0, -domain.length - 1))) return true;
  }
  return false;
}

/** True when a host part is one or more non-empty DNS labels ("a..b" and "" are not: browsers send such hosts). */
const wholeLabels = (part: string) => part.length > 0 && part.split(".").every((label) => label.length > 0);
