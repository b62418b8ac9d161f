"use client";
// ETH amounts on pages (dashboard and portal): the display rule of server/shared/display-money.ts,
// the exact amount in the hover title, and the value in the environment's default currency at the
// price in force beside it when there is one. The price comes from the page's PriceContext.
import { createContext, useContext, useState, type ReactNode } from "react";
import { ethOfFiat, ethText, fiatAmount, fiatText, priceText, type DisplayPrice } from "@/server/shared/display-money";
import { amountProblem, decimalText, ethAmount } from "@/server/shared/money";
import { useEnvironment } from "./environment";
import { trpc } from "./trpc";
import { cx, Field, Input, Select } from "./ui";

const PriceContext = createContext<DisplayPrice | null>(null);

/** The price of the current page's environment (portal: read on the server and handed down). */
export function PriceProvider({ price, children }: { price: DisplayPrice | null; children: ReactNode }) {
  return <PriceContext.Provider value={price}>{children}</PriceContext.Provider>;
}

/** Dashboard pages: the price of the environment chosen in the TEST/LIVE switch (or of `environment`). */
export function DashboardPriceProvider({ environment, children }: { environment?: "TEST" | "LIVE"; children: ReactNode }) {
  const { env, ready } = useEnvironment();
  const q = trpc.config.pricing.useQuery({ environment: environment ?? env }, { enabled: ready, staleTime: 60_000 });
  return <PriceProvider price={q.data?.display ?? null}>{children}</PriceProvider>;
}

/** "0.0453 ETH ≈ 136.10 USD", the exact amount on hover; "—" for no value. */
export function Eth({ value, className }: { value: string | null | undefined; className?: string }) {
  const price = useContext(PriceContext);
  if (value === null || value === undefined || value.trim() === "") return <span className={className}>—</span>;
  return (
    // Two items that wrap: in a narrow cell or card the currency value goes under the ETH amount.
    <span className={cx("inline-flex flex-wrap items-baseline gap-x-1", className)} title={`${decimalText(value.trim())} ETH`} data-exact-eth={decimalText(value.trim())}>
      <span>{ethText(value)}</span>
      {price && <span className="text-[0.8em] font-normal whitespace-nowrap text-slate-600"> ≈ {fiatText(value, price)}</span>}
    </span>
  );
}

/** For sentences and toasts: "0.0453 ETH (≈ 136.10 USD)" when a price is in force, else "0.0453 ETH". */
export function useEthWords(): (value: string | null | undefined) => string {
  const price = useContext(PriceContext);
  return (value) => (price && value && value.trim() !== "" ? `${ethText(value)} (≈ ${fiatText(value, price)})` : ethText(value));
}

const isEth = (text: string) => ethAmount.safeParse(text.trim()).success;

/**
 * An ETH amount typed in ETH or, when a price is in force, in the default currency: the form keeps
 * ETH (`value`, `onChange`); an amount in the currency is converted at the price (rounded down to
 * the wei) and the conversion is shown before saving. Text that is no amount is passed on as
 * typed, for the server to refuse in the field's error. The unit is in the label: in brackets
 * ("Minimum payout (ETH)"), or in place of the label's own "ETH" ("Max USD per user per day").
 */
export function EthAmountField(props: { label: string; name?: string; value: string; onChange: (eth: string) => void; error?: string; hint?: ReactNode; disabled?: boolean; placeholder?: string; className?: string }) {
  const { label, value, onChange } = props;
  const price = useContext(PriceContext);
  const [unit, setUnit] = useState<"ETH" | "FIAT">("ETH");
  const [typed, setTyped] = useState("");
  const fiat = unit === "FIAT" && price ? price : null;
  const toEth = (text: string) => (fiat && !amountProblem(text.trim(), fiat.currency) ? ethOfFiat(text.trim(), fiat) : text);
  const conversion = !price
    ? null
    : fiat
      ? !amountProblem(typed.trim(), fiat.currency) && `= ${ethText(value)} at ${priceText(fiat)}`
      : isEth(value) && `≈ ${fiatText(value.trim(), price)} at ${priceText(price)}`;
  function switchUnit(next: "ETH" | "FIAT") {
    if (next === "FIAT" && price) setTyped(isEth(value) ? fiatAmount(value.trim(), price) : "");
    setUnit(next);
  }
  return (
    <Field label={label.includes("ETH") ? label.replace("ETH", fiat ? fiat.currency : "ETH") : `${label} (${fiat ? fiat.currency : "ETH"})`} error={props.error} hint={props.hint} className={props.className}>
      {(p) => (
        <div className="space-y-1">
          <div className="flex gap-2">
            <Input
              {...p}
              name={props.name}
              inputMode="decimal"
              disabled={props.disabled}
              placeholder={props.placeholder}
              className="min-w-0 flex-1"
              value={fiat ? typed : value}
              onChange={(e) => {
                if (fiat) setTyped(e.target.value);
                onChange(toEth(e.target.value));
              }}
            />
            {price && (
              <div className="w-24 shrink-0">
                <Select aria-label={`${label}: typed in`} value={unit} disabled={props.disabled} onChange={(e) => switchUnit(e.target.value as "ETH" | "FIAT")}>
                  <option value="ETH">ETH</option>
                  <option value="FIAT">{price.currency}</option>
                </Select>
              </div>
            )}
          </div>
          {conversion && (
            <p className="text-xs text-slate-600" data-testid="amount-conversion">
              {conversion}
            </p>
          )}
        </div>
      )}
    </Field>
  );
}
