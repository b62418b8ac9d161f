// Per-key limits on actions people trigger by hand (a webhook test send): in memory, per process.
// Over the limit → 429 RATE_LIMITED with Retry-After, in the contract's shape.
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { AppError } from "./errors";

/** A limit of `points()` actions per key per `durationS` seconds; take(key) throws 429 beyond it. */
export function actionLimit(name: string, points: () => number, durationS: number) {
  let limiter: RateLimiterMemory | undefined;
  let builtFor = 0;
  return async function take(key: string, what: string): Promise<void> {
    const n = points();
    if (!limiter || builtFor !== n) {
      limiter = new RateLimiterMemory({ keyPrefix: name, points: n, duration: durationS });
      builtFor = n;
    }
    try {
      await limiter.consume(key);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      const retry = Math.max(1, Math.ceil(e.msBeforeNext / 1000));
      throw new AppError("RATE_LIMITED", `Too many ${what} (at most ${n} per ${durationS} s); retry after the delay in Retry-After`, undefined, { "Retry-After": String(retry) });
    }
  };
}
