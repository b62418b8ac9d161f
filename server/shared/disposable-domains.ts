// Disposable (throw-away) email providers, refused when a business turns on blockDisposableEmails:
// the maintained list of the disposable-email-domains package (its exact names and its wildcard
// names: any subdomain of those), plus the few names below that our earlier list refused and the
// package does not list yet. Businesses add their own domains via blockedEmailDomains.
import domains from "disposable-email-domains/index.json" with { type: "json" };
import wildcards from "disposable-email-domains/wildcard.json" with { type: "json" };

/** Refused as well: disposable providers not (yet) in the package's list. */
const ALSO_DISPOSABLE = ["emailondeck.com", "fakemail.net", "temp-mail.io", "tempmail.com", "tempmail.net"];

export const DISPOSABLE_EMAIL_DOMAINS: ReadonlySet<string> = new Set<string>([...domains, ...wildcards, ...ALSO_DISPOSABLE]);

/** True when the domain (or a parent domain) is in the set: "x.mailinator.com" matches "mailinator.com". */
export function domainMatches(domain: string, set: ReadonlySet<string> | readonly string[]): boolean {
  const s = set instanceof Set ? set : new Set(set as readonly string[]);
  const labels = domain.toLowerCase().split(".");
  for (let i = 0; i < labels.length - 1; i++) if (s.has(labels.slice(i).join("."))) return true;
  return false;
}
