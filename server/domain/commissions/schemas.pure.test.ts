// The simulation's input: a bad date is a validation message about that date, never an internal
// error from the range checks that compare the two dates. A FIXED commission's amount is bounded
// per currency: a typo of a few zeros is refused (400), not paid out of the pool.
import { describe, expect, it } from "vitest";
import { FIXED_AMOUNT_MAX } from "../../shared/money";
import { createRuleInput, ruleProblems, simulateInput } from "./schemas";

const rule = { eventName: "purchase", recipient: "REFERRER", type: "FIXED", amount: "1", currency: "ETH" };

describe("simulate input", () => {
  it("an empty or unreadable from / to is a validation issue on that field", () => {
    for (const [from, to] of [["", "2026-01-01"], ["2026-01-01", ""], ["yesterday", "tomorrow"], [7, null]] as const) {
      const r = simulateInput.safeParse({ environment: "TEST", rule, from, to });
      expect(r.success, `${from} ${to}`).toBe(false);
      const messages = r.error!.issues.map((i) => i.message).join(" | ");
      expect(messages).not.toMatch(/is not a function|undefined|null/i);
      expect(r.error!.issues.some((i) => i.path[0] === "from" || i.path[0] === "to")).toBe(true);
    }
  });

  it("no body, null or a list is a validation issue too", () => {
    for (const v of [undefined, null, [], "x"]) expect(simulateInput.safeParse(v).success).toBe(false);
  });

  it("the range rules still hold for real dates", () => {
    expect(simulateInput.safeParse({ environment: "TEST", rule, from: "2026-01-01", to: "2026-02-01" }).success).toBe(true);
    const reversed = simulateInput.safeParse({ environment: "TEST", rule, from: "2026-02-01", to: "2026-01-01" });
    expect(reversed.error?.issues.map((i) => i.message)).toEqual(["to must be after from"]);
    const long = simulateInput.safeParse({ environment: "TEST", rule, from: "2024-01-01", to: "2026-01-01" });
    expect(long.error?.issues.map((i) => i.message)).toEqual(["At most 366 days"]);
  });
});

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
