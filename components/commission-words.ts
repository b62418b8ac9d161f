// Commission rules in words for business staff: what a rule pays ("a 100.00 USD purchase pays
// the referrer 0.03333 ETH at 1 ETH = 3,000 USD", or in the program's token), its limits, and the
// form's checks. The amount comes from the one conversion the rules core uses (weiOf in
// server/shared/money.ts, pure code, in the asset's decimals), so the preview and the reward agree
// to the base unit.
import { ethText, groupDigits } from "@/server/shared/display-money";
import { aboveFixedAmountMax, amountProblem, CURRENCY_DECIMALS, FIXED_AMOUNT_MAX, weiOf, type Currency } from "@/server/shared/money";
import { amountOf } from "@/server/shared/asset";

/** The program's asset as the words need it (the page's AssetContext); ETH by default. */
export interface WordsAsset {
  symbol: string;
  decimals: number;
}
const ETH_WORDS: WordsAsset = { symbol: "ETH", decimals: 18 };
/** ETH amounts need no price on an ETH program; on a token program they need one, which pricing does not take. */
const paysInEth = (a: WordsAsset) => a.symbol === "ETH" && a.decimals === 18;
/** The price of one unit of the asset in `base` (pricing takes no ETH price: null for ETH). */
const rateOf = (base: Currency, prices: Prices | null) => (base === "ETH" ? null : (prices?.rates[base] ?? null));
const needsRate = (base: Currency, a: WordsAsset) => !(base === "ETH" && paysInEth(a));

export type RuleDraft = {
  eventName: string;
  recipient: "REFERRER" | "REFERRED";
  type: "PERCENT" | "FIXED";
  percent: string | null;
  amount: string | null;
  currency: string | null;
  durationMonths: number | null;
  maxRewardsPerReferral: number | null;
};

/** The prices an environment has now: the price of 1 ETH per currency (null: none usable). */
export type Prices = { source: "FIXED" | "CHAINLINK"; rates: Partial<Record<string, string>> };

const isCurrency = (c: string | null | undefined): c is Currency => !!c && c in CURRENCY_DECIMALS;

/** An amount in its currency's minor units: "100" USD → "100.00 USD", "5000" JPY → "5,000 JPY". */
export function moneyText(amount: string, currency: string): string {
  const places = isCurrency(currency) && currency !== "ETH" ? CURRENCY_DECIMALS[currency] : null;
  if (places === null) return `${groupDigits(amount)} ${currency}`;
  const [whole, frac = ""] = amount.split(".");
  const shown = places === 0 ? whole : `${whole}.${frac.padEnd(places, "0").slice(0, places)}`;
  const [w, f] = shown.split(".");
  return `${w.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${f !== undefined ? `.${f}` : ""} ${currency}`;
}

/** The example amount a PERCENT preview uses: 100 in the currency (10,000 JPY; 1 ETH). */
const exampleAmount = (c: Currency) => (c === "ETH" ? "1" : c === "JPY" ? "10000" : "100");

const recipientWord = (r: RuleDraft["recipient"]) => (r === "REFERRER" ? "the referrer" : "the referred customer");

/** "for 12 months after the referral qualifies", "for the life of the referral", "at most 3 times per referral". */
export function limitsText(r: Pick<RuleDraft, "durationMonths" | "maxRewardsPerReferral">): string {
  const when = r.durationMonths === null ? "for the life of the referral" : `for ${r.durationMonths} month${r.durationMonths === 1 ? "" : "s"} after the referral qualifies`;
  const cap = r.maxRewardsPerReferral === null ? "with no limit per referral" : `at most ${r.maxRewardsPerReferral} time${r.maxRewardsPerReferral === 1 ? "" : "s"} per referral`;
  return `${when}, ${cap}`;
}

/** "10% of each purchase to the referrer" / "5.00 USD per purchase to the referred customer". */
export function ruleSummary(r: RuleDraft): string {
  const what = r.type === "PERCENT" ? `${r.percent ?? "?"}% of each ${r.eventName || "event"}` : `${r.amount && r.currency ? moneyText(r.amount, r.currency) : "?"} per ${r.eventName || "event"}`;
  return `${what} to ${recipientWord(r.recipient)}`;
}

/**
 * The preview sentence of a rule, in the environment's prices: "A 100.00 USD purchase pays the
 * referrer 0.0333 ETH at 1 ETH = 3,000 USD." When the currency has no usable price, it says so.
 */
export function previewText(r: RuleDraft, prices: Prices | null, defaultCurrency: string, asset: WordsAsset = ETH_WORDS): string {
  const event = r.eventName.trim() || "event";
  const who = recipientWord(r.recipient);
  const base = r.type === "PERCENT" ? defaultCurrency : (r.currency ?? "");
  if (!isCurrency(base)) return `Choose a currency to see what a ${event} pays.`;
  if (r.type === "PERCENT" && percentProblem(r.percent ?? "")) return `Enter a percentage to see what a ${event} pays.`;
  if (r.type === "FIXED" && moneyProblem(r.amount ?? "", base)) return `Enter an amount to see what a ${event} pays.`;
  const sample = r.type === "PERCENT" ? exampleAmount(base) : (r.amount ?? "");
  const opening = r.type === "PERCENT" ? `A ${moneyText(sample, base)} ${event} pays ${who}` : `Each ${event} pays ${who}`;
  const rate = rateOf(base, prices);
  if (needsRate(base, asset) && !rate) {
    const share = r.type === "PERCENT" ? ` ${r.percent}% of it` : ` ${moneyText(sample, base)}`;
    const how = prices?.source === "CHAINLINK" ? `the ${base} price feed gives no usable price now` : `there is no ${base} price`;
    return `${opening}${share} in ${asset.symbol}, but ${how}: such events wait and are rewarded once a price exists (set prices on the Configuration page).`;
  }
  const units = weiOf(sample, base, rate, r.type === "PERCENT" ? (r.percent ?? undefined) : undefined, asset.decimals);
  const at = needsRate(base, asset) ? ` at 1 ${asset.symbol} = ${groupDigits(rate!)} ${base}` : "";
  const fixed = r.type === "FIXED" ? ` (${moneyText(sample, base)})` : "";
  return `${opening} ${ethText(amountOf(units, asset), asset.symbol)}${fixed}${at}.`;
}

/** What a FIXED draft pays per event, in base units of the asset at the prices in force; null for PERCENT, or with no usable amount or price. */
export function fixedRuleWei(r: RuleDraft, prices: Prices | null, asset: WordsAsset = ETH_WORDS): bigint | null {
  if (r.type !== "FIXED" || !isCurrency(r.currency) || moneyProblem(r.amount ?? "", r.currency)) return null;
  const rate = rateOf(r.currency, prices);
  if (needsRate(r.currency, asset) && !rate) return null;
  return weiOf(r.amount!, r.currency, rate, undefined, asset.decimals);
}

/** A percentage the form accepts: above 0, at most 100, at most 2 decimals; else a sentence. */
export function percentProblem(text: string, what = "the percentage"): string | null {
  const s = text.trim();
  // The server's percentText shape (domain/commissions/schemas.ts), which checks again.
  const ok = /^(100(\.0{1,2})?|[1-9]?\d(\.\d{1,2})?)$/.test(s) && Number(s) > 0;
  return ok ? null : `Enter ${what} as a number above 0 and at most 100, with at most 2 decimals (e.g. 10 or 2.5).`;
}

/** An amount of `currency` the form accepts, else a sentence. */
export function moneyProblem(text: string, currency: string): string | null {
  if (!isCurrency(currency)) return "Choose a currency.";
  const s = text.trim();
  const places = CURRENCY_DECIMALS[currency];
  if (!amountProblem(s, currency)) return aboveFixedAmountMax(s, currency) ? `Enter at most ${groupDigits(FIXED_AMOUNT_MAX[currency])} ${currency}: a fixed commission pays at most ${FIXED_AMOUNT_MAX[currency]} ${currency} per event.` : null;
  return `Enter the amount as a number above 0 with ${places === 0 ? "no decimals" : `at most ${places} decimals`} for ${currency} (e.g. ${currency === "JPY" ? "500" : currency === "ETH" ? "0.01" : "5.00"}).`;
}

/** What a commission reward was computed from: "10% of 100.00 USD at 1 ETH = 3,000 USD (FIXED)" (the price of one unit of the reward's asset). */
export function commissionBasis(r: { baseAmount: string | null; baseCurrency: string | null; rate: string | null; rateSource: string | null; asset?: { symbol: string } }, symbol = r.asset?.symbol ?? "ETH"): string {
  if (!r.baseAmount || !r.baseCurrency) return "";
  const base = `from ${moneyText(r.baseAmount, r.baseCurrency)}`;
  if (r.baseCurrency === "ETH" || !r.rate) return base;
  const src = r.rateSource === "CHAINLINK" ? "Chainlink price" : r.rateSource === "FIXED" ? "fixed rate" : (r.rateSource ?? "").toLowerCase();
  return `${base} at 1 ${symbol} = ${groupDigits(r.rate)} ${r.baseCurrency}${src ? ` (${src})` : ""}`;
}
