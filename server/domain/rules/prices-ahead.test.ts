// The commission rules and their prices are read once per transaction, before the pool lock:
// what is loaded under the lock (a worker batch's later runs, a job's processing) takes them from
// that first read, so that a feed's chain calls never run while the lock is held.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness } from "../../../tests/support/domain";
import { updatePricing } from "../commissions/pricing";
import { createRule } from "../commissions/service";
import { createRuleInput, updatePricingInput } from "../commissions/schemas";
import { loadRules, readCommissionsAhead } from "./state";

describe("commission rules and prices: read ahead of the pool lock", () => {
  it("rules loaded later in the transaction use the prices read ahead; the next transaction reads again", async () => {
    const { businessId, scope } = await domainBusiness({ referralRewardEth: "0.01", fundEth: "1" });
    await updatePricing(businessId, updatePricingInput.parse({ environment: "TEST", source: "FIXED", rates: { USD: "3000" } }));
    await createRule(businessId, createRuleInput.parse({ environment: "TEST", name: "10 %", eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "10" }));
    const rateIn = (rules: Awaited<ReturnType<typeof loadRules>>) => {
      const p = rules?.commissions?.prices.get("USD");
      return p && "rate" in p ? p.rate : null;
    };
    const under = await db.$transaction(async (tx) => {
      await readCommissionsAhead(tx, scope);
      // Changed after the read ahead (as a feed may move while the transaction waits for the lock):
      // the rules loaded under the lock keep what was read ahead, with no second read.
      await tx.$executeRawUnsafe(`UPDATE "PricingConfig" SET rates = '{"USD":"2500"}' WHERE "businessId" = $1 AND environment = 'TEST'`, businessId);
      return rateIn(await loadRules(tx, scope));
    });
    expect(under).toBe("3000");
    expect(rateIn(await db.$transaction((tx) => loadRules(tx, scope)))).toBe("2500");
  });
});
