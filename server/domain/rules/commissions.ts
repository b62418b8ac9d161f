// Commission rules in the rules core (issue 27), pure: which enabled rules an event of a
// referred user earns, for whom, and how much in wei (rounded down) at the price in force.
// decide.ts calls these for every event whose referral is qualified (this very event may have
// qualified it) and pays the result through the same caps, pool and holds as the one-time
// rewards (pay.ts capPayout); simulate calls them over stored events without writing.
import type { PayoutCaps } from "./pay";
import { decimalText, MAX_STORED_WEI, weiOf, type Currency } from "../../shared/money";
import type { Price, Prices } from "./prices";

export interface CommissionRuleFact {
  id: string;
  eventName: string;
  recipient: "REFERRER" | "REFERRED";
  type: "PERCENT" | "FIXED";
  percent: string | null;
  amount: string | null;
  currency: Currency | null;
  durationMonths: number | null;
  maxRewardsPerReferral: number | null;
  tierPercents: Readonly<Record<string, string>>;
}

/** What the commission rules read, loaded with the rest of the state (rules/state.ts). */
export interface CommissionState {
  /** Enabled rules of the environment. */
  rules: readonly CommissionRuleFact[];
  /** Prices read before any lock (rules/prices.ts): of one unit of the program's asset. */
  prices: Prices;
  /** The program's asset as the core counts it: its decimals, and whether it is ETH (an ETH amount needs no price). Absent: ETH. */
  unit?: AssetUnit;
  /** Per `${ruleId} ${referralId}`: rewards of the rule on the referral that are not REFUSED. */
  counts: ReadonlyMap<string, number>;
}

/** An event waiting for a price runs again after this long (setting a price wakes it at once). */
export const PRICE_RETRY_MS = 15_000;

export const COMMISSION_REASONS = {
  /** A PERCENT rule on an event without an amount. */
  NO_AMOUNT: "NO_AMOUNT",
  /** No usable price of the event's (or the rule's) currency: the event waits and is retried. */
  PRICE_UNAVAILABLE: "PRICE_UNAVAILABLE",
} as const;

export interface EventMoney {
  eventName: string;
  /** The amount as a plain decimal string, or null. */
  amount: string | null;
  currency: Currency | null;
  createdAt: Date;
}

/** A commission the event earns, before caps and the pool. */
export interface CommissionPlan {
  rule: CommissionRuleFact;
  participantId: string;
  requestedWei: bigint;
  /** Set when the rule pays nothing (NO_AMOUNT). */
  refused: string | null;
  baseAmount: string | null;
  baseCurrency: Currency | null;
  rate: string | null;
  rateSource: string | null;
  rateAt: Date | null;
}

export interface AssetUnit {
  decimals: number;
  native: boolean;
}
const ETH_UNIT: AssetUnit = { decimals: 18, native: true };

const ETH_PRICE = (now: Date): Price => ({ rate: "1", source: "FIXED", at: now });

/** The currency whose price a rule needs for this event, or null (the program's own ETH, or nothing to convert). */
function currencyNeeded(rule: CommissionRuleFact, e: EventMoney, unit: AssetUnit): Currency | null {
  const c = rule.type === "FIXED" ? rule.currency : e.amount !== null ? e.currency : null;
  return c && !(c === "ETH" && unit.native) ? c : null;
}

/** The first currency an event's matching rules need and have no usable price for: the event then waits (PRICE_UNAVAILABLE). */
export function missingPrice(c: CommissionState, e: EventMoney): Currency | null {
  for (const rule of c.rules) {
    if (rule.eventName !== e.eventName) continue;
    const need = currencyNeeded(rule, e, c.unit ?? ETH_UNIT);
    const p = need ? c.prices.get(need) : undefined;
    if (need && !(p && "rate" in p)) return need;
  }
  return null;
}

/** An event's amount as the commission rules read it. */
export function eventMoney(e: { eventName: string; amount: { toFixed(): string } | string | null; currency: string | null; createdAt: Date }): EventMoney {
  return { eventName: e.eventName, amount: e.amount === null ? null : decimalText(e.amount), currency: e.amount === null ? null : (e.currency as Currency | null), createdAt: e.createdAt };
}

/** Adds calendar months in UTC; the day is clamped to the target month's last day (Jan 31 + 1 month = Feb 28/29). */
export function addMonthsUtc(d: Date, months: number): Date {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m, Math.min(d.getUTCDate(), last), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
}

export interface ReferralFact {
  id: string;
  referrerId: string;
  referredId: string;
  qualifiedAt: Date | null;
}

/**
 * The commissions an event earns on its qualified referral, one per matching rule, for the
 * rule's recipient. `counts`: the caller's working copy of the rules' rewards per referral
 * (the caller counts what it grants: countKey). `tierId`: the referrer's tier (tierPercents). Call missingPrice first: a plan needing a
 * missing price throws.
 */
export const countKey = (ruleId: string, referralId: string) => `${ruleId} ${referralId}`;

export function planCommissions(c: CommissionState, counts: ReadonlyMap<string, number>, e: EventMoney, r: ReferralFact, tierId: string | null, now: Date): CommissionPlan[] {
  const out: CommissionPlan[] = [];
  const unit = c.unit ?? ETH_UNIT;
  for (const rule of c.rules) {
    if (rule.eventName !== e.eventName) continue;
    if (rule.durationMonths !== null && (!r.qualifiedAt || e.createdAt >= addMonthsUtc(r.qualifiedAt, rule.durationMonths))) continue;
    const n = counts.get(countKey(rule.id, r.id)) ?? 0;
    if (rule.maxRewardsPerReferral !== null && n >= rule.maxRewardsPerReferral) continue;
    const participantId = rule.recipient === "REFERRER" ? r.referrerId : r.referredId;
    if (rule.type === "PERCENT" && (e.amount === null || e.currency === null)) {
      out.push({ rule, participantId, requestedWei: 0n, refused: COMMISSION_REASONS.NO_AMOUNT, baseAmount: null, baseCurrency: null, rate: null, rateSource: null, rateAt: null });
      continue;
    }
    const base = rule.type === "PERCENT" ? { amount: e.amount!, currency: e.currency! } : { amount: rule.amount!, currency: rule.currency! };
    const price = base.currency === "ETH" && unit.native ? ETH_PRICE(now) : c.prices.get(base.currency);
    if (!price || !("rate" in price)) throw new Error(`planCommissions: no price for ${base.currency} (call missingPrice first)`);
    const percent = rule.type === "PERCENT" ? ((tierId !== null ? rule.tierPercents[tierId] : undefined) ?? rule.percent!) : undefined;
    // A share of an amount of up to 60 digits at a rate below 1 can exceed what a reward row
    // holds: asked for as that much (the pool and the caps decide what is paid).
    const worth = weiOf(base.amount, base.currency, base.currency === "ETH" && unit.native ? null : price.rate, percent, unit.decimals);
    const requestedWei = worth > MAX_STORED_WEI ? MAX_STORED_WEI : worth;
    out.push({
      rule,
      participantId,
      requestedWei,
      refused: null,
      baseAmount: base.amount,
      baseCurrency: base.currency,
      rate: price.rate,
      rateSource: base.currency === "ETH" && unit.native ? "ETH" : price.source,
      rateAt: price.at,
    });
  }
  return out;
}

/**
 * The caps for one commission of an event: the recipient's per-event cap (maxReferralEthPerEvent
 * for the referrer, maxBonusEthPerEvent for the referred user) less what the event already pays
 * that participant, so that the cap holds for all of the participant's rewards of the event.
 * The daily cap and the pool are capPayout's as for every reward. The release of an event's held
 * rewards after review caps each of them, one-time rewards too, through this (rewards/payout.ts).
 */
export function commissionCaps(caps: PayoutCaps, recipient: "REFERRER" | "REFERRED", paidThisEventWei: bigint): { caps: PayoutCaps; kind: "REFERRAL" | "BONUS" } {
  const left = (cap: bigint | null) => (cap === null ? null : cap > paidThisEventWei ? cap - paidThisEventWei : 0n);
  return recipient === "REFERRER"
    ? { caps: { ...caps, maxReferralPerEventWei: left(caps.maxReferralPerEventWei) }, kind: "REFERRAL" }
    : { caps: { ...caps, maxBonusPerEventWei: left(caps.maxBonusPerEventWei) }, kind: "BONUS" };
}

/** A stored rule as the core reads it. */
export function ruleFact(r: {
  id: string;
  eventName: string;
  recipient: string;
  type: string;
  percent: { toFixed(): string } | string | null;
  amount: { toFixed(): string } | string | null;
  currency: string | null;
  durationMonths: number | null;
  maxRewardsPerReferral: number | null;
  tierPercents: unknown;
}): CommissionRuleFact {
  const text = (v: { toFixed(): string } | string | null) => (v === null ? null : typeof v === "string" ? v : v.toFixed());
  return {
    id: r.id,
    eventName: r.eventName,
    recipient: r.recipient as CommissionRuleFact["recipient"],
    type: r.type as CommissionRuleFact["type"],
    percent: text(r.percent),
    amount: text(r.amount),
    currency: r.currency as Currency | null,
    durationMonths: r.durationMonths,
    maxRewardsPerReferral: r.maxRewardsPerReferral,
    tierPercents: (r.tierPercents ?? {}) as Record<string, string>,
  };
}
