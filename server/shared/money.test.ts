import { describe, expect, it } from "vitest";
import { ethAmount, ethToWei, toBigInt, weiToEth } from "./money";

describe("money", () => {
  it("converts ETH strings to wei exactly and back", () => {
    expect(ethToWei("0.05")).toBe(50_000_000_000_000_000n);
    expect(ethToWei("1")).toBe(10n ** 18n);
    expect(ethToWei("0.000000000000000001")).toBe(1n);
    expect(ethToWei("123456789012345678901234567890.123456789012345678")).toBe(123456789012345678901234567890123456789012345678n);
    expect(weiToEth(50_000_000_000_000_000n)).toBe("0.05");
    expect(weiToEth(0n)).toBe("0");
    expect(weiToEth(-(10n ** 18n))).toBe("-1");
    expect(weiToEth("1500000000000000000")).toBe("1.5");
    expect(toBigInt({ toFixed: () => "123000000000000000000000000000" })).toBe(123000000000000000000000000000n);
  });

  it("refuses negative, over-precise and malformed amounts", () => {
    for (const bad of ["-1", "0.0000000000000000001", "1e18", "01", ".5", "1.", "abc", "", " 1"]) {
      expect(() => ethToWei(bad), bad).toThrow();
      expect(ethAmount.safeParse(bad).success, bad).toBe(false);
    }
    expect(ethAmount.safeParse("0.5").success).toBe(true);
  });
});
