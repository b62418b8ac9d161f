// The anti-abuse screen of one new referral, inside the caller's transaction: the counts the
// screen needs (another active referral of the referred user, the referrer's referrals today),
// read under the advisory locks that serialise referrals of the same people, then the rules
// core's screen (rules/screen.ts).
import type { Tx } from "../../db/client";
import type { Participant } from "../../db/generated";
import { loadReferralSettings } from "../referral-settings/service";
import { screen, utcDayStart, type ScreenResult } from "../rules/screen";

export interface ScreenReferralInput {
  businessId: string;
  environment: "TEST" | "LIVE";
  referrer: Participant;
  referred: Participant;
  now: Date;
}

export async function screenReferral(tx: Tx, input: ScreenReferralInput): Promise<ScreenResult> {
  const { businessId, environment, referrer, referred, now } = input;
  const s = await loadReferralSettings(tx, businessId);
  if (s.oneReferralPerReferredUser || s.maxReferralsPerReferrerPerDay !== null) {
    // Serialise referrals that touch the same referrer or referred user (fixed order: no deadlock).
    for (const key of [referrer.id, referred.id].sort()) {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`referral:${key}`}))`;
    }
  }
  const other = s.oneReferralPerReferredUser
    ? await tx.referral.findFirst({
        where: { businessId, environment, referredId: referred.id, referrerId: { not: referrer.id }, status: { not: "REJECTED" }, provisional: false },
        select: { id: true },
      })
    : null;
  const today =
    s.maxReferralsPerReferrerPerDay !== null
      ? await tx.referral.count({ where: { businessId, environment, referrerId: referrer.id, status: { not: "REJECTED" }, createdAt: { gte: utcDayStart(now) } } })
      : 0;
  return screen(s, referrer, referred, other !== null, today);
}
