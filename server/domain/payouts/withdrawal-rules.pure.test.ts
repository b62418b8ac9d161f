// Whether a referrer may ask to be paid now: each refusal in its order, the minimum never below
// minPayoutEth, and a request allowed at exactly the minimum.
import { describe, expect, it } from "vitest";
import { ETH_ASSET } from "../../shared/asset";
import { withdrawalBlock, withdrawalMinimum, type WithdrawalFacts } from "./withdrawal-rules";

const ok: WithdrawalFacts = { enabled: true, walletAddress: "0x1111111111111111111111111111111111111111", walletVerified: false, requireVerifiedWallet: false, walletFailure: null, amountUnits: 10n, minUnits: 10n, asset: ETH_ASSET };

describe("withdrawalBlock", () => {
  it("allows a request at exactly the minimum", () => {
    expect(withdrawalBlock(ok)).toBeNull();
  });
  it("refuses in order: disabled, no wallet, unverified where required, failed wallet, below the minimum, nothing payable", () => {
    const code = (f: Partial<WithdrawalFacts>) => withdrawalBlock({ ...ok, ...f })?.code;
    expect(code({ enabled: false, walletAddress: null, amountUnits: 0n })).toBe("WITHDRAWALS_DISABLED");
    expect(code({ walletAddress: null, walletFailure: "x", amountUnits: 0n })).toBe("NO_WALLET");
    expect(code({ requireVerifiedWallet: true, walletFailure: "x" })).toBe("NO_WALLET");
    expect(code({ requireVerifiedWallet: true, walletVerified: true })).toBeUndefined();
    expect(code({ walletFailure: "WALLET_REFUSED: it reverts", amountUnits: 1n })).toBe("WALLET_FAILED");
    expect(code({ amountUnits: 9n })).toBe("BELOW_MINIMUM");
    expect(code({ amountUnits: 0n, minUnits: 0n })).toBe("BELOW_MINIMUM");
    expect(withdrawalBlock({ ...ok, amountUnits: 9n })?.message).toBe("0.000000000000000009 ETH is below the minimum withdrawal of 0.00000000000000001 ETH");
  });
  it("the minimum is minWithdrawal, never below minPayout; unset, minPayout", () => {
    expect(withdrawalMinimum(null, 5n)).toBe(5n);
    expect(withdrawalMinimum(3n, 5n)).toBe(5n);
    expect(withdrawalMinimum(7n, 5n)).toBe(7n);
  });
});
