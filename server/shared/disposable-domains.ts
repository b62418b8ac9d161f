// A small built-in list of well-known disposable (throw-away) email providers, used when a
// business turns on blockDisposableEmails. Businesses add their own via blockedEmailDomains.
export const DISPOSABLE_EMAIL_DOMAINS: ReadonlySet<string> = new Set([
  "10minutemail.com", "20minutemail.com", "33mail.com", "anonaddy.me", "burnermail.io",
  "discard.email", "dispostable.com", "emailondeck.com", "fakeinbox.com", "fakemail.net",
  "getairmail.com", "getnada.com", "guerrillamail.biz", "guerrillamail.com", "guerrillamail.de",
  "guerrillamail.info", "guerrillamail.net", "guerrillamail.org", "guerrillamailblock.com",
  "harakirimail.com", "incognitomail.org", "inboxkitten.com", "jetable.org", "mail-temp.com",
  "mailcatch.com", "maildrop.cc", "mailinator.com", "mailinator.net", "mailnesia.com",
  "mintemail.com", "moakt.com", "mohmal.com", "mytemp.email", "nada.email", "sharklasers.com",
  "spam4.me", "spambox.us", "spamgourmet.com", "temp-mail.io", "temp-mail.org", "tempail.com",
  "tempmail.com", "tempmail.dev", "tempmail.net", "tempmailo.com", "tempr.email", "throwawaymail.com",
  "trashmail.com", "trashmail.de", "trashmail.net", "yopmail.com", "yopmail.fr", "yopmail.net",
]);

/** True when the domain (or a parent domain) is in the set: "x.mailinator.com" matches "mailinator.com". */
export function domainMatches(domain: string, set: ReadonlySet<string> | readonly string[]): boolean {
  const s = set instanceof Set ? set : new Set(set as readonly string[]);
  const labels = domain.toLowerCase().split(".");
  for (let i = 0; i < labels.length - 1; i++) if (s.has(labels.slice(i).join("."))) return true;
  return false;
}
