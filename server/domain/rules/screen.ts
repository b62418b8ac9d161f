// The anti-abuse screen of a new referral, pure: who refers whom (self-referral, blocked and
// disposable email domains), one referral per referred user, the referrer's daily limit and the
// review hold. The counts it needs come from the rules core's state (decide-referral.ts), its
// only caller.
import type { Participant, ReferralSettings } from "../../db/generated";
import { DISPOSABLE_EMAIL_DOMAINS, domainMatches } from "../../shared/disposable-domains";
import type { SignalVerdict } from "../referral-settings/fraud-signals";

export interface ScreenResult {
  status: "PENDING" | "FLAGGED" | "REJECTED";
  /** Machine-readable reason when FLAGGED or REJECTED, e.g. SELF_REFERRAL, BLOCKED_EMAIL_DOMAIN. */
  reason?: string;
}

export const REFERRAL_REASONS = {
  SELF_REFERRAL: "SELF_REFERRAL",
  BLOCKED_EMAIL_DOMAIN: "BLOCKED_EMAIL_DOMAIN",
  DISPOSABLE_EMAIL: "DISPOSABLE_EMAIL",
  ALREADY_REFERRED: "ALREADY_REFERRED",
  REFERRER_DAILY_LIMIT: "REFERRER_DAILY_LIMIT",
  HELD_FOR_REVIEW: "HELD_FOR_REVIEW",
  /** A provisional referral (publishable key) replaced by one sent with a secret key. */
  SUPERSEDED: "SUPERSEDED",
} as const;

export const utcDayStart = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));

const emailDomainOf = (email: string | null) => (email && email.includes("@") ? email.slice(email.lastIndexOf("@") + 1).toLowerCase() : null);

export type ScreenSettings = Pick<
  ReferralSettings,
  "blockSelfReferral" | "blockedEmailDomains" | "blockDisposableEmails" | "oneReferralPerReferredUser" | "maxReferralsPerReferrerPerDay" | "holdForReview"
>;
type Who = Pick<Participant, "id" | "email">;

/** The rules that look only at who refers whom: a rejection, or null. */
function screenIdentities(s: Omit<ScreenSettings, "oneReferralPerReferredUser" | "maxReferralsPerReferrerPerDay" | "holdForReview">, referrer: Who, referred: Who): ScreenResult | null {
  if (s.blockSelfReferral) {
    // Both are participants of one business and environment, where a user id is unique: the same
    // user id is the same participant (the id check). An email is unique as written, and events
    // send it in any case: the same email in another case is another participant, the same person.
    const sameEmail = !!referrer.email && !!referred.email && referrer.email.toLowerCase() === referred.email.toLowerCase();
    if (referrer.id === referred.id || sameEmail) return { status: "REJECTED", reason: REFERRAL_REASONS.SELF_REFERRAL };
  }
  const domain = emailDomainOf(referred.email);
  if (domain && s.blockedEmailDomains.length && domainMatches(domain, s.blockedEmailDomains)) {
    return { status: "REJECTED", reason: REFERRAL_REASONS.BLOCKED_EMAIL_DOMAIN };
  }
  if (domain && s.blockDisposableEmails && domainMatches(domain, DISPOSABLE_EMAIL_DOMAINS)) {
    return { status: "REJECTED", reason: REFERRAL_REASONS.DISPOSABLE_EMAIL };
  }
  return null;
}

/**
 * The whole screen. `otherActive`: the referred user already has a referral from another
 * referrer that blocks this one (not rejected; provisional ones block only provisional ones);
 * `madeToday`: the referrer's referrals today (UTC) that were not rejected; `signal`: the
 * verdict of the fraud-signal rules (rewards/fraud-signals.ts), if any fired.
 */
export function screen(s: ScreenSettings, referrer: Who, referred: Who, otherActive: boolean, madeToday: number, signal: SignalVerdict | null = null): ScreenResult {
  const rejected = screenIdentities(s, referrer, referred);
  if (rejected) return rejected;
  if (s.oneReferralPerReferredUser && otherActive) return { status: "REJECTED", reason: REFERRAL_REASONS.ALREADY_REFERRED };
  if (s.maxReferralsPerReferrerPerDay !== null && madeToday >= s.maxReferralsPerReferrerPerDay) return { status: "REJECTED", reason: REFERRAL_REASONS.REFERRER_DAILY_LIMIT };
  if (signal) return signal;
  if (s.holdForReview) return { status: "FLAGGED", reason: REFERRAL_REASONS.HELD_FOR_REVIEW };
  return { status: "PENDING" };
}
