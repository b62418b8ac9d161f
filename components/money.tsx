"use client";
// Amounts on pages (dashboard and portal), in the environment's asset (ETH, or its token: "12.5
// USDC"): the display rule of server/shared/display-money.ts, the exact amount in the hover title,
// and the value in the environment's default currency at the price in force beside it when there is
// one. The price and the asset come from the page's PriceContext and AssetContext.
import { createContext, useContext, useState, type ReactNode } from "react";
import { ethOfFiat, ethText, fiatAmount, fiatText, priceText, type DisplayPrice } from "@/server/shared/display-money";
import { amountProblem, assetAmountProblem, decimalText } from "@/server/shared/money";
import { useEnvironment } from "./environment";
import { trpc } from "./trpc";
import { cx, Field, Input, Select } from "./ui";
import { formatEth } from "./format";

const PriceContext = createContext<DisplayPrice | null>(null);

/** What a page's amounts are in: the environment's asset. */
export interface AmountAsset {
  symbol: string;
  decimals: number;
}
const ETH: AmountAsset = { symbol: "ETH", decimals: 18 };
const AssetContext = createContext<AmountAsset>(ETH);

/** The asset of the page's environment (ETH unless the program pays in a token). */
export const useAsset = (): AmountAsset => useContext(AssetContext);

/** The price (and asset) of the current page's environment (portal: read on the server and handed down). */
export function PriceProvider({ price, asset, children }: { price: DisplayPrice | null; asset?: AmountAsset | null; children: ReactNode }) {
  return (
    <AssetContext.Provider value={asset ?? ETH}>
      <PriceContext.Provider value={price}>{children}</PriceContext.Provider>
    </AssetContext.Provider>
  );
}

/** Dashboard pages: the price and asset of the environment chosen in the TEST/LIVE switch (or of `environment`). */
export function DashboardPriceProvider({ environment, children }: { environment?: "TEST" | "LIVE"; children: ReactNode }) {
  const { env, ready } = useEnvironment();
  const q = trpc.config.pricing.useQuery({ environment: environment ?? env }, { enabled: ready, staleTime: 60_000 });
  const a = trpc.config.asset.useQuery({ environment: environment ?? env }, { enabled: ready, staleTime: 60_000 });
  return (
    <PriceProvider price={q.data?.display ?? null} asset={a.data ? { symbol: a.data.symbol, decimals: a.data.decimals } : null}>
      {children}
    </PriceProvider>
  );
}

/** "0.0453 ETH ≈ 136.10 USD" (or "12.5 USDC ≈ 12.50 USD"), the exact amount on hover; "—" for no value. */
export function Eth({ value, className }: { value: string | null | undefined; className?: string }) {
  const price = useContext(PriceContext);
  const { symbol } = useAsset();
  if (value === null || value === undefined || value.trim() === "") return <span className={className}>—</span>;
  return (
    // Two items that wrap: in a narrow cell or card the currency value goes under the amount.
    <span className={cx("inline-flex flex-wrap items-baseline gap-x-1", className)} title={`${decimalText(value.trim())} ${symbol}`} data-exact-eth={decimalText(value.trim())}>
      <span>{ethText(value, symbol)}</span>
      {price && <span className="text-[0.8em] font-normal whitespace-nowrap text-slate-600"> ≈ {fiatText(value, price)}</span>}
    </span>
  );
}

/** For sentences and toasts: "0.0453 ETH (≈ 136.10 USD)" when a price is in force, else "0.0453 ETH" (the asset's symbol). */
export function useEthWords(): (value: string | null | undefined) => string {
  const price = useContext(PriceContext);
  const { symbol } = useAsset();
  return (value) => (price && value && value.trim() !== "" ? `${ethText(value, symbol)} (≈ ${fiatText(value, price)})` : ethText(value, symbol));
}

/** An amount without words around it, in the asset: "12.5 USDC" (lists, charts, cells). */
export function useAmountText(): (value: string | null | undefined) => string {
  const { symbol } = useAsset();
  return (value) => formatEth(value, symbol);
}

/**
 * An amount typed in the environment's asset (ETH or its token) or, when a price is in force, in
 * the default currency: the form keeps the asset (`value`, `onChange`); an amount in the currency
 * is converted at the price (rounded down to the base unit) and the conversion is shown before
 * saving. Text that is no amount is passed on as typed, for the server to refuse in the field's
 * error. The unit is in the label: in brackets ("Minimum payout (USDC)"), or in place of the
 * label's own "ETH" ("Max USD per user per day").
 */
export function EthAmountField(props: { label: string; name?: string; value: string; onChange: (eth: string) => void; error?: string; hint?: ReactNode; disabled?: boolean; placeholder?: string; className?: string }) {
  const { label, value, onChange } = props;
  const price = useContext(PriceContext);
  const asset = useAsset();
  const [unit, setUnit] = useState<"ETH" | "FIAT">("ETH");
  const [typed, setTyped] = useState("");
  const fiat = unit === "FIAT" && price ? price : null;
  const isAmount = (text: string) => assetAmountProblem(text.trim(), asset.decimals, asset.symbol) === null;
  const toEth = (text: string) => (fiat && !amountProblem(text.trim(), fiat.currency) ? ethOfFiat(text.trim(), fiat, asset.decimals) : text);
  const conversion = !price
    ? null
    : fiat
      ? !amountProblem(typed.trim(), fiat.currency) && `= ${ethText(value, asset.symbol)} at ${priceText(fiat, asset.symbol)}`
      : isAmount(value) && `≈ ${fiatText(value.trim(), price)} at ${priceText(price, asset.symbol)}`;
  function switchUnit(next: "ETH" | "FIAT") {
    if (next === "FIAT" && price) setTyped(isAmount(value) ? fiatAmount(value.trim(), price) : "");
    setUnit(next);
  }
  return (
    <Field label={label.includes("ETH") ? label.replace("ETH", fiat ? fiat.currency : asset.symbol) : `${label} (${fiat ? fiat.currency : asset.symbol})`} error={props.error} hint={props.hint} className={props.className}>
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
                  <option value="ETH">{asset.symbol}</option>
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
