// Fair intake at the SDK door: the rate limit is charged per event (a batch of 100 costs 100),
// publishable keys have a lower default rate, and batches in progress are bounded per key and
// per business.
import { describe, expect, it } from "vitest";
import type { AppError } from "../shared/errors";
import { withBatchSlot } from "./batch-slots";
import { consumeRateLimit } from "./rate-limit";

describe("rate limit per event", () => {
  it("a batch of 100 spends an idle secret key's whole burst; the next request is refused with Retry-After", async () => {
    const key = `k-${Math.random()}`;
    const batch = await consumeRateLimit(key, "SECRET", 100);
    expect(batch.allowed).toBe(true);
    const next = await consumeRateLimit(key, "SECRET", 1);
    expect(next.allowed).toBe(false);
    expect(Number(next.headers["Retry-After"])).toBeGreaterThanOrEqual(1);
    // Another key has its own budget.
    expect((await consumeRateLimit(`${key}-other`, "SECRET", 1)).allowed).toBe(true);
  });

  it("single events: 50 per second plus a burst of 100, then 429", async () => {
    const key = `k-${Math.random()}`;
    const answers = [];
    for (let i = 0; i < 160; i++) answers.push((await consumeRateLimit(key, "SECRET", 1)).allowed);
    // 50 per second plus a burst of 100: the rest of the 160 is refused within the same second.
    expect(answers.filter(Boolean).length).toBeLessThanOrEqual(151);
    expect(answers.filter((a) => !a).length).toBeGreaterThan(0);
  });

  it("publishable keys: 10 per second by default (RateLimit-Limit), a batch still fits an idle key", async () => {
    const key = `p-${Math.random()}`;
    const first = await consumeRateLimit(key, "PUBLISHABLE", 1);
    expect(first.headers["RateLimit-Limit"]).toBe("10");
    expect((await consumeRateLimit(`${key}-2`, "PUBLISHABLE", 100)).allowed).toBe(true);
    const secret = await consumeRateLimit(`s-${Math.random()}`, "SECRET", 1);
    expect(secret.headers["RateLimit-Limit"]).toBe("50");
  });
});

describe("batches in progress", () => {
  const held = () => {
    let release!: () => void;
    const done = new Promise<void>((r) => (release = r));
    return { done, release };
  };
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: AppError) => ({ code: e.code, retryAfter: e.headers?.["Retry-After"] }),
    );

  it("at most 2 per key and 4 per business at once (429 + Retry-After beyond), free again once they end", async () => {
    const business = `b-${Math.random()}`;
    const k1 = { apiKeyId: `${business}-k1`, businessId: business };
    const k2 = { apiKeyId: `${business}-k2`, businessId: business };
    const k3 = { apiKeyId: `${business}-k3`, businessId: business };
    const gates = Array.from({ length: 4 }, held);
    const running = [withBatchSlot(k1, () => gates[0].done), withBatchSlot(k1, () => gates[1].done)];
    expect(await refusal(withBatchSlot(k1, async () => {}))).toEqual({ code: "RATE_LIMITED", retryAfter: "1" });
    running.push(withBatchSlot(k2, () => gates[2].done), withBatchSlot(k2, () => gates[3].done));
    // The business holds 4: a third key of it is refused too; another business is not.
    expect(await refusal(withBatchSlot(k3, async () => {}))).toEqual({ code: "RATE_LIMITED", retryAfter: "1" });
    expect(await refusal(withBatchSlot({ apiKeyId: "x", businessId: `${business}-other` }, async () => {}))).toBeNull();
    gates.forEach((g) => g.release());
    await Promise.all(running);
    expect(await refusal(withBatchSlot(k3, async () => {}))).toBeNull();
    expect(await refusal(withBatchSlot(k1, async () => {}))).toBeNull();
  });

  it("a batch that fails frees its slots", async () => {
    const k = { apiKeyId: `f-${Math.random()}`, businessId: `fb-${Math.random()}` };
    for (let i = 0; i < 5; i++) await expect(withBatchSlot(k, async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await refusal(withBatchSlot(k, async () => {}))).toBeNull();
  });
});
