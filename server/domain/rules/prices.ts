// The price of 1 ETH in the currencies an environment prices (PricingConfig): FIXED rates as
// stored, or CHAINLINK AggregatorV3 feeds read on the environment's chain (latestRoundData,
// decimals from the feed), refused when not positive or older than maxAgeSeconds. Read before
// any lock is taken: no chain call ever runs under the pool lock. Feed answers are kept a few
// seconds per feed so that a burst of batches reads each feed once.
import type { Address } from "viem";
import { chainTarget, publicClientFor } from "../../chain/clients";
import type { Db, Tx } from "../../db/client";
import type { Environment } from "../../shared/environment";
import { FIAT_CURRENCIES, feedRate, type Currency } from "../../shared/money";

type PriceSource = "FIXED" | "CHAINLINK";

/** A usable price of 1 ETH in a currency, with where it came from and when it was set or read. */
export interface Price {
  rate: string;
  source: PriceSource;
  at: Date;
}

/** Per currency (never ETH): its price, or why none is usable. Missing: not configured. */
export type Prices = ReadonlyMap<Currency, Price | { problem: string }>;

export interface PricingRow {
  source: PriceSource;
  rates: Record<string, string>;
  feeds: Record<string, string>;
  maxAgeSeconds: number;
  updatedAt: Date | null;
}

const DEFAULT_PRICING: PricingRow = { source: "FIXED", rates: {}, feeds: {}, maxAgeSeconds: 3600, updatedAt: null };

export async function readPricing(client: Tx | Db, businessId: string, environment: Environment): Promise<PricingRow> {
  const row = await client.pricingConfig.findUnique({ where: { businessId_environment: { businessId, environment } } });
  if (!row) return DEFAULT_PRICING;
  return {
    source: row.source as PriceSource,
    rates: (row.rates ?? {}) as Record<string, string>,
    feeds: (row.feeds ?? {}) as Record<string, string>,
    maxAgeSeconds: row.maxAgeSeconds,
    updatedAt: row.updatedAt,
  };
}

const AGGREGATOR_V3_ABI = [
  { type: "function", name: "decimals", stateMutability: "view", inputs: [], outputs: [{ type: "uint8" }] },
  {
    type: "function",
    name: "latestRoundData",
    stateMutability: "view",
    inputs: [],
    outputs: [
      { name: "roundId", type: "uint80" },
      { name: "answer", type: "int256" },
      { name: "startedAt", type: "uint256" },
      { name: "updatedAt", type: "uint256" },
      { name: "answeredInRound", type: "uint80" },
    ],
  },
] as const;

/** Feed answers kept this long (per RPC URL and feed). */
const FEED_TTL_MS = 5_000;
const feedCache = new Map<string, { until: number; value: Promise<{ answer: bigint; decimals: number; updatedAt: number }> }>();

/** Forget cached feed answers (tests move a feed and read it again at once). */
export const forgetFeedAnswers = () => feedCache.clear();

async function readFeed(rpcUrl: string, feed: Address) {
  const key = `${rpcUrl} ${feed.toLowerCase()}`;
  const hit = feedCache.get(key);
  if (hit && hit.until > Date.now()) return hit.value;
  const client = publicClientFor(rpcUrl);
  const value = Promise.all([
    client.readContract({ address: feed, abi: AGGREGATOR_V3_ABI, functionName: "decimals" }),
    client.readContract({ address: feed, abi: AGGREGATOR_V3_ABI, functionName: "latestRoundData" }),
  ]).then(([decimals, round]) => ({ answer: round[1], decimals: Number(decimals), updatedAt: Number(round[3]) }));
  feedCache.set(key, { until: Date.now() + FEED_TTL_MS, value });
  value.catch(() => feedCache.delete(key));
  return value;
}

/** How far ahead of this server's clock a feed's updatedAt may be (block times and clocks differ a little). */
const FEED_CLOCK_SKEW_S = 300;

/** The price of one feed, or why it is not usable (not positive, stale, from the future, unreachable). */
async function chainlinkPrice(environment: Environment, feed: string, maxAgeSeconds: number, now: Date): Promise<Price | { problem: string }> {
  const target = chainTarget(environment);
  if ("problem" in target) return { problem: target.problem };
  try {
    const r = await readFeed(target.rpcUrl, feed as Address);
    if (r.answer <= 0n) return { problem: "The feed's answer is not positive" };
    const age = Math.floor(now.getTime() / 1000) - r.updatedAt;
    // A time ahead of ours (beyond clock skew) or past any date is a broken feed, not a fresh one.
    if (!Number.isSafeInteger(r.updatedAt) || age < -FEED_CLOCK_SKEW_S || Number.isNaN(new Date(r.updatedAt * 1000).getTime())) {
      return { problem: `The feed's answer has an impossible time (updatedAt ${r.updatedAt})` };
    }
    if (age > maxAgeSeconds) return { problem: `The feed's answer is ${age} s old (maxAgeSeconds ${maxAgeSeconds})` };
    const rate = feedRate(r.answer, r.decimals);
    if (rate === null) return { problem: "The feed's answer is out of range" };
    return { rate, source: "CHAINLINK", at: new Date(r.updatedAt * 1000) };
  } catch (e) {
    return { problem: `The feed could not be read: ${String((e as Error)?.message ?? e).split("\n")[0].slice(0, 200)}` };
  }
}

/** The prices in force at `now` for every configured currency (chain reads in parallel). */
export async function pricesOf(environment: Environment, p: PricingRow, now: Date): Promise<Prices> {
  const out = new Map<Currency, Price | { problem: string }>();
  if (p.source === "FIXED") {
    for (const c of FIAT_CURRENCIES) {
      const rate = p.rates[c];
      if (rate) out.set(c, { rate, source: "FIXED", at: p.updatedAt ?? now });
    }
    return out;
  }
  const feeds = FIAT_CURRENCIES.filter((c) => p.feeds[c]);
  const read = await Promise.all(feeds.map((c) => chainlinkPrice(environment, p.feeds[c], p.maxAgeSeconds, now)));
  feeds.forEach((c, i) => out.set(c, read[i]));
  return out;
}
