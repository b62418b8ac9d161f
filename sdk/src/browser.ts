// @referral-tracking/sdk/browser — for sign-up pages: captures a `?ref=` code from the landing
// URL into a first-party cookie, so the code survives navigation until the visitor signs up,
// and gives it back for the sign-up form (which sends it to your server; your server calls
// applyReferral with a secret key). No API key is needed in the browser.

export interface CaptureOptions {
  /** Query parameter holding the code (default "ref"). */
  param?: string;
  /** Cookie name (default "rts_ref"). */
  cookieName?: string;
  /** Cookie lifetime in days (default 30: the attribution window you promise referrers). */
  days?: number;
  /** Cookie domain, e.g. ".example.com" to share it across subdomains (default: this host). */
  domain?: string;
  /** Keep an earlier code instead of replacing it with a newer one (default false: last click wins). */
  firstTouch?: boolean;
}

const CODE_RE = /^[A-Za-z0-9_.-]{1,64}$/;

function readCookie(name: string): string | null {
  if (typeof document === "undefined") return null;
  for (const part of document.cookie.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) {
      const value = decodeURIComponent(v.join("="));
      return CODE_RE.test(value) ? value : null;
    }
  }
  return null;
}

/** Reads `?ref=` from the current URL (or `url`) into the cookie; returns the code now stored. */
export function captureReferral(options: CaptureOptions = {}, url?: string): string | null {
  const name = options.cookieName ?? "rts_ref";
  const existing = readCookie(name);
  const href = url ?? (typeof location !== "undefined" ? location.href : undefined);
  if (!href) return existing;
  const code = new URL(href).searchParams.get(options.param ?? "ref")?.trim();
  if (!code || !CODE_RE.test(code)) return existing;
  if (existing && options.firstTouch) return existing;
  if (typeof document !== "undefined") {
    const maxAge = Math.round((options.days ?? 30) * 86_400);
    const secure = typeof location !== "undefined" && location.protocol === "https:" ? "; Secure" : "";
    const domain = options.domain ? `; Domain=${options.domain}` : "";
    document.cookie = `${name}=${encodeURIComponent(code)}; Max-Age=${maxAge}; Path=/; SameSite=Lax${domain}${secure}`;
  }
  return code;
}

/** The captured code, for a sign-up form's hidden field; null when there is none. */
export function getReferralCode(options: Pick<CaptureOptions, "cookieName"> = {}): string | null {
  return readCookie(options.cookieName ?? "rts_ref");
}

/** Forgets the code (e.g. after the sign-up applied it). */
export function clearReferralCode(options: Pick<CaptureOptions, "cookieName" | "domain"> = {}): void {
  if (typeof document === "undefined") return;
  const domain = options.domain ? `; Domain=${options.domain}` : "";
  document.cookie = `${options.cookieName ?? "rts_ref"}=; Max-Age=0; Path=/; SameSite=Lax${domain}`;
}

/** Fills `<input name="referralCode">` (or `fieldName`) in the given forms with the captured code. */
export function fillReferralFields(fieldName = "referralCode", root: ParentNode = document): number {
  const code = getReferralCode();
  if (!code) return 0;
  const inputs = root.querySelectorAll<HTMLInputElement>(`input[name="${fieldName}"]`);
  inputs.forEach((i) => {
    if (!i.value) i.value = code;
  });
  return inputs.length;
}
