// Amounts in other currencies (commissions), pure: parsing, each currency's decimals, and the one
// conversion to wei, rounded down.
import { describe, expect, it } from "vitest";
import { amountProblem, decimalOfUnits, feedRate, decimalText, parseDecimal, refundShareWei, unitsAt, weiOf } from "./money";

describe("feedRate: a price feed's answer as the rate a reward records", () => {
  it("reads the answer over 10^decimals", () => {
    expect(feedRate(300012345678n, 8)).toBe("3000.12345678");
    expect(feedRate(3000n * 10n ** 18n, 18)).toBe("3000");
    expect(feedRate(3000n, 0)).toBe("3000");
  });
  it("cuts an answer of more than 18 decimals down to 18, which the money code takes", () => {
    const rate = feedRate(3000n * 10n ** 24n + 123456789012345678901234n, 24);
    expect(rate).toBe("3000.123456789012345678");
    expect(() => weiOf("100", "USD", rate)).not.toThrow();
  });
  it("is null for an answer that is not positive, zero once cut, or too large", () => {
    expect(feedRate(0n, 8)).toBeNull();
    expect(feedRate(-5n, 8)).toBeNull();
    expect(feedRate(5n, 30)).toBeNull();
    expect(feedRate(10n ** 70n, 0)).toBeNull();
  });
});

describe("money: currencies and conversion", () => {
  it("checks amounts against their currency's decimals", () => {
    expect(amountProblem("19.99", "USD")).toBeNull();
    expect(amountProblem("19.90", "USD")).toBeNull();
    expect(amountProblem("19.999", "USD")).toMatch(/at most 2 decimals/);
    expect(amountProblem("1500", "JPY")).toBeNull();
    expect(amountProblem("1.5", "JPY")).toMatch(/no decimals/);
    expect(amountProblem("0.000000000000000001", "ETH")).toBeNull();
    for (const bad of ["-5", "0", "0.00", "1e3", "", " 1", "01", "1.", ".5", "1.0000000000000000001"]) expect(amountProblem(bad, "ETH"), bad).not.toBeNull();
  });

  it("converts to wei exactly, rounded down (never up)", () => {
    expect(weiOf("1", "ETH", null)).toBe(10n ** 18n);
    expect(weiOf("0.000000000000000001", "ETH", null, "50")).toBe(0n); // half a wei rounds down to 0
    expect(weiOf("100", "USD", "3000", "10")).toBe(3333333333333333n); // 1/300 ETH = 0.00333… → down
    expect(weiOf("1", "USD", "3")).toBe(333333333333333333n);
    expect(weiOf("2", "USD", "3")).toBe(666666666666666666n); // 0.666…6 (never …7)
    expect(weiOf("25.01", "USD", "2500.5")).toBe(10001999600079984n);
    expect(weiOf("300", "JPY", "450000", "33.33")).toBe((300n * 3333n * 10n ** 18n) / (10000n * 450000n));
    expect(() => weiOf("1", "USD", null)).toThrow();
    expect(() => weiOf("1", "USD", "0")).toThrow();
  });

  it("parses decimals and prints them without trailing zeros", () => {
    expect(parseDecimal("19.990")).toEqual({ units: 19990n, scale: 3 });
    expect(decimalText("19.990000000000000000")).toBe("19.99");
    expect(decimalText("100.000")).toBe("100");
    expect(decimalText("100")).toBe("100");
  });
});

describe("money: refund shares", () => {
  it("decimal units at a scale, and back", () => {
    expect(unitsAt("19.9", 2)).toBe(1990n);
    expect(unitsAt("19.900000000000000000", 2)).toBe(1990n);
    expect(unitsAt("7", 18)).toBe(7n * 10n ** 18n);
    expect(() => unitsAt("19.999", 2)).toThrow();
    expect(decimalOfUnits(1990n, 2)).toBe("19.9");
    expect(decimalOfUnits(5n, 2)).toBe("0.05");
    expect(decimalOfUnits(0n, 18)).toBe("0");
    expect(decimalOfUnits(1500n, 0)).toBe("1500");
  });

  it("reverses the cumulative share, rounded down to the wei; partials that add up to the whole reverse exactly the whole", () => {
    const amount = 1000n;
    const a = refundShareWei(amount, 0n, "30", "100");
    expect(a).toBe(300n);
    expect(refundShareWei(amount, a, "100", "100")).toBe(700n);
    // Thirds of an amount that does not divide: each part rounds down, the last one takes the rest.
    const odd = 1000000000000000001n;
    const p1 = refundShareWei(odd, 0n, "33.33", "99.99");
    expect(p1).toBe(333333333333333333n); // floor(odd / 3)
    const p2 = refundShareWei(odd, p1, "66.66", "99.99");
    const p3 = refundShareWei(odd, p1 + p2, "99.99", "99.99");
    expect(p1 + p2 + p3).toBe(odd);
    // A share under one wei reverses nothing yet; nothing ever goes beyond the reward or below zero.
    expect(refundShareWei(3n, 0n, "0.01", "100")).toBe(0n);
    expect(refundShareWei(amount, amount, "100", "100")).toBe(0n);
    expect(refundShareWei(amount, 0n, "200", "100")).toBe(amount);
    expect(() => refundShareWei(amount, 0n, "1", "0")).toThrow();
  });
});
