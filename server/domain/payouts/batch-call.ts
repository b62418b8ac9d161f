// Batch payouts' chain side: where the BatchPayout contract is (a local TEST chain's own copy,
// PAYOUT_BATCH_CONTRACT on LIVE), the call that pays a batch in the environment's asset, the
// token approval it needs once, and the rule that chooses between a batch and a plain transfer.
import { encodeFunctionData, erc20Abi, maxUint256, type Address } from "viem";
import { onChain, LOCAL_DEV_CHAIN_IDS } from "../../chain/clients";
import { batchPayoutAbi } from "../../chain/contracts";
import { ensureLocalDeployments, LOCAL_BATCH_PAYOUT } from "../../chain/local-deploy";
import { env } from "../../shared/env";
import { isNative, type Asset } from "../../shared/asset";
import type { TransferCall } from "./asset-transfer";
import type { Sender } from "./sender";

/** The chain's per-transaction gas cap (EIP-7825): a batch's gas limit stays under it. */
export const TX_GAS_CAP = 16_777_216n;

/**
 * The BatchPayout contract the sender pays batches through, or null (every payout a plain
 * transfer): on a local development chain the copy `npm start` deploys (again if the in-memory
 * chain restarted empty); on LIVE the address PAYOUT_BATCH_CONTRACT names, when it has code.
 */
export async function batchContractFor(s: Sender, chainId: number): Promise<Address | null> {
  const hasCode = async (a: Address) => ((await onChain(s.target, "getCode", () => s.client.getCode({ address: a }))) ?? "0x") !== "0x";
  if (LOCAL_DEV_CHAIN_IDS.has(chainId) && s.environment === "TEST") {
    if (await hasCode(LOCAL_BATCH_PAYOUT)) return LOCAL_BATCH_PAYOUT;
    await ensureLocalDeployments(s.target.rpcUrl, true).catch(() => false);
    return (await hasCode(LOCAL_BATCH_PAYOUT)) ? LOCAL_BATCH_PAYOUT : null;
  }
  const configured = s.environment === "LIVE" ? env.payoutBatchContract : undefined;
  if (!configured || !/^0x[0-9a-fA-F]{40}$/.test(configured)) return null;
  return (await hasCode(configured as Address)) ? (configured as Address) : null;
}

/** The call that pays amounts[i] of the asset to recipients[i] through the contract. */
export function batchCall(asset: Asset, contract: Address, recipients: Address[], amounts: bigint[]): TransferCall {
  if (isNative(asset)) {
    const value = amounts.reduce((a, b) => a + b, 0n);
    return { to: contract, value, data: encodeFunctionData({ abi: batchPayoutAbi, functionName: "payEth", args: [recipients, amounts] }) };
  }
  return { to: contract, value: 0n, data: encodeFunctionData({ abi: batchPayoutAbi, functionName: "payToken", args: [asset.tokenAddress!, recipients, amounts] }) };
}

/** The deposit address's approval of the contract for the token, once (the contract moves tokens only from its caller). */
export const approvalCall = (asset: Asset, contract: Address): TransferCall => ({
  to: asset.tokenAddress!,
  value: 0n,
  data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [contract, maxUint256] }),
});

/** What the contract's allowance from the deposit address is now. */
export const allowanceOf = (s: Sender, contract: Address) =>
  onChain(s.target, "allowance", () => s.client.readContract({ address: s.asset.tokenAddress!, abi: erc20Abi, functionName: "allowance", args: [s.address, contract] }));

/**
 * What one recipient adds to a batch's gas, from their plain transfer's estimate: the plain
 * transfer less a transaction's base cost, plus the batch's own work for them (the call from the
 * contract, the recipient's cold account, their calldata), plus, for ETH to an empty account (no
 * balance, no nonce, no code), what a call pays to create an account, which a plain transfer
 * does not pay (docs/payouts.md, "Batches").
 */
export function batchShareGas(asset: Asset, plainGas: bigint, emptyAccount: boolean): bigint {
  const own = isNative(asset) ? ETH_BATCH_WORK + (emptyAccount ? NEW_ACCOUNT_GAS : 0n) : TOKEN_BATCH_WORK;
  return plainGas - TX_BASE_GAS + own;
}
const TX_BASE_GAS = 21_000n;
/** A value call from the contract (its cost less the stipend the receiver hands back unused), a cold account, calldata and loop. */
const ETH_BATCH_WORK = 11_000n;
/** A token transferFrom through the contract: the call, the allowance read, calldata and loop. */
const TOKEN_BATCH_WORK = 5_000n;
/** EIP-161: a value call to an empty account creates it. */
const NEW_ACCOUNT_GAS = 25_000n;

/** The chooser: a recipient joins a batch when their share of it is below a plain transfer of their own. */
export const batchIsCheaper = (asset: Asset, plainGas: bigint, emptyAccount: boolean) => batchShareGas(asset, plainGas, emptyAccount) < plainGas;

/** True for an address with no balance, no transactions and no code (EIP-161 empty): a value call creates it. */
export async function isEmptyAccount(s: Sender, a: Address): Promise<boolean> {
  const [balance, nonce, code] = await Promise.all([
    onChain(s.target, "getBalance", () => s.client.getBalance({ address: a })),
    onChain(s.target, "getTransactionCount", () => s.client.getTransactionCount({ address: a })),
    onChain(s.target, "getCode", () => s.client.getCode({ address: a })),
  ]);
  return balance === 0n && nonce === 0 && (code ?? "0x") === "0x";
}
