// authenticateApiKey under concurrency: requests that arrive together share one lookup
// (db/coalesce.ts), and each still gets exactly its own key's answer, with the same rules.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { testBusiness } from "../../../tests/support/jobs-fixtures";
import { authenticateApiKey, createApiKey, revokeApiKey, rotateApiKey } from "./service";

describe("authenticateApiKey, concurrent requests", () => {
  it("answers each secret with its own key (or null) when many are looked up at once", async () => {
    const a = await testBusiness();
    const b = await testBusiness();
    const ka = await createApiKey(a.businessId, { environment: "TEST" });
    const kb = await createApiKey(b.businessId, { environment: "LIVE" });
    const pub = await createApiKey(a.businessId, { environment: "TEST", kind: "PUBLISHABLE", allowedOrigins: ["https://shop.example"] });
    const revoked = await createApiKey(b.businessId, { environment: "TEST" });
    await revokeApiKey(b.businessId, revoked.apiKeyId);
    const rotated = await createApiKey(a.businessId, { environment: "TEST" });
    const fresh = await rotateApiKey(a.businessId, rotated.apiKeyId, 60);
    const secrets = [ka.secret, kb.secret, pub.secret, revoked.secret, ka.secret, rotated.secret, fresh.secret, `${ka.secret.slice(0, -4)}zzzz`, "not-a-key"];
    const out = await Promise.all(secrets.map(authenticateApiKey));
    expect(out.map((k) => (k ? [k.apiKeyId, k.businessId, k.environment, k.kind] : null))).toEqual([
      [ka.apiKeyId, a.businessId, "TEST", "SECRET"],
      [kb.apiKeyId, b.businessId, "LIVE", "SECRET"],
      [pub.apiKeyId, a.businessId, "TEST", "PUBLISHABLE"],
      null,
      [ka.apiKeyId, a.businessId, "TEST", "SECRET"],
      [rotated.apiKeyId, a.businessId, "TEST", "SECRET"],
      [rotated.apiKeyId, a.businessId, "TEST", "SECRET"],
      null,
      null,
    ]);
  });

  it("a revocation is seen by the very next lookup, even while other lookups are in flight", async () => {
    const a = await testBusiness();
    const k = await createApiKey(a.businessId, { environment: "TEST" });
    const other = await createApiKey(a.businessId, { environment: "TEST" });
    const inFlight = Promise.all(Array.from({ length: 20 }, () => authenticateApiKey(other.secret)));
    expect(await authenticateApiKey(k.secret)).not.toBeNull();
    await db.apiKey.update({ where: { id: k.apiKeyId }, data: { status: "REVOKED", revokedAt: new Date() } });
    expect(await authenticateApiKey(k.secret)).toBeNull();
    expect((await inFlight).every((x) => x?.apiKeyId === other.apiKeyId)).toBe(true);
  });

  it("two rotations at once: one hands out a secret that works, the other is a 409 (no secret dead on arrival); a rotation racing a revocation never hands out a secret that works", async () => {
    const a = await testBusiness();
    const k = await createApiKey(a.businessId, { environment: "TEST" });
    const both = await Promise.allSettled([rotateApiKey(a.businessId, k.apiKeyId, 3600), rotateApiKey(a.businessId, k.apiKeyId, 3600)]);
    const won = both.filter((r) => r.status === "fulfilled").map((r) => (r as PromiseFulfilledResult<{ secret: string }>).value);
    const lost = both.filter((r) => r.status === "rejected").map((r) => r.reason as { code?: string });
    expect(won.length).toBeGreaterThanOrEqual(1);
    for (const w of won) expect(await authenticateApiKey(w.secret), "every secret handed out works").not.toBeNull();
    for (const l of lost) expect(l.code).toBe("CONFLICT");

    // Revoked between a rotation's read and its write: the write finds nothing to rotate.
    const r = await createApiKey(a.businessId, { environment: "TEST" });
    const revoking = db.apiKey.update({ where: { id: r.apiKeyId }, data: { status: "REVOKED", revokedAt: new Date() } });
    const rotating = rotateApiKey(a.businessId, r.apiKeyId, 0);
    await revoking;
    const out = await rotating.then((v) => v, (e: { code?: string }) => e);
    if ("secret" in out) expect(await authenticateApiKey(out.secret)).toBeNull();
    else expect(["CONFLICT", "UNPROCESSABLE"]).toContain(out.code);
  });
});
