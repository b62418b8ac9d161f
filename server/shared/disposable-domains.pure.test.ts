import { describe, expect, it } from "vitest";
import { DISPOSABLE_EMAIL_DOMAINS, domainMatches } from "./disposable-domains";

const disposable = (domain: string) => domainMatches(domain, DISPOSABLE_EMAIL_DOMAINS);

describe("disposable email domains", () => {
  it("refuses the maintained list's names, its wildcard names and their subdomains", () => {
    expect(DISPOSABLE_EMAIL_DOMAINS.size).toBeGreaterThan(100_000);
    expect(["mailinator.com", "yopmail.com", "guerrillamail.com", "sharklasers.com"].every(disposable)).toBe(true);
    expect(disposable("anonaddy.me")).toBe(true); // in the wildcard list only
    expect(disposable("inbox.Mailinator.COM")).toBe(true);
  });

  it("still refuses every name the earlier hand-written list refused", () => {
    expect(["emailondeck.com", "fakemail.net", "temp-mail.io", "tempmail.com", "tempmail.net", "10minutemail.com", "trashmail.de"].every(disposable)).toBe(true);
  });

  it("accepts ordinary providers and look-alikes of listed names", () => {
    expect(["gmail.com", "outlook.com", "proton.me", "fastmail.com", "example.com", "mailinator.com.example.org"].some(disposable)).toBe(false);
  });
});
