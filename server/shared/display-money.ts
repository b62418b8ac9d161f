// How an amount is shown to a person, everywhere (dashboard, portal, embed, emails): rounded to
// DISPLAY_DIGITS significant digits (never "0" for an amount that is not zero), the whole part
// kept, digits grouped, with the program's asset's symbol (ETH unless it pays in a token); beside it, its value in the environment's default currency at the price
// in force. The exact amount stays in the API, the exports and the hover title. Exact decimals
// only (bigint), never floats.
import { CURRENCY_DECIMALS, decimalOfUnits, parseDecimal, weiOf, type Currency } from "./money";

/** Significant digits an amount is shown with. */
const DISPLAY_DIGITS = 4;

/** The price beside ETH amounts: 1 ETH in `currency` (the environment's default currency). */
export interface DisplayPrice {
  currency: Exclude<Currency, "ETH">;
  rate: string;
}

/** "3000.5" → "3,000.5"; exact (no floats), trailing zeros of the fraction trimmed. */
export function groupDigits(decimal: string): string {
  const neg = decimal.startsWith("-");
  const [whole, frac = ""] = (neg ? decimal.slice(1) : decimal).split(".");
  const f = frac.replace(/0+$/, "");
  return `${neg ? "-" : ""}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${f ? `.${f}` : ""}`;
}

/** units / 10^scale rounded half up (away from zero) to `places` decimals, as units at `places`. */
function roundUnits(units: bigint, scale: number, places: number): bigint {
  if (places >= scale) return units * 10n ** BigInt(places - scale);
  const d = 10n ** BigInt(scale - places);
  const q = units / d;
  return 2n * (units % d) >= d ? q + 1n : q;
}

const split = (v: string) => (v.startsWith("-") ? { neg: true, abs: v.slice(1) } : { neg: false, abs: v });

/**
 * An exact decimal ("0.286999999999999999", "-12.5") rounded for display: DISPLAY_DIGITS
 * significant digits, the whole part never cut ("12,346"), grouped. Non-zero stays non-zero.
 */
export function roundForDisplay(value: string): string {
  const { neg, abs } = split(value.trim());
  const d = parseDecimal(abs);
  if (d.units === 0n) return "0";
  const digits = d.units.toString().length;
  // Decimals that leave DISPLAY_DIGITS significant digits: the number's magnitude is digits - scale.
  const places = Math.max(0, DISPLAY_DIGITS - (digits - d.scale));
  return `${neg ? "-" : ""}${groupDigits(decimalOfUnits(roundUnits(d.units, d.scale, places), places))}`;
}

/** "0.0453 ETH" or "12.5 USDC" (rounded for display, with the asset's symbol); "—" for no value. */
export function ethText(eth: string | null | undefined, symbol = "ETH"): string {
  if (eth === null || eth === undefined || eth.trim() === "") return "—";
  return `${roundForDisplay(eth)} ${symbol}`;
}

/** What `eth` is worth at `price`, rounded half up to the currency's decimals, as a plain decimal: "136.10". */
export function fiatAmount(eth: string, price: DisplayPrice): string {
  const { neg, abs } = split(eth.trim());
  const a = parseDecimal(abs);
  const r = parseDecimal(price.rate);
  const places = CURRENCY_DECIMALS[price.currency];
  const units = roundUnits(a.units * r.units, a.scale + r.scale, places);
  const s = units.toString().padStart(places + 1, "0");
  return `${neg && units !== 0n ? "-" : ""}${places ? `${s.slice(0, -places)}.${s.slice(-places)}` : s}`;
}

/** "136.10 USD", grouped; "< 0.01 USD" when a non-zero value rounds to nothing. */
export function fiatText(eth: string, price: DisplayPrice): string {
  const amount = fiatAmount(eth, price);
  const places = CURRENCY_DECIMALS[price.currency];
  if (!/[1-9]/.test(amount) && /[1-9]/.test(eth)) return `< ${places ? `0.${"0".repeat(places - 1)}1` : "1"} ${price.currency}`;
  const [whole, frac] = amount.split(".");
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${frac ? `.${frac}` : ""} ${price.currency}`;
}

/** "1 ETH = 3,000 USD" (or "1 USDC = 1 USD"): the price a conversion was made at. */
export const priceText = (price: DisplayPrice, symbol = "ETH"): string => `1 ${symbol} = ${groupDigits(price.rate)} ${price.currency}`;

/** "0.0453 ETH ≈ 136.10 USD", or "0.0453 ETH" with no price; "—" for no value. */
export function ethWithFiat(eth: string | null | undefined, price: DisplayPrice | null, symbol = "ETH"): string {
  const text = ethText(eth, symbol);
  return price && text !== "—" ? `${text} ≈ ${fiatText(eth!, price)}` : text;
}

/** An amount typed in the default currency in the asset at the price (rounded down to its base unit, like a reward): "136.10" USD at 3,000 → "0.045366666666666666" ETH. */
export function ethOfFiat(amount: string, price: DisplayPrice, decimals = 18): string {
  return decimalOfUnits(weiOf(amount, price.currency, price.rate, undefined, decimals), decimals);
}

/** A count with its noun: "1 visit", "3 visits", "0 visits" (`many`: an irregular plural). */
export const countText = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
