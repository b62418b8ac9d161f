// Commission rules and pricing (issue 27): the zod schemas of their routes, and the one check of
// a rule's field combination that create, update (after merging) and simulate share.
import { z } from "zod";
import { isoInstant } from "../../shared/dates";
import { strictBoolean, strictNumber } from "../../shared/strict-types";
import { aboveFixedAmountMax, amountProblem, currencyCode, decimalAmount, FIAT_CURRENCIES, FIXED_AMOUNT_MAX, type Currency } from "../../shared/money";
import { environment } from "../../shared/environment";
import { eventNameSchema } from "../../shared/event-name";
// Validation messages in words (zod's error map, installed on import), wherever these schemas are parsed.
import "../../shared/validation-words";

const PERCENT_RE = /^(100(\.0{1,2})?|[1-9]?\d(\.\d{1,2})?)$/;
/** A percentage as a decimal string: > 0, ≤ 100, at most 2 decimals ("10", "2.5", "33.33"). */
const percentText = z
  .string()
  .max(6)
  .regex(PERCENT_RE, 'A decimal string > 0 and ≤ 100 with at most 2 decimals, e.g. "10" or "2.5"')
  .refine((p) => Number(p) > 0, "Must be greater than 0");

const recipient = z.enum(["REFERRER", "REFERRED"]);
const ruleType = z.enum(["PERCENT", "FIXED"]);
const durationMonths = strictNumber(z.number().int().min(1).max(120)).nullable();
const maxRewardsPerReferral = strictNumber(z.number().int().min(1).max(1_000_000)).nullable();
const tierPercents = z.record(z.string().min(1).max(64), percentText).refine((m) => Object.keys(m).length <= 50, "At most 50 tiers");

export const commissionRuleOutput = z.object({
  ruleId: z.string(),
  environment,
  name: z.string(),
  eventName: z.string(),
  recipient,
  type: ruleType,
  /** PERCENT: the share of the event's amount, e.g. "10"; null for FIXED. */
  percent: z.string().nullable(),
  /** FIXED: the amount paid per event, in `currency`; null for PERCENT. */
  amount: z.string().nullable(),
  currency: currencyCode.nullable(),
  /** Calendar months after the referral's qualification during which events earn; null: for the life of the referral. */
  durationMonths: z.number().int().nullable(),
  /** Rewards of this rule per referral at most; null: no limit. */
  maxRewardsPerReferral: z.number().int().nullable(),
  /** Per tier id: the percent that replaces `percent` for referrers in that tier. */
  tierPercents: z.record(z.string(), z.string()),
  enabled: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type CommissionRuleOutput = z.infer<typeof commissionRuleOutput>;

/** The fields of a rule, as create takes them (and update, after merging with the stored rule). */
const ruleFields = {
  name: z.string().trim().min(1).max(100),
  eventName: eventNameSchema,
  recipient,
  type: ruleType,
  percent: percentText.nullable().optional(),
  amount: decimalAmount.nullable().optional(),
  currency: currencyCode.nullable().optional(),
  durationMonths: durationMonths.optional(),
  maxRewardsPerReferral: maxRewardsPerReferral.optional(),
  tierPercents: tierPercents.optional(),
  enabled: strictBoolean.optional(),
};

export interface RuleShape {
  type: "PERCENT" | "FIXED";
  percent?: string | null;
  amount?: string | null;
  currency?: Currency | null;
  tierPercents?: Record<string, string>;
}

/** The problems of a rule's field combination, as [path, message] pairs (empty: valid). */
export function ruleProblems(r: RuleShape): [string, string][] {
  const out: [string, string][] = [];
  if (r.type === "PERCENT") {
    if (!r.percent) out.push(["percent", "A PERCENT rule needs percent"]);
    if (r.amount != null) out.push(["amount", "A PERCENT rule takes no amount"]);
    if (r.currency != null) out.push(["currency", "A PERCENT rule takes no currency (it pays a share of the event's amount, in the event's currency)"]);
  } else {
    if (r.percent != null) out.push(["percent", "A FIXED rule takes no percent"]);
    if (r.tierPercents && Object.keys(r.tierPercents).length) out.push(["tierPercents", "tierPercents apply to PERCENT rules only"]);
    if (!r.amount) out.push(["amount", "A FIXED rule needs amount"]);
    if (!r.currency) out.push(["currency", "A FIXED rule needs currency"]);
    if (r.amount && r.currency) {
      const p = amountProblem(r.amount, r.currency);
      if (p) out.push(["amount", p]);
      else if (aboveFixedAmountMax(r.amount, r.currency)) out.push(["amount", `A FIXED rule pays at most ${FIXED_AMOUNT_MAX[r.currency]} ${r.currency} per event`]);
    }
  }
  return out;
}

const checkRule = (v: RuleShape, ctx: z.RefinementCtx) => {
  for (const [path, message] of ruleProblems(v)) ctx.addIssue({ code: "custom", path: [path], message });
};

/** POST /business/commission-rules. */
export const createRuleInput = z.strictObject({ environment, ...ruleFields }).superRefine(checkRule);
export type CreateRuleInput = z.infer<typeof createRuleInput>;

/** PATCH /business/commission-rules/{ruleId}: every field optional; the result is checked as a whole. */
export const updateRuleInput = z.strictObject({
  ruleId: z.string().min(1).max(64),
  name: ruleFields.name.optional(),
  eventName: ruleFields.eventName.optional(),
  recipient: recipient.optional(),
  type: ruleType.optional(),
  percent: ruleFields.percent,
  amount: ruleFields.amount,
  currency: ruleFields.currency,
  durationMonths: ruleFields.durationMonths,
  maxRewardsPerReferral: ruleFields.maxRewardsPerReferral,
  tierPercents: ruleFields.tierPercents,
  enabled: ruleFields.enabled,
});
export type UpdateRuleInput = z.infer<typeof updateRuleInput>;

export const ruleIdInput = z.strictObject({ ruleId: z.string().min(1).max(64) });
export const listRulesInput = z.strictObject({ environment: environment.default("LIVE") });

/** A rule as simulate takes it: the create fields without environment, nothing stored. */
const simulatedRule = z.strictObject({ ...ruleFields, name: ruleFields.name.optional() }).superRefine(checkRule);

// The range checks compare two parsed dates: with a field already refused (from: "") they would
// meet the raw text, so they run only once both are dates.
const bothDates = {
  when: ({ value }: { value: unknown }) => {
    const v = value as { from?: unknown; to?: unknown } | null | undefined;
    return v?.from instanceof Date && v.to instanceof Date;
  },
};

/** POST /business/commission-rules/simulate. */
export const simulateInput = z
  .strictObject({ environment, rule: simulatedRule, from: isoInstant, to: isoInstant })
  .refine((v) => v.from < v.to, { path: ["to"], message: "to must be after from", ...bothDates })
  .refine((v) => v.to.getTime() - v.from.getTime() <= 366 * 86_400_000, { path: ["to"], message: "At most 366 days", ...bothDates });
export type SimulateInput = z.infer<typeof simulateInput>;

export const simulateOutput = z.object({
  /** Stored events in [from, to) whose name is the rule's. */
  events: z.number().int(),
  /** Rewards the rule would have granted. */
  rewards: z.number().int(),
  totalEth: z.string(),
  topParticipants: z.array(z.object({ participantId: z.string(), name: z.string().nullable(), totalEth: z.string() })),
});
export type SimulateOutput = z.infer<typeof simulateOutput>;

// ---- Pricing

const pricingSource = z.enum(["FIXED", "CHAINLINK"]);
const fiat = z.enum(FIAT_CURRENCIES as [string, ...string[]]);
type Fiat = (typeof FIAT_CURRENCIES)[number];
const rate = decimalAmount.refine((v) => Number(v) > 0, "Must be greater than 0");
const feedAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "A 0x-prefixed 20-byte address");

export const pricingOutput = z.object({
  environment,
  source: pricingSource,
  /** FIXED: the price of 1 ETH per currency, e.g. { USD: "3000.00" }. */
  rates: z.record(z.string(), z.string()),
  /** CHAINLINK: an AggregatorV3 feed (price of 1 ETH in the currency) per currency, on the environment's chain. */
  feeds: z.record(z.string(), z.string()),
  maxAgeSeconds: z.number().int(),
  updatedAt: z.string().nullable(),
  /** The price in force now per configured currency, or why none is usable (e.g. a stale feed). */
  prices: z.record(
    z.string(),
    z.object({ rate: z.string().nullable(), source: pricingSource, at: z.string().nullable(), problem: z.string().nullable() }),
  ),
  /** The price ETH amounts are shown at on pages: the environment's defaultCurrency at its price in force; null when it has none usable. */
  display: z.object({ currency: z.enum(FIAT_CURRENCIES as [Fiat, ...Fiat[]]), rate: z.string() }).nullable(),
});
export type PricingOutput = z.infer<typeof pricingOutput>;

export const getPricingInput = z.strictObject({ environment: environment.default("LIVE") });

/** PATCH /business/config/pricing: only the fields sent change; rates and feeds replace the stored maps. */
export const updatePricingInput = z.strictObject({
  environment,
  source: pricingSource.optional(),
  rates: z.partialRecord(fiat, rate).optional(),
  feeds: z.partialRecord(fiat, feedAddress).optional(),
  maxAgeSeconds: strictNumber(z.number().int().min(1).max(604_800)).optional(),
});
export type UpdatePricingInput = z.infer<typeof updatePricingInput>;
