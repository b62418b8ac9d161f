// A business has at most MAX_ACTIVE_KEYS keys that are not revoked, also when the creations
// arrive at once (the business row is taken first); a revoked key frees a place. The list shows
// every key that is not revoked.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { testBusiness } from "../../../tests/support/jobs-fixtures";
import { createApiKey, listApiKeys, MAX_ACTIVE_KEYS, revokeApiKey } from "./service";

describe("API keys per business", () => {
  it("at most MAX_ACTIVE_KEYS that are not revoked, concurrent creations included; revoking frees a place", async () => {
    const { businessId } = await testBusiness();
    // All but five made directly; the last places are asked for ten at a time.
    await db.apiKey.createMany({ data: Array.from({ length: MAX_ACTIVE_KEYS - 5 }, (_, i) => ({ businessId, environment: "TEST" as const, keyHash: `cap-${businessId}-${i}`, prefix: `rk_test_cap${i}` })) });
    const tries = await Promise.allSettled(Array.from({ length: 10 }, () => createApiKey(businessId, { environment: "TEST" })));
    expect(tries.filter((t) => t.status === "fulfilled")).toHaveLength(5);
    for (const t of tries) if (t.status === "rejected") expect(t.reason).toMatchObject({ code: "UNPROCESSABLE" });
    expect(await db.apiKey.count({ where: { businessId, status: "ACTIVE" } })).toBe(MAX_ACTIVE_KEYS);
    const listed = await listApiKeys(businessId);
    expect(listed).toHaveLength(MAX_ACTIVE_KEYS);
    await revokeApiKey(businessId, listed[0].apiKeyId);
    await expect(createApiKey(businessId, { environment: "TEST" })).resolves.toMatchObject({ status: "ACTIVE" });
    expect(await listApiKeys(businessId)).toHaveLength(MAX_ACTIVE_KEYS + 1);
  });
});
