// Whether a referrer may ask to be paid now (POST /portal/api/withdrawals), as one pure decision
// over what the database says of them: the portal's button, the request and the run's answer to a
// request it could not pay all read it here.
import { amountOf } from "../assets/read";
import type { Asset } from "../../shared/asset";

/** Why a withdrawal cannot be requested, as its 422 code. */
export type WithdrawalBlock = "WITHDRAWALS_DISABLED" | "NO_WALLET" | "WALLET_FAILED" | "BELOW_MINIMUM";

export interface WithdrawalFacts {
  enabled: boolean;
  walletAddress: string | null;
  walletVerified: boolean;
  requireVerifiedWallet: boolean;
  /** Why the wallet cannot receive (it refused a payout, or it is no wallet at all), or null. */
  walletFailure: string | null;
  /** What a payout would pay now, in base units of the asset. */
  amountUnits: bigint;
  /** The smallest withdrawal, in base units of the asset (withdrawalMinimum). */
  minUnits: bigint;
  asset: Asset;
}

/**
 * The smallest withdrawal: minWithdrawalEth (minPayoutEth while unset), and never below
 * minPayoutEth, since a withdrawal is paid by a run that holds every payout to it.
 */
export const withdrawalMinimum = (minWithdrawalUnits: bigint | null, minPayoutUnits: bigint) =>
  minWithdrawalUnits !== null && minWithdrawalUnits > minPayoutUnits ? minWithdrawalUnits : minPayoutUnits;

/** The first reason a request is refused, or null when it may be made. */
export function withdrawalBlock(f: WithdrawalFacts): { code: WithdrawalBlock; message: string } | null {
  if (!f.enabled) return { code: "WITHDRAWALS_DISABLED", message: "This program does not take withdrawal requests: you are paid on its schedule" };
  if (!f.walletAddress) return { code: "NO_WALLET", message: "Add a payout wallet first" };
  if (f.requireVerifiedWallet && !f.walletVerified) return { code: "NO_WALLET", message: "Verify your wallet by signature first: this program pays verified wallets only" };
  if (f.walletFailure) return { code: "WALLET_FAILED", message: `Your wallet cannot receive payouts (${f.walletFailure}): add another one` };
  if (f.amountUnits <= 0n) return { code: "BELOW_MINIMUM", message: `Nothing is payable yet: the minimum withdrawal is ${amountOf(f.minUnits, f.asset)} ${f.asset.symbol}` };
  if (f.amountUnits < f.minUnits) return { code: "BELOW_MINIMUM", message: `${amountOf(f.amountUnits, f.asset)} ${f.asset.symbol} is below the minimum withdrawal of ${amountOf(f.minUnits, f.asset)} ${f.asset.symbol}` };
  return null;
}
