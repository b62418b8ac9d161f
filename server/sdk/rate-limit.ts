// Per-API-key rate limit: RATE_LIMIT_PER_SECOND sustained with bursts up to RATE_LIMIT_BURST.
// Counters live in memory (one process) or, when REDIS_URL is set, in Redis so that every
// instance shares them; if Redis is unreachable the in-memory limiter takes over.
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { env } from "../shared/env";

const BURST_WINDOW_S = 10;

interface Limiter {
  limiter: BurstyRateLimiter;
  rate: number;
  burst: number;
}

const g = globalThis as unknown as { __rtsSdkLimiter?: Promise<Limiter> };

async function build(): Promise<Limiter> {
  const rate = Math.max(1, env.rateLimitPerSecond);
  const burst = Math.max(rate, env.rateLimitBurst);
  const memory = (prefix: string, points: number, duration: number) => new RateLimiterMemory({ keyPrefix: prefix, points, duration });
  let main: RateLimiterAbstract = memory("sdk", rate, 1);
  let extra: RateLimiterAbstract = memory("sdk-burst", Math.max(1, burst - rate), BURST_WINDOW_S);
  if (env.redisUrl) {
    const { default: Redis } = await import("ioredis");
    // No offline queue: while Redis is down, commands fail at once and the insurance (memory)
    // limiter answers. Wait (briefly) for the first connection so that the first requests
    // already count in Redis; ioredis reconnects by itself afterwards.
    const client = new Redis(env.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
    client.on("error", () => {});
    await Promise.race([client.connect().catch(() => {}), new Promise((r) => setTimeout(r, 1000))]);
    main = new RateLimiterRedis({ storeClient: client, keyPrefix: "rts:sdk", points: rate, duration: 1, insuranceLimiter: main });
    extra = new RateLimiterRedis({ storeClient: client, keyPrefix: "rts:sdk-burst", points: Math.max(1, burst - rate), duration: BURST_WINDOW_S, insuranceLimiter: extra });
  }
  return { limiter: new BurstyRateLimiter(main, extra), rate, burst };
}

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

/** Consumes one request for this key; the headers go on every answer (RateLimit-*, and Retry-After on 429). */
export async function consumeRateLimit(apiKeyId: string): Promise<RateDecision> {
  const l = await (g.__rtsSdkLimiter ??= build());
  const policy = `${l.rate};w=1, ${l.burst};w=${BURST_WINDOW_S}`;
  try {
    const r = await l.limiter.consume(apiKeyId);
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
