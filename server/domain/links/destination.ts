// Where a referral link sends a visitor: the environment's destination, optionally one of its own
// paths (`to`), with the code, the click id and the link's utm_* parameters added. Pure. A `to`
// that could leave the destination's origin in any reading (scheme, //host, backslashes,
// percent-encoded forms of those, control characters) is ignored: never an open redirect.
import { clipText } from "../../shared/json-guard";

const CLICK_PARAM = "rts_click";
const MAX_UTM_PARAMS = 10;
const MAX_UTM_LENGTH = 200;
const MAX_TO_LENGTH = 1024;

/** True when `to` is a plain path of the destination's own site. */
export function isSafePath(to: string): boolean {
  if (!to || to.length > MAX_TO_LENGTH) return false;
  let form = to;
  // Check the path as sent and as any decoder along the way might read it.
  for (let i = 0; i < 3; i++) {
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
    if (!form.startsWith("/") || form.startsWith("//") || /[\\\u0000-\u001f\u007f\s]/.test(form)) return false;
    let next: string;
    try {
      next = decodeURIComponent(form);
    } catch {
      return false;
    }
    if (next === form) return true;
    form = next;
  }
  return false;
}

export interface LocationInput {
  destination: string;
  /** Null: no attribution (unknown code). */
  attribution: { param: string; code: string; clickId: string | null } | null;
  /** The link's own query string. */
  query: URLSearchParams;
}

/** The Location of the redirect. */
export function buildLocation({ destination, attribution, query }: LocationInput): string {
  const base = new URL(destination);
  let target = base;
  const to = query.get("to");
  if (to !== null && isSafePath(to)) {
    const candidate = new URL(to, base.origin);
    if (candidate.origin === base.origin) target = candidate;
  }
  let utm = 0;
  for (const [k, v] of query) {
    if (!/^utm_[a-z0-9_]{1,30}$/i.test(k) || utm >= MAX_UTM_PARAMS) continue;
    target.searchParams.set(k.toLowerCase(), clipText(v, MAX_UTM_LENGTH));
    utm++;
  }
  if (attribution) {
    target.searchParams.set(attribution.param, attribution.code);
    if (attribution.clickId) target.searchParams.set(CLICK_PARAM, attribution.clickId);
  }
  return target.toString();
}

/** Control characters (C0 and DEL): never part of a campaign name, and NUL is text no database column takes. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
const CONTROL = /[\u0000-\u001f\u007f]/g;

/** The utm_* fields stored with a click (control characters removed, first 200 characters each). */
export function utmFields(query: URLSearchParams) {
  const get = (k: string) => clipText(query.get(k)?.replace(CONTROL, "").trim() ?? "", MAX_UTM_LENGTH) || null;
  return { utmSource: get("utm_source"), utmMedium: get("utm_medium"), utmCampaign: get("utm_campaign"), utmTerm: get("utm_term"), utmContent: get("utm_content") };
}

/** The host of a Referer header, or null. */
export function refererHost(referer: string | null): string | null {
  if (!referer) return null;
  try {
    const u = new URL(referer);
    return u.protocol === "http:" || u.protocol === "https:" ? u.hostname.slice(0, 253) : null;
  } catch {
    return null;
  }
}
