// @referral-tracking/sdk/browser — for sign-up pages: captures a `?ref=` code (and the
// `rts_click` click id a referral link adds) from the landing URL into first-party cookies, so
// they survive navigation until the visitor signs up, and gives them back for the sign-up form
// (which sends them to your server; your server calls applyReferral with a secret key and
// `clickId`). No API key is needed in the browser.

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
  /** Query parameter holding the click id of a referral link (default "rts_click"). */
  clickParam?: string;
  /** Cookie name of the click id (default: the code cookie's name + "_click"). */
  clickCookieName?: string;
}

const CODE_RE = /^[A-Za-z0-9_.-]{1,64}$/;
const CLICK_RE = /^[A-Za-z0-9_-]{1,64}$/;

function readCookie(name: string, re = CODE_RE): string | null {
  if (typeof document === "undefined") return null;
  for (const part of document.cookie.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) {
      let value: string;
      try {
        value = decodeURIComponent(v.join("="));
      } catch {
        return null; // not percent-encoded text (another script's cookie): no code
      }
      return re.test(value) ? value : null;
    }
  }
  return null;
}

function writeCookie(name: string, value: string, options: CaptureOptions) {
  if (typeof document === "undefined") return;
  const maxAge = Math.round((options.days ?? 30) * 86_400);
  const secure = typeof location !== "undefined" && location.protocol === "https:" ? "; Secure" : "";
  const domain = options.domain ? `; Domain=${options.domain}` : "";
  document.cookie = `${name}=${encodeURIComponent(value)}; Max-Age=${maxAge}; Path=/; SameSite=Lax${domain}${secure}`;
}

const clickCookie = (options: Pick<CaptureOptions, "cookieName" | "clickCookieName">) => options.clickCookieName ?? `${options.cookieName ?? "rts_ref"}_click`;

/**
 * Reads `?ref=` (and the link's `rts_click`) from the current URL (or `url`) into the cookies;
 * returns the code now stored. The click id is stored with its code and replaced with it.
 */
export function captureReferral(options: CaptureOptions = {}, url?: string): string | null {
  const name = options.cookieName ?? "rts_ref";
  const existing = readCookie(name);
  const href = url ?? (typeof location !== "undefined" ? location.href : undefined);
  if (!href) return existing;
  const params = new URL(href).searchParams;
  const code = params.get(options.param ?? "ref")?.trim();
  if (!code || !CODE_RE.test(code)) return existing;
  if (existing && options.firstTouch) return existing;
  writeCookie(name, code, options);
  const click = params.get(options.clickParam ?? "rts_click")?.trim();
  if (click && CLICK_RE.test(click)) writeCookie(clickCookie(options), click, options);
  else clearCookie(clickCookie(options), options.domain);
  return code;
}

/** The click id captured with the code (send it as `clickId`); null when there is none. */
export function getClickId(options: Pick<CaptureOptions, "cookieName" | "clickCookieName"> = {}): string | null {
  return readCookie(clickCookie(options), CLICK_RE);
}

function clearCookie(name: string, domain?: string) {
  if (typeof document === "undefined") return;
  document.cookie = `${name}=; Max-Age=0; Path=/; SameSite=Lax${domain ? `; Domain=${domain}` : ""}`;
}

/** The captured code, for a sign-up form's hidden field; null when there is none. */
export function getReferralCode(options: Pick<CaptureOptions, "cookieName"> = {}): string | null {
  return readCookie(options.cookieName ?? "rts_ref");
}

/** Forgets the code and its click id (e.g. after the sign-up applied them). */
export function clearReferralCode(options: Pick<CaptureOptions, "cookieName" | "clickCookieName" | "domain"> = {}): void {
  clearCookie(options.cookieName ?? "rts_ref", options.domain);
  clearCookie(clickCookie(options), options.domain);
}

/**
 * Fills `<input name="referralCode">` (or `fieldName`) in the given forms with the captured code,
 * and `<input name="clickId">` (or `clickFieldName`) with its click id. `options`: the cookie
 * names given to captureReferral, if not the defaults.
 */
export function fillReferralFields(fieldName = "referralCode", root: ParentNode = document, clickFieldName = "clickId", options: Pick<CaptureOptions, "cookieName" | "clickCookieName"> = {}): number {
  const code = getReferralCode(options);
  if (!code) return 0;
  const inputs = root.querySelectorAll<HTMLInputElement>(`input[name="${fieldName}"]`);
  inputs.forEach((i) => {
    if (!i.value) i.value = code;
  });
  const click = getClickId(options);
  if (click) {
    root.querySelectorAll<HTMLInputElement>(`input[name="${clickFieldName}"]`).forEach((i) => {
      if (!i.value) i.value = click;
    });
  }
  return inputs.length;
}
