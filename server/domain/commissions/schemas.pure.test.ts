// A FIXED commission's amount is bounded per currency: a typo of a few zeros is refused (400),
// not paid out of the pool.
import { describe, expect, it } from "vitest";
import { FIXED_AMOUNT_MAX } from "../../shared/money";
import { createRuleInput, ruleProblems } from "./schemas";

const fixed = (amount: string, currency: string) =>
  createRuleInput.safeParse({ environment: "TEST", name: "bonus", eventName: "purchase", recipient: "REFERRER", type: "FIXED", amount, currency });

describe("a FIXED commission's amount", () => {
  it.each([
    ["1000000", "USD", true],
    ["1000000.01", "USD", false],
    ["100000000000", "USD", false],
    ["100000000", "JPY", true],
    ["100000001", "JPY", false],
    ["100", "ETH", true],
    ["100.000000000000000001", "ETH", false],
    ["5000", "ETH", false],
  ])("%s %s → accepted: %s", (amount, currency, ok) => {
    const r = fixed(amount, currency);
    expect(r.success).toBe(ok);
    if (!ok) expect(r.error!.issues).toEqual([expect.objectContaining({ path: ["amount"], message: expect.stringContaining(`at most ${FIXED_AMOUNT_MAX[currency as "USD"]} ${currency}`) })]);
  });

  it("is checked by the one rule check that update (after merging) and simulate use too", () => {
    expect(ruleProblems({ type: "FIXED", amount: "1000000000", currency: "EUR" })).toEqual([["amount", expect.stringContaining("at most")]]);
  });
});
