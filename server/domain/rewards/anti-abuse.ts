// The anti-abuse screen the SDK pipeline runs, inside its transaction, when it is about to record
// a referral. Each rule of the business's referral settings either rejects the referral or holds
// it for review, always with a machine-readable reason that is stored on the referral.
import type { Tx } from "../../db/client";
import type { Participant, ReferralSettings } from "../../db/generated";
import { loadReferralSettings } from "../referral-settings/service";
import { screenSignals } from "./fraud-signals";
import { DISPOSABLE_EMAIL_DOMAINS, domainMatches } from "./disposable-domains";

export interface ScreenReferralInput {
  businessId: string;
  environment: "TEST" | "LIVE";
  referrer: Participant;
  referred: Participant;
  now: Date;
  /** The link click the referral came from (fraud signals); null or absent: none. */
  clickId?: string | null;
}

export interface ScreenResult {
  status: "PENDING" | "FLAGGED" | "REJECTED";
  /** Machine-readable reason when FLAGGED or REJECTED, e.g. SELF_REFERRAL, BLOCKED_EMAIL_DOMAIN. */
  reason?: string;
}

const REFERRAL_REASONS = {
  SELF_REFERRAL: "SELF_REFERRAL",
  BLOCKED_EMAIL_DOMAIN: "BLOCKED_EMAIL_DOMAIN",
  DISPOSABLE_EMAIL: "DISPOSABLE_EMAIL",
  ALREADY_REFERRED: "ALREADY_REFERRED",
  REFERRER_DAILY_LIMIT: "REFERRER_DAILY_LIMIT",
  HELD_FOR_REVIEW: "HELD_FOR_REVIEW",
} as const;

export const utcDayStart = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));

const emailDomainOf = (email: string | null) => (email && email.includes("@") ? email.slice(email.lastIndexOf("@") + 1).toLowerCase() : null);

type ScreenSettings = Pick<ReferralSettings, "blockSelfReferral" | "blockedEmailDomains" | "blockDisposableEmails">;
type Who = Pick<Participant, "id" | "email" | "externalId">;

/**
 * The rules that look only at who refers whom (self-referral, blocked and disposable email
 * domains): a rejection, or null. Pure: screenReferral and the set-based batch path
 * (tracking/event-batch.ts) both apply it.
 */
export function screenIdentities(s: ScreenSettings, referrer: Who, referred: Who): ScreenResult | null {
  if (s.blockSelfReferral) {
    const sameEmail = !!referrer.email && !!referred.email && referrer.email.toLowerCase() === referred.email.toLowerCase();
    const sameUser = !!referrer.externalId && referrer.externalId === referred.externalId;
    if (referrer.id === referred.id || sameEmail || sameUser) return { status: "REJECTED", reason: REFERRAL_REASONS.SELF_REFERRAL };
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

export async function screenReferral(tx: Tx, input: ScreenReferralInput): Promise<ScreenResult> {
  const { businessId, environment, referrer, referred, now } = input;
  const s = await loadReferralSettings(tx, businessId);

  const rejected = screenIdentities(s, referrer, referred);
  if (rejected) return rejected;

  if (s.oneReferralPerReferredUser || s.maxReferralsPerReferrerPerDay !== null) {
    // Serialise referrals that touch the same referrer or referred user, so that the counts
    // below cannot be raced by a concurrent job (locks taken in a fixed order: no deadlock).
    for (const key of [referrer.id, referred.id].sort()) {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`referral:${key}`}))`;
    }
  }

  if (s.oneReferralPerReferredUser) {
    const other = await tx.referral.findFirst({
      where: { businessId, environment, referredId: referred.id, referrerId: { not: referrer.id }, status: { not: "REJECTED" } },
      select: { id: true },
    });
    if (other) return { status: "REJECTED", reason: REFERRAL_REASONS.ALREADY_REFERRED };
  }

  if (s.maxReferralsPerReferrerPerDay !== null) {
    const today = await tx.referral.count({
      where: { businessId, environment, referrerId: referrer.id, status: { not: "REJECTED" }, createdAt: { gte: utcDayStart(now) } },
    });
    if (today >= s.maxReferralsPerReferrerPerDay) return { status: "REJECTED", reason: REFERRAL_REASONS.REFERRER_DAILY_LIMIT };
  }

  const signal = await screenSignals(tx, s, { businessId, environment }, { referrer, referred, clickId: input.clickId ?? null });
  if (signal) return signal;

  if (s.holdForReview) return { status: "FLAGGED", reason: REFERRAL_REASONS.HELD_FOR_REVIEW };
  return { status: "PENDING" };
}
