// The commission preview in words: the amounts it names are the rules core's own (weiOf), the
// price it quotes is the environment's, and a missing price is said, not guessed.
import { describe, expect, it } from "vitest";
import { weiOf } from "@/server/shared/money";
import { commissionBasis, limitsText, moneyProblem, moneyText, percentProblem, previewText, ruleSummary, type RuleDraft } from "./commission-words";

const percent: RuleDraft = { eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "10", amount: null, currency: null, durationMonths: 12, maxRewardsPerReferral: null };
const fixed: RuleDraft = { ...percent, type: "FIXED", percent: null, amount: "5.00", currency: "EUR", recipient: "REFERRED", durationMonths: null, maxRewardsPerReferral: 3 };
const usd = { source: "FIXED" as const, rates: { USD: "3000.00", EUR: "2750.5" } };

describe("commission words", () => {
  it("previews a percent rule with an example amount of the default currency, at the price in force", () => {
    expect(previewText(percent, usd, "USD")).toBe("A 100.00 USD purchase pays the referrer 0.003333 ETH at 1 ETH = 3,000 USD.");
    expect(previewText({ ...percent, percent: "100" }, usd, "USD")).toBe("A 100.00 USD purchase pays the referrer 0.03333 ETH at 1 ETH = 3,000 USD.");
    expect(previewText(percent, usd, "ETH")).toBe("A 1 ETH purchase pays the referrer 0.1 ETH.");
  });

  it("previews a fixed rule in its currency", () => {
    expect(previewText(fixed, usd, "USD")).toBe("Each purchase pays the referred customer 0.001818 ETH (5.00 EUR) at 1 ETH = 2,750.5 EUR.");
  });

  it("says when there is no price instead of guessing", () => {
    expect(previewText(percent, { source: "FIXED", rates: {} }, "USD")).toMatch(/there is no USD price: such events wait and are rewarded once a price exists/);
    expect(previewText(fixed, { source: "CHAINLINK", rates: {} }, "USD")).toMatch(/the EUR price feed gives no usable price now/);
    expect(previewText({ ...percent, percent: "abc" }, usd, "USD")).toBe("Enter a percentage to see what a purchase pays.");
  });

  it("rounds down like the reward and shows what the reward names", () => {
    const wei = weiOf("100", "USD", "3000.00", "10");
    expect(wei).toBe(3333333333333333n);
    expect(moneyText("100", "USD")).toBe("100.00 USD");
    expect(moneyText("10000", "JPY")).toBe("10,000 JPY");
    expect(moneyText("24.99", "USD")).toBe("24.99 USD");
    expect(moneyText("0.5", "ETH")).toBe("0.5 ETH");
    expect(commissionBasis({ baseAmount: "100", baseCurrency: "USD", rate: "3000", rateSource: "FIXED" })).toBe("from 100.00 USD at 1 ETH = 3,000 USD (fixed rate)");
    expect(commissionBasis({ baseAmount: "0.5", baseCurrency: "ETH", rate: null, rateSource: null })).toBe("from 0.5 ETH");
  });

  it("summarises a rule and its limits", () => {
    expect(ruleSummary(percent)).toBe("10% of each purchase to the referrer");
    expect(ruleSummary(fixed)).toBe("5.00 EUR per purchase to the referred customer");
    expect(limitsText(percent)).toBe("for 12 months after the referral qualifies, with no limit per referral");
    expect(limitsText(fixed)).toBe("for the life of the referral, at most 3 times per referral");
  });

  it("refuses what is not a percentage or an amount of the currency, in a sentence", () => {
    for (const bad of ["abc", "0", "0.00", "100.5", "5.555", "-5", "1e1", ""]) expect(percentProblem(bad), bad).toMatch(/^Enter the percentage as a number above 0 and at most 100/);
    for (const ok of ["10", "2.5", "33.33", "100", "0.01"]) expect(percentProblem(ok), ok).toBeNull();
    expect(moneyProblem("19.999", "USD")).toBe("Enter the amount as a number above 0 with at most 2 decimals for USD (e.g. 5.00).");
    expect(moneyProblem("5.5", "JPY")).toMatch(/no decimals for JPY/);
    expect(moneyProblem("19.99", "USD")).toBeNull();
    expect(moneyProblem("0.000000000000000001", "ETH")).toBeNull();
    expect(moneyProblem("100", "ETH")).toBeNull();
    expect(moneyProblem("100.5", "ETH")).toMatch(/at most 100 ETH per event/);
    expect(moneyProblem("2000000", "USD")).toMatch(/^Enter at most 1,000,000 USD/);
  });
});
