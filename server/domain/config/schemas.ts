import { z } from "zod";
import { AppError } from "../../shared/errors";
import { currencyCode, ethAmount } from "../../shared/money";
import { strictBoolean, strictNumber } from "../../shared/strict-types";
import { environment } from "../../shared/environment";
import { assetTag } from "../../shared/asset";

const generalConfigOutput = z.object({
  businessName: z.string(),
  website: z.string().nullable(),
  rewardStrategy: z.enum(["FIXED", "TIERED"]),
  referralRewardEth: z.string(),
  bonusEth: z.string(),
  eventProcessing: z.enum(["AUTO", "SYNC", "ASYNC"]),
  qualifyingEvents: z.array(z.string()),
  /** Event names that reverse the referral's rewards when tracked (e.g. "refund"); also under spend. */
  reversalEvents: z.array(z.string()),
  /** Where referral links (/r/:code) lead in this environment; null: links answer 404. */
  linkDestinationUrl: z.string().nullable(),
  /** Query parameter that carries the code to the destination (default "ref"). */
  linkParam: z.string(),
  /** Which click a visitor who clicked several links is credited to. */
  attribution: z.enum(["FIRST_CLICK", "LAST_CLICK"]),
  /** The portal shows the month's top referrers (handles or masked names); per environment. */
  leaderboardEnabled: z.boolean(),
  /** The currency of an event amount sent without one (per environment; default USD). */
  defaultCurrency: currencyCode,
  /** True: a referred customer without a payout wallet when their qualifying event is decided gets no bonus (per environment; default false). */
  bonusRequiresWallet: z.boolean(),
});

const spendConfigOutput = z.object({
  /** null = no cap */
  maxEthPerDayPerUser: z.string().nullable(),
  maxReferralEthPerEvent: z.string().nullable(),
  maxBonusEthPerEvent: z.string().nullable(),
  lowPoolAlertEth: z.string(),
  autoRefillEnabled: z.boolean(),
  autoRefillAmountEth: z.string(),
  /** Days a granted reward stays ON_HOLD before it becomes PAYABLE (0–90). */
  payoutHoldDays: z.number().int(),
  /** A participant's payable rewards are paid out once their sum reaches this. */
  minPayoutEth: z.string(),
  /** Payouts run on a schedule (PAYOUT_INTERVAL_MS) without POST /business/payouts/run. */
  autoPayoutEnabled: z.boolean(),
  /** Event names that reverse the referral's rewards when tracked (same list as general.reversalEvents). */
  reversalEvents: z.array(z.string()),
  /** Payouts go only to wallets the participant proved by signature in the portal. */
  requireVerifiedWallet: z.boolean(),
  /** Referrers may ask to be paid now in the portal (POST /portal/api/withdrawals). */
  withdrawalsEnabled: z.boolean(),
  /** The smallest withdrawal a referrer may request (minPayoutEth until set); a run still holds it to minPayoutEth. */
  minWithdrawalEth: z.string(),
});

export const configOutput = z.object({
  /** The asset every amount below is in (GET /business/config/asset). */
  asset: assetTag,
  /** The environment whose values `general.referralRewardEth`, `general.bonusEth` and `spend` show. */
  environment,
  /** True when this environment has values of its own; false when it uses the business-wide ones. */
  environmentSpecific: z.boolean(),
  general: generalConfigOutput,
  spend: spendConfigOutput,
});

/** GET /business/config?environment=TEST|LIVE (default LIVE). */
export const getConfigInput = z.object({ environment: environment.default("LIVE") });

/**
 * Only for the fields that may differ by environment (referralRewardEth, bonusEth, every spend
 * field): with `environment` they change in that environment only; without, in both.
 */
const targetEnvironment = environment.optional();
export type ConfigOutput = z.infer<typeof configOutput>;

const eventName = z.string().trim().min(1).max(100);

/** PATCH /business/config/general: every field optional; only the fields sent change. */
export const updateGeneralInput = z.strictObject({
  environment: targetEnvironment,
  businessName: z.string().trim().min(1).max(120).optional(),
  website: z.url({ protocol: /^https?$/ }).max(2048).nullable().optional(),
  rewardStrategy: z.enum(["FIXED", "TIERED"]).optional(),
  referralRewardEth: ethAmount.optional(),
  bonusEth: ethAmount.optional(),
  eventProcessing: z.enum(["AUTO", "SYNC", "ASYNC"]).optional(),
  /** Event names that qualify a referral for rewards; an empty list means every event qualifies. */
  qualifyingEvents: z.array(eventName).max(100).optional(),
  reversalEvents: z.array(eventName).max(100).optional(),
  /** https (http allowed with environment TEST); no credentials, no fragment; null removes it. */
  linkDestinationUrl: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .refine((u) => { const p = new URL(u); return !p.username && !p.password && !p.hash; }, "No credentials or #fragment in the destination")
    .nullable()
    .optional(),
  linkParam: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,31}$/, "1–32 letters, digits, _ or -, starting with a letter").refine((p) => p !== "rts_click" && !p.startsWith("utm_"), "Reserved parameter name").optional(),
  attribution: z.enum(["FIRST_CLICK", "LAST_CLICK"]).optional(),
  leaderboardEnabled: strictBoolean.optional(),
  defaultCurrency: currencyCode.optional(),
  bonusRequiresWallet: strictBoolean.optional(),
}).superRefine((v, ctx) => {
  // A destination set for LIVE, or for both environments (no `environment`), must be https.
  if (v.linkDestinationUrl && v.environment !== "TEST" && !v.linkDestinationUrl.startsWith("https://")) {
    ctx.addIssue({ code: "custom", path: ["linkDestinationUrl"], message: "LIVE links need an https destination (http is allowed with environment TEST)" });
  }
});
export type UpdateGeneralInput = z.infer<typeof updateGeneralInput>;

/**
 * The general fields that change what the pool pays or to whom (which click a referral is
 * credited to), and where every referral link leads: the owner or an admin only.
 */
const PAYING_GENERAL_FIELDS = ["rewardStrategy", "referralRewardEth", "bonusEth", "qualifyingEvents", "reversalEvents", "defaultCurrency", "attribution", "linkDestinationUrl", "linkParam", "bonusRequiresWallet"] as const;
export const changesPay = (input: UpdateGeneralInput) => PAYING_GENERAL_FIELDS.some((f) => input[f] !== undefined);

/** PATCH /business/config/spend (owner): caps take null for "no cap". */
export const updateSpendInput = z.strictObject({
  environment: targetEnvironment,
  maxEthPerDayPerUser: ethAmount.nullable().optional(),
  maxReferralEthPerEvent: ethAmount.nullable().optional(),
  maxBonusEthPerEvent: ethAmount.nullable().optional(),
  lowPoolAlertEth: ethAmount.optional(),
  autoRefillEnabled: strictBoolean.optional(),
  autoRefillAmountEth: ethAmount.optional(),
  payoutHoldDays: strictNumber(z.number().int().min(0).max(90)).optional(),
  minPayoutEth: ethAmount.optional(),
  autoPayoutEnabled: strictBoolean.optional(),
  reversalEvents: z.array(eventName).max(100).optional(),
  requireVerifiedWallet: strictBoolean.optional(),
  withdrawalsEnabled: strictBoolean.optional(),
  /** null: back to minPayoutEth. */
  minWithdrawalEth: ethAmount.nullable().optional(),
});
export type UpdateSpendInput = z.infer<typeof updateSpendInput>;

/** The spend fields an admin may change too (the referrers' withdrawals); every other one is the owner's. */
const ADMIN_SPEND_FIELDS = new Set(["environment", "withdrawalsEnabled", "minWithdrawalEth"]);
export function assertCanChangeSpend(role: string, input: UpdateSpendInput): void {
  if (role === "OWNER") return;
  const adminOnly = Object.entries(input).every(([k, v]) => v === undefined || ADMIN_SPEND_FIELDS.has(k));
  if (role !== "ADMIN" || !adminOnly) throw new AppError("NOT_OWNER", "Only the owner of the business can do this (an admin may change withdrawalsEnabled and minWithdrawalEth)");
}
