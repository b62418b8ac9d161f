import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { ttlCache } from "./ttl-cache";

describe("ttlCache", () => {
  it("answers an entry until its time is up, per cache or per entry", async () => {
    const fixed = ttlCache<string>({ max: 10, ttlMs: 30 });
    const perEntry = ttlCache<string>({ max: 10 });
    fixed.set("a", "A");
    perEntry.set("short", "S", { ttl: 30 });
    perEntry.set("long", "L", { ttl: 60_000 });
    expect([fixed.get("a"), perEntry.get("short"), perEntry.get("long")]).toEqual(["A", "S", "L"]);
    await sleep(60);
    expect([fixed.get("a"), fixed.has("a"), perEntry.get("short"), perEntry.get("long")]).toEqual([undefined, false, undefined, "L"]);
  });

  it("keeps at most max entries, dropping the least recently used", () => {
    const c = ttlCache<number>({ max: 2, ttlMs: 60_000 });
    c.set("a", 1);
    c.set("b", 2);
    c.get("a");
    c.set("c", 3);
    expect([c.get("a"), c.get("b"), c.get("c")]).toEqual([1, undefined, 3]);
  });
});
