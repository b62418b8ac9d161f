// GET and PATCH /business/config/pricing: how an environment prices 1 ETH (prices.ts).
import { db } from "../../db/client";
import type { Environment } from "../../shared/environment";
import type { DisplayPrice } from "../../shared/display-money";
import { decimalText, type Currency } from "../../shared/money";
import { readConfig } from "../effective-config/load";
import { forgetFeedAnswers, pricesOf, readPricing, type Prices } from "../rules/prices";
import { wakeWaitingEvents } from "./wake";
import type { PricingOutput, UpdatePricingInput } from "./schemas";

/** The environment's default currency (USD until one is saved). */
async function defaultCurrency(businessId: string, environment: Environment): Promise<Currency> {
  return ((await readConfig(db, businessId, environment))?.defaultCurrency ?? "USD") as Currency;
}

/** The price shown beside ETH amounts: the default currency at its price in force; null when it has none usable. */
const displayPriceOf = (prices: Prices, currency: Currency): DisplayPrice | null => {
  const p = currency === "ETH" ? undefined : prices.get(currency);
  return p && "rate" in p ? { currency: currency as DisplayPrice["currency"], rate: p.rate } : null;
};

/** The price the portal, the embed and emails show ETH amounts at (the dashboard reads it from getPricing). */
export async function displayPrice(businessId: string, environment: Environment): Promise<DisplayPrice | null> {
  const [p, currency] = await Promise.all([readPricing(db, businessId, environment), defaultCurrency(businessId, environment)]);
  return displayPriceOf(await pricesOf(environment, p, new Date()), currency);
}

export async function getPricing(businessId: string, environment: Environment): Promise<PricingOutput> {
  const [p, currency] = await Promise.all([readPricing(db, businessId, environment), defaultCurrency(businessId, environment)]);
  const prices = await pricesOf(environment, p, new Date());
  return {
    environment,
    source: p.source,
    rates: p.rates,
    feeds: p.feeds,
    maxAgeSeconds: p.maxAgeSeconds,
    updatedAt: p.updatedAt?.toISOString() ?? null,
    prices: Object.fromEntries(
      [...prices].map(([c, v]) => [c, "rate" in v ? { rate: v.rate, source: v.source, at: v.at.toISOString(), problem: null } : { rate: null, source: p.source, at: null, problem: v.problem }]),
    ),
    display: displayPriceOf(prices, currency),
  };
}

export async function updatePricing(businessId: string, input: UpdatePricingInput): Promise<PricingOutput> {
  const clean = <T extends Record<string, string | undefined>>(m: T | undefined, f: (v: string) => string) =>
    m === undefined ? undefined : Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined).map(([k, v]) => [k, f(v!)]));
  const rates = clean(input.rates, decimalText);
  const feeds = clean(input.feeds, (v) => v);
  const data = { source: input.source, rates, feeds, maxAgeSeconds: input.maxAgeSeconds };
  await db.pricingConfig.upsert({
    where: { businessId_environment: { businessId, environment: input.environment } },
    create: { businessId, environment: input.environment, source: input.source ?? "FIXED", rates: rates ?? {}, feeds: feeds ?? {}, maxAgeSeconds: input.maxAgeSeconds ?? 3600 },
    update: data,
  });
  forgetFeedAnswers();
  await wakeWaitingEvents(businessId, input.environment);
  return getPricing(businessId, input.environment);
}
