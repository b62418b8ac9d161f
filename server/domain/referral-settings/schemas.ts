import { z } from "zod";
import { strictBoolean, strictNumber } from "../../shared/strict-types";

const DOMAIN_RE = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

const emailDomain = z
  .string()
  .trim()
  .max(253)
  .transform((s) => s.toLowerCase().replace(/^@/, ""))
  .refine((s) => DOMAIN_RE.test(s), "Must be an email domain such as example.com");

const SIGNAL_RULES = ["OFF", "FLAG", "REJECT"] as const;
/** "off" | "flag" | "reject", in any case. */
const signalRule = z
  .string()
  .transform((v) => v.toUpperCase())
  .pipe(z.enum(SIGNAL_RULES));
const signalRulesOutput = z.object({
  SAME_VISITOR: z.enum(SIGNAL_RULES),
  CLICK_VELOCITY: z.enum(SIGNAL_RULES),
  WALLET_SHARED: z.enum(SIGNAL_RULES),
  NO_CLICK: z.enum(SIGNAL_RULES),
});

export const referralSettingsOutput = z.object({
  blockSelfReferral: z.boolean(),
  oneReferralPerReferredUser: z.boolean(),
  /** null = no limit */
  maxReferralsPerReferrerPerDay: z.number().int().nullable(),
  blockedEmailDomains: z.array(z.string()),
  blockDisposableEmails: z.boolean(),
  holdForReview: z.boolean(),
  /** null = no window (an event qualifies a referral whenever it arrives) */
  attributionWindowDays: z.number().int().nullable(),
  /** Fraud signals from link clicks and wallets: OFF, FLAG (hold for review) or REJECT each. */
  signals: signalRulesOutput,
  /** CLICK_VELOCITY fires above this many counted clicks of one visitor in an hour. */
  clickVelocityPerHour: z.number().int(),
});
export type ReferralSettingsOutput = z.infer<typeof referralSettingsOutput>;

export const updateReferralSettingsInput = z.strictObject({
  blockSelfReferral: strictBoolean.optional(),
  oneReferralPerReferredUser: strictBoolean.optional(),
  maxReferralsPerReferrerPerDay: strictNumber(z.number().int().min(1).max(1_000_000)).nullable().optional(),
  blockedEmailDomains: z.array(emailDomain).max(1000).optional(),
  blockDisposableEmails: strictBoolean.optional(),
  holdForReview: strictBoolean.optional(),
  attributionWindowDays: strictNumber(z.number().int().min(1).max(3650)).nullable().optional(),
  /** Only the signals sent change. */
  signals: z
    .strictObject({ SAME_VISITOR: signalRule.optional(), CLICK_VELOCITY: signalRule.optional(), WALLET_SHARED: signalRule.optional(), NO_CLICK: signalRule.optional() })
    .optional(),
  clickVelocityPerHour: strictNumber(z.number().int().min(1).max(100_000)).optional(),
});
export type UpdateReferralSettingsInput = z.infer<typeof updateReferralSettingsInput>;
