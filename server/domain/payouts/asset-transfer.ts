// How one recipient is paid in an environment's asset, and how the deposit address's holdings are
// read: ETH is a plain value transfer; an ERC-20 is a call of the token's transfer(to, amount) with
// no value, its gas paid in ETH by the same deposit address. Used by every payout path (one
// payout, a batch) and by funding, solvency and proofs, so that the asset is decided here once.
import { encodeFunctionData, erc20Abi, parseEventLogs, type Address, type Hex, type Log, type PublicClient } from "viem";
import { isNative, type Asset } from "../../shared/asset";

/** The transaction fields that pay `amount` base units of the asset to `to`. */
export interface TransferCall {
  to: Address;
  value: bigint;
  data?: Hex;
}

/** The call that pays `amount` of `asset` to `recipient`. */
export function transferCall(asset: Asset, recipient: Address, amount: bigint): TransferCall {
  if (isNative(asset)) return { to: recipient, value: amount };
  return { to: asset.tokenAddress!, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [recipient, amount] }) };
}

/** The gas a transfer of this asset takes at least (a plain ETH transfer's, or a token's first transfer to a new holder). */
export const minTransferGas = (asset: Asset): bigint => (isNative(asset) ? 21_000n : 65_000n);

/**
 * The gas a transfer may take at most: PAYOUT_MAX_GAS bounds what a receiving wallet may spend of
 * a plain ETH transfer; a token transfer also runs the token's own code (balances, events, a
 * blacklist check), allowed on top.
 */
export const maxTransferGas = (asset: Asset, payoutMaxGas: bigint): bigint => (isNative(asset) ? payoutMaxGas : payoutMaxGas + TOKEN_CODE_GAS);
const TOKEN_CODE_GAS = 100_000n;

/** What `holder` holds of the asset, in base units, at `blockNumber` (latest when omitted). */
export async function assetBalanceOf(client: PublicClient, asset: Asset, holder: Address, blockNumber?: bigint): Promise<bigint> {
  if (isNative(asset)) return client.getBalance({ address: holder, blockNumber });
  return client.readContract({ address: asset.tokenAddress!, abi: erc20Abi, functionName: "balanceOf", args: [holder], blockNumber });
}

/** The ETH `holder` has to pay gas with (for an ETH program the same coin as its pool). */
export const gasBalanceOf = (client: PublicClient, holder: Address): Promise<bigint> => client.getBalance({ address: holder });

/** A token Transfer log to one address: its position in the transaction's receipt and the amount. */
export interface TransferLog {
  logIndex: number;
  from: Address;
  amount: bigint;
}

/** The token's Transfer logs to `recipient` among a receipt's logs (other tokens' logs and other recipients are not counted). */
export function transfersTo(logs: readonly Log[], token: Address, recipient: Address): TransferLog[] {
  const own = logs.filter((l) => l.address.toLowerCase() === token.toLowerCase());
  return parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: own, strict: true })
    .filter((l) => l.args.to.toLowerCase() === recipient.toLowerCase() && l.logIndex !== null)
    .map((l) => ({ logIndex: l.logIndex, from: l.args.from, amount: l.args.value }));
}
