// ETH crosses the API as decimal strings ("0.05"); inside, amounts are bigint wei and the
// database stores NUMERIC(78,0). Never floats.
import { z } from "zod";

export const WEI_PER_ETH = 10n ** 18n;
/** The largest amount a wei column (NUMERIC(78,0)) holds. */
export const MAX_STORED_WEI = 10n ** 78n - 1n;
const ETH_RE = /^(0|[1-9]\d{0,59})(\.\d{1,18})?$/;

/** "1.5" → 1500000000000000000n. Throws on negative, over-precise or malformed input. */
export function ethToWei(eth: string): bigint {
  if (!ETH_RE.test(eth)) throw new Error(`Invalid ETH amount: ${eth}`);
  const [whole, frac = ""] = eth.split(".");
  return BigInt(whole) * WEI_PER_ETH + BigInt(frac.padEnd(18, "0"));
}

/** 1500000000000000000n → "1.5"; negative values keep their sign. */
export function weiToEth(wei: bigint | { toFixed(): string } | string | number): string {
  const v = toBigInt(wei);
  const neg = v < 0n;
  const abs = neg ? -v : v;
  const whole = abs / WEI_PER_ETH;
  const frac = (abs % WEI_PER_ETH).toString().padStart(18, "0").replace(/0+$/, "");
  return `${neg ? "-" : ""}${whole}${frac ? `.${frac}` : ""}`;
}

/** Prisma Decimal / string / number → bigint wei (exact; Decimal is read via toFixed()). */
export function toBigInt(v: bigint | { toFixed(): string } | string | number): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number") return BigInt(Math.trunc(v));
  if (typeof v === "string") {
    const dot = v.indexOf(".");
    return BigInt(dot < 0 ? v : v.slice(0, dot));
  }
  return BigInt(v.toFixed().split(".")[0]);
}

/** An amount of an asset with `decimals` decimals ("12.5", 6) → base units (12500000n); throws when malformed or finer than its decimals. */
export function toBaseUnits(amount: string, decimals: number): bigint {
  if (!ETH_RE.test(amount)) throw new Error(`Invalid amount: ${amount}`);
  return unitsAt(amount, decimals);
}

/** Base units of an asset with `decimals` decimals → its decimal string (12500000n, 6 → "12.5"); negative values keep their sign. */
export function fromBaseUnits(units: bigint | { toFixed(): string } | string | number, decimals: number): string {
  const v = toBigInt(units);
  return v < 0n ? `-${decimalOfUnits(-v, decimals)}` : decimalOfUnits(v, decimals);
}

/** Why `amount` is not an amount of an asset with `decimals` decimals, or null. */
export function assetAmountProblem(amount: string, decimals: number, symbol: string): string | null {
  if (!ETH_RE.test(amount)) return `Must be a non-negative decimal amount, e.g. "0.05"`;
  return decimalsOf(amount) > decimals ? (decimals === 0 ? `${symbol} amounts have no decimals` : `${symbol} amounts have at most ${decimals} decimals`) : null;
}

/** base units of one asset re-expressed in another's decimals, the decimal number kept and rounded down ("0.01" stays "0.01"). */
export function rescaleUnits(units: bigint, from: number, to: number): bigint {
  return to >= from ? units * 10n ** BigInt(to - from) : units / 10n ** BigInt(from - to);
}

/** bigint wei → the string Prisma accepts for a Decimal column. */
export const weiToDb = (wei: bigint) => wei.toString();

/** Zod schema for a non-negative ETH amount string with at most 18 decimals. */
export const ethAmount = z
  .string()
  .max(80)
  .regex(ETH_RE, "Must be a non-negative decimal ETH amount with at most 18 decimals, e.g. \"0.05\"");

// ---- Amounts in other currencies (commissions): exact decimals, converted to wei rounded down.

/** The currencies an event amount or a rule may use, with their decimal places (ISO 4217 minor units; ETH: wei). */
export const CURRENCY_DECIMALS = { ETH: 18, USD: 2, EUR: 2, GBP: 2, JPY: 0, CHF: 2, CAD: 2, AUD: 2 } as const;
export type Currency = keyof typeof CURRENCY_DECIMALS;
const CURRENCIES = Object.keys(CURRENCY_DECIMALS) as [Currency, ...Currency[]];
export const currencyCode = z.enum(CURRENCIES, { message: `Must be one of ${CURRENCIES.join(", ")}` });
/** The currencies priced against ETH (every one but ETH). */
export const FIAT_CURRENCIES = CURRENCIES.filter((c): c is Exclude<Currency, "ETH"> => c !== "ETH");

const DECIMAL_RE = /^(0|[1-9]\d{0,59})(\.\d{1,18})?$/;

/** An exact non-negative decimal as integer units over 10^scale: "19.99" → { units: 1999n, scale: 2 }. */
export interface Decimal10 {
  units: bigint;
  scale: number;
}

/** Parses a decimal string (no sign, no exponent, at most 18 decimals); throws when malformed. */
export function parseDecimal(v: string): Decimal10 {
  if (!DECIMAL_RE.test(v)) throw new Error(`Invalid decimal: ${v}`);
  const [whole, frac = ""] = v.split(".");
  return { units: BigInt(whole + frac), scale: frac.length };
}

/**
 * A price feed's answer (an integer over 10^decimals) as a rate: a plain decimal of at most 18
 * places (the scale a reward records its rate at), cut down past the 18th; null when it is not a
 * positive decimal the money code takes (zero once cut, or more than 60 integer digits).
 */
export function feedRate(answer: bigint, decimals: number): string | null {
  if (answer <= 0n || !Number.isInteger(decimals) || decimals < 0) return null;
  const cut = decimals > 18 ? answer / 10n ** BigInt(decimals - 18) : answer;
  if (cut <= 0n) return null;
  const rate = decimalOfUnits(cut, Math.min(decimals, 18));
  return DECIMAL_RE.test(rate) ? rate : null;
}

/** Decimal places of a decimal string, trailing zeros ignored ("19.90" → 1). */
const decimalsOf = (v: string) => (v.split(".")[1] ?? "").replace(/0+$/, "").length;

/** Why `amount` is not a valid amount of `currency`, or null: positive, at most the currency's decimals. */
export function amountProblem(amount: string, currency: Currency): string | null {
  if (!DECIMAL_RE.test(amount)) return 'Must be a positive decimal string, e.g. "19.99"';
  if (parseDecimal(amount).units === 0n) return "Must be greater than 0";
  const max = CURRENCY_DECIMALS[currency];
  if (decimalsOf(amount) > max) return max === 0 ? `${currency} amounts have no decimals` : `${currency} amounts have at most ${max} decimals`;
  return null;
}

/**
 * The largest amount a FIXED commission rule pays per event, per currency: far above any real
 * bonus, so a slip of a few zeros is refused rather than paid (an amount above the pool is
 * confirmed in the dashboard, not refused: the pool may be funded later).
 */
export const FIXED_AMOUNT_MAX: Record<Currency, string> = { ETH: "100", USD: "1000000", EUR: "1000000", GBP: "1000000", CHF: "1000000", CAD: "1000000", AUD: "1000000", JPY: "100000000" };

/** True when a valid `amount` is above the FIXED bound of its currency (exact decimals). */
export function aboveFixedAmountMax(amount: string, currency: Currency): boolean {
  const a = parseDecimal(amount);
  const max = parseDecimal(FIXED_AMOUNT_MAX[currency]);
  return a.units * 10n ** BigInt(max.scale) > max.units * 10n ** BigInt(a.scale);
}

/** A positive decimal string (the currency's own decimals are checked with amountProblem). */
export const decimalAmount = z.string().max(80).regex(DECIMAL_RE, 'Must be a positive decimal string, e.g. "19.99"');

/** A Prisma Decimal (or string) as its plain decimal string without trailing zeros: "19.990000" → "19.99". */
export function decimalText(v: { toFixed(): string } | string): string {
  const s = typeof v === "string" ? v : v.toFixed();
  return s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s;
}

/**
 * What `base` (an amount in `currency`) is worth in base units of the program's asset (wei for
 * ETH; `unitDecimals` is the asset's decimals), rounded down, optionally a `percent` of it (a
 * decimal string, e.g. "10" or "2.5"). `rate`: the price of one unit of the asset in `currency`
 * (null when `currency` is the asset itself). One computation for every commission: floor of
 * base × percent / 100 × 10^decimals / rate, in integers.
 */
export function weiOf(base: string, currency: Currency, rate: string | null, percent?: string, unitDecimals = 18): bigint {
  const a = parseDecimal(base);
  let num = a.units * 10n ** BigInt(unitDecimals);
  let den = 10n ** BigInt(a.scale);
  if (percent !== undefined) {
    const p = parseDecimal(percent);
    num *= p.units;
    den *= 100n * 10n ** BigInt(p.scale);
  }
  if (currency !== "ETH") {
    if (rate === null) throw new Error(`weiOf: no rate for ${currency}`);
    const r = parseDecimal(rate);
    if (r.units <= 0n) throw new Error(`weiOf: rate must be positive`);
    num *= 10n ** BigInt(r.scale);
    den *= r.units;
  }
  return num / den;
}

/** A decimal string as integer units at `scale` decimals ("19.9", 2 → 1990n); throws when malformed or finer than `scale`. */
export function unitsAt(v: string, scale: number): bigint {
  const d = parseDecimal(decimalText(v));
  if (d.scale > scale) throw new Error(`unitsAt: ${v} has more than ${scale} decimals`);
  return d.units * 10n ** BigInt(scale - d.scale);
}

/** Integer units at `scale` decimals as a plain decimal string, trailing zeros dropped (1990n, 2 → "19.9"). */
export function decimalOfUnits(units: bigint, scale: number): string {
  const s = units.toString().padStart(scale + 1, "0");
  return scale === 0 ? s : decimalText(`${s.slice(0, -scale)}.${s.slice(-scale)}`);
}

/**
 * What a reward of `amountWei`, of which `reversedWei` is already reversed, still reverses once
 * `refunded` of its event's `total` amount is refunded in all: floor(amountWei × refunded / total)
 * less what is reversed, never below zero. Cumulative, so partial refunds that add up to the whole
 * reverse exactly the whole reward, each rounded down to the wei.
 */
export function refundShareWei(amountWei: bigint, reversedWei: bigint, refunded: string, total: string): bigint {
  const t = parseDecimal(decimalText(total));
  if (t.units <= 0n) throw new Error("refundShareWei: total must be positive");
  const r = unitsAt(refunded, 18);
  const due = (amountWei * r) / unitsAt(total, 18);
  const capped = due > amountWei ? amountWei : due;
  return capped > reversedWei ? capped - reversedWei : 0n;
}
