// What a COMMISSION reward was computed from (issue 27), as every reward view shows it: the rule,
// the base amount and currency, the price of 1 ETH in that currency, where the price came from and
// when. Null fields for the one-time and manual rewards.
import { z } from "zod";
import { decimalText } from "./money";

export const commissionBasisFields = {
  /** The commission rule that granted it (null: not a commission). */
  ruleId: z.string().nullable(),
  /** The amount the rule applied to: the event's amount (PERCENT) or the rule's amount (FIXED). */
  baseAmount: z.string().nullable(),
  baseCurrency: z.string().nullable(),
  /** Price of 1 ETH in baseCurrency used for the conversion ("1" for ETH). */
  rate: z.string().nullable(),
  /** FIXED (a configured rate), CHAINLINK (a feed) or ETH (no conversion). */
  rateSource: z.string().nullable(),
  /** When that price was set or read. */
  rateAt: z.string().nullable(),
};

export interface CommissionBasisLike {
  ruleId?: string | null;
  baseAmount?: { toFixed(): string } | string | null;
  baseCurrency?: string | null;
  rate?: { toFixed(): string } | string | null;
  rateSource?: string | null;
  rateAt?: Date | null;
}

export function commissionBasisOf(r: CommissionBasisLike) {
  const dec = (v: { toFixed(): string } | string | null | undefined) => (v === null || v === undefined ? null : decimalText(v));
  return {
    ruleId: r.ruleId ?? null,
    baseAmount: dec(r.baseAmount),
    baseCurrency: r.baseCurrency ?? null,
    rate: dec(r.rate),
    rateSource: r.rateSource ?? null,
    rateAt: r.rateAt ? r.rateAt.toISOString() : null,
  };
}
