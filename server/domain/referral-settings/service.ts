// Anti-abuse referral rules of a business (read by the reward engine's screenReferral and
// settleEvent). The row is created with its defaults on first use.
import { db, type Tx } from "../../db/client";
import { signalRules } from "./fraud-signals";
import type { ReferralSettingsOutput, UpdateReferralSettingsInput } from "./schemas";

type Client = Tx | typeof db;

export async function loadReferralSettings(client: Client, businessId: string) {
  const found = await client.referralSettings.findUnique({ where: { businessId } });
  if (found) return found;
  // upsert: two first readers must not collide on the primary key.
  return client.referralSettings.upsert({ where: { businessId }, create: { businessId }, update: {} });
}

type Row = Awaited<ReturnType<typeof loadReferralSettings>>;

const toOutput = (s: Row): ReferralSettingsOutput => ({
  blockSelfReferral: s.blockSelfReferral,
  oneReferralPerReferredUser: s.oneReferralPerReferredUser,
  maxReferralsPerReferrerPerDay: s.maxReferralsPerReferrerPerDay,
  blockedEmailDomains: s.blockedEmailDomains,
  blockDisposableEmails: s.blockDisposableEmails,
  holdForReview: s.holdForReview,
  attributionWindowDays: s.attributionWindowDays,
  signals: signalRules(s),
  clickVelocityPerHour: s.clickVelocityPerHour,
});

export async function getReferralSettings(businessId: string): Promise<ReferralSettingsOutput> {
  return referralSettingsView(db, businessId);
}

/** The settings as GET /business/referrals/settings shows them, read with `client` (a transaction sees its own writes). */
export async function referralSettingsView(client: Client, businessId: string): Promise<ReferralSettingsOutput> {
  return toOutput(await loadReferralSettings(client, businessId));
}

export async function updateReferralSettings(businessId: string, input: UpdateReferralSettingsInput): Promise<ReferralSettingsOutput> {
  await loadReferralSettings(db, businessId);
  const { signals, ...rest } = input;
  const row = await db.referralSettings.update({
    where: { businessId },
    data: {
      ...rest,
      sameVisitorRule: signals?.SAME_VISITOR,
      clickVelocityRule: signals?.CLICK_VELOCITY,
      walletSharedRule: signals?.WALLET_SHARED,
      noClickRule: signals?.NO_CLICK,
      blockedEmailDomains: input.blockedEmailDomains === undefined ? undefined : [...new Set(input.blockedEmailDomains)],
    },
  });
  return toOutput(row);
}
