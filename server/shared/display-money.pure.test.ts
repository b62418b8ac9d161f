// The one display rule for amounts: rounded to 4 significant digits, never "0" for a non-zero
// amount, whole part kept; ETH beside its value in the default currency at the price in force.
import { describe, expect, it } from "vitest";
import { ethOfFiat, ethText, ethWithFiat, fiatText, roundForDisplay } from "./display-money";
import { ethToWei, weiToEth } from "./money";
import { formatEth } from "@/components/format";

describe("roundForDisplay", () => {
  it("rounds to 4 significant digits, half up, and trims trailing zeros", () => {
    expect(roundForDisplay("0.28699999999999999")).toBe("0.287");
    expect(roundForDisplay("0.045366666666666666")).toBe("0.04537");
    expect(roundForDisplay("0.003333333333333333")).toBe("0.003333");
    expect(roundForDisplay("1.23449")).toBe("1.234");
    expect(roundForDisplay("1.2345")).toBe("1.235");
    expect(roundForDisplay("0.99996")).toBe("1");
    expect(roundForDisplay("2.5")).toBe("2.5");
    expect(roundForDisplay("0")).toBe("0");
    expect(roundForDisplay("0.000000")).toBe("0");
  });
  it("keeps the whole part and groups its digits", () => {
    expect(roundForDisplay("12345.678")).toBe("12,346");
    expect(roundForDisplay("1234.5")).toBe("1,235");
    expect(roundForDisplay("999999.9")).toBe("1,000,000");
  });
  it("never shows 0 for an amount that is not zero", () => {
    expect(roundForDisplay("0.000000000000000001")).toBe("0.000000000000000001");
    expect(roundForDisplay(weiToEth(123456789n))).toBe("0.0000000001235");
  });
  it("keeps the sign of a debit", () => {
    expect(roundForDisplay("-0.28699999999999999")).toBe("-0.287");
  });
});

describe("ethText and formatEth (the dashboard's name for it)", () => {
  it("is the same rule", () => {
    expect(ethText("0.28699999999999999")).toBe("0.287 ETH");
    expect(formatEth("0.28699999999999999")).toBe("0.287 ETH");
    expect(formatEth("1.500000000000000000")).toBe("1.5 ETH");
    expect(formatEth(null)).toBe("—");
  });
});

describe("fiatText and ethWithFiat", () => {
  const usd = { currency: "USD", rate: "3004.41" } as const;
  it("shows the value at the price in the currency's decimals, rounded half up", () => {
    expect(fiatText("0.0453", usd)).toBe("136.10 USD");
    expect(ethWithFiat("0.0453", usd)).toBe("0.0453 ETH ≈ 136.10 USD");
    expect(fiatText("1000", { currency: "JPY", rate: "450000" })).toBe("450,000,000 JPY");
    expect(fiatText("-0.0453", usd)).toBe("-136.10 USD");
  });
  it("says '<' rather than 0 for a tiny amount, and leaves out the price when there is none", () => {
    expect(fiatText("0.000000000000000001", usd)).toBe("< 0.01 USD");
    expect(fiatText("0", usd)).toBe("0.00 USD");
    expect(ethWithFiat("0.0453", null)).toBe("0.0453 ETH");
    expect(ethWithFiat(undefined, usd)).toBe("—");
  });
  it("converts an amount typed in the currency to ETH, rounded down to the wei", () => {
    expect(ethOfFiat("136.10", usd)).toBe(weiToEth((13610n * 10n ** 18n * 100n) / 300441n / 100n));
    expect(ethToWei(ethOfFiat("3004.41", usd))).toBe(10n ** 18n);
  });
});
