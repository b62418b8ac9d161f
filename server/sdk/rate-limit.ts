// Per-API-key rate limit, charged per event (a /track/batch of 100 costs 100): a sustained
// rate per second plus a burst allowance per 10 s, lower by default for publishable keys
// (RATE_LIMIT_* and RATE_LIMIT_PUBLISHABLE_*). One request may cost at most the key's largest
// allowance, so a batch always fits an idle key. Counters live in memory (one process) or, when
// REDIS_URL is set, in Redis so that every instance shares them; if Redis is unreachable the
// in-memory limiter takes over.
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { env } from "../shared/env";

const BURST_WINDOW_S = 10;

interface Limiter {
  limiter: BurstyRateLimiter;
  rate: number;
  burst: number;
}

type KeyKind = "SECRET" | "PUBLISHABLE";
const g = globalThis as unknown as { __rtsSdkLimiter?: Partial<Record<KeyKind, Promise<Limiter>>>; __rtsSdkRedis?: ReturnType<typeof connectRedis> };

async function connectRedis(url: string) {
  const { default: Redis } = await import("ioredis");
  // No offline queue: while Redis is down, commands fail at once and the insurance (memory)
  // limiter answers. Wait (briefly) for the first connection so that the first requests
  // already count in Redis; ioredis reconnects by itself afterwards.
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
  client.on("error", () => {});
  await Promise.race([client.connect().catch(() => {}), new Promise((r) => setTimeout(r, 1000))]);
  return client;
}

async function build(kind: KeyKind): Promise<Limiter> {
  const pub = kind === "PUBLISHABLE";
  const rate = Math.max(1, pub ? env.rateLimitPublishablePerSecond : env.rateLimitPerSecond);
  const burst = Math.max(rate, pub ? env.rateLimitPublishableBurst : env.rateLimitBurst);
  const prefix = pub ? "sdk-pk" : "sdk";
  // A request is charged to the per-second window, or when that is spent to the burst window
  // (never split), which holds the whole burst: a batch as large as the burst fits an idle key.
  const [main, extra] = await Promise.all([windowOf(prefix, rate, 1), windowOf(`${prefix}-burst`, burst, BURST_WINDOW_S)]);
  return { limiter: new BurstyRateLimiter(main, extra), rate, burst };
}

/**
 * A limiter of `points` per `durationS` seconds: in memory, or when REDIS_URL is set in Redis (all
 * instances share it) with the in-memory one as its insurance while Redis is unreachable.
 */
async function windowOf(prefix: string, points: number, durationS: number): Promise<RateLimiterAbstract> {
  const memory = new RateLimiterMemory({ keyPrefix: prefix, points, duration: durationS });
  if (!env.redisUrl) return memory;
  const client = await (g.__rtsSdkRedis ??= connectRedis(env.redisUrl));
  return new RateLimiterRedis({ storeClient: client, keyPrefix: `rts:${prefix}`, points, duration: durationS, insuranceLimiter: memory });
}

const windows = new Map<string, Promise<RateLimiterAbstract>>();
const windowLimiter = (prefix: string, points: number, durationS: number) => {
  const id = `${prefix}:${points}:${durationS}`;
  const l = windows.get(id) ?? windowOf(prefix, points, durationS);
  windows.set(id, l);
  return l;
};

/** Charges one point to `key` in a window of `points` per `durationS` seconds; false when spent. */
export async function consumeWindow(prefix: string, key: string, points: number, durationS: number): Promise<boolean> {
  try {
    await (await windowLimiter(prefix, points, durationS)).consume(key, 1);
    return true;
  } catch (e) {
    if (e instanceof RateLimiterRes) return false;
    throw e;
  }
}

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

/**
 * Charges `cost` (events; 1 for a plain request) to this key; the headers go on every answer
 * (RateLimit-*, and Retry-After on 429). A cost above what one window holds is charged as that.
 */
export async function consumeRateLimit(apiKeyId: string, kind: KeyKind, cost = 1): Promise<RateDecision> {
  const l = await ((g.__rtsSdkLimiter ??= {})[kind] ??= build(kind));
  const policy = `${l.rate};w=1, ${l.burst};w=${BURST_WINDOW_S}`;
  const points = Math.max(1, Math.min(cost, l.burst));
  try {
    const r = await l.limiter.consume(apiKeyId, points);
    const reset = Math.max(1, Math.ceil(r.msBeforeNext / 1000));
    return { allowed: true, headers: headers(l.rate, Math.max(0, r.remainingPoints), reset, policy) };
  } catch (e) {
    if (!(e instanceof RateLimiterRes)) throw e;
    const retry = Math.max(1, Math.ceil(e.msBeforeNext / 1000));
    return { allowed: false, headers: { ...headers(l.rate, 0, retry, policy), "Retry-After": String(retry) } };
  }
}

function headers(limit: number, remaining: number, reset: number, policy: string): Record<string, string> {
  return {
    // IETF draft "RateLimit header fields": the combined field and the older separate fields.
    RateLimit: `limit=${limit}, remaining=${remaining}, reset=${reset}`,
    "RateLimit-Policy": policy,
    "RateLimit-Limit": String(limit),
    "RateLimit-Remaining": String(remaining),
    "RateLimit-Reset": String(reset),
  };
}
