// ETH crosses the API as decimal strings ("0.05"); inside, amounts are bigint wei and the
// database stores NUMERIC(78,0). Never floats.
import { z } from "zod";

export const WEI_PER_ETH = 10n ** 18n;
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
  if (typeof v === "string") return BigInt(v.split(".")[0]);
  return BigInt(v.toFixed().split(".")[0]);
}

/** bigint wei → the string Prisma accepts for a Decimal column. */
export const weiToDb = (wei: bigint) => wei.toString();

/** Zod schema for a non-negative ETH amount string with at most 18 decimals. */
export const ethAmount = z
  .string()
  .max(80)
  .regex(ETH_RE, "Must be a non-negative decimal ETH amount with at most 18 decimals, e.g. \"0.05\"");
