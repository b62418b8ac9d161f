// The run's local TEST chain (a real Hardhat 3 / EDR node started by global-setup): send real
// transactions, deploy tiny contracts, mine blocks, and fund a business's TEST pool end to end.
import { inject } from "vitest";
import { createPublicClient, createWalletClient, http, parseEther, type Address, type Hash } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import type { Owner } from "./http";

export const chainRpcUrl = () => inject("chainRpcUrl");

const DEV_MNEMONIC = "test test test test test test test test test test test junk";
/** Hardhat's prefunded dev accounts (unlocked on the node); #0 is the app's test-deposit faucet. */
export const devAccount = (i: number): Address => mnemonicToAccount(DEV_MNEMONIC, { addressIndex: i }).address;

export const publicClient = () => createPublicClient({ transport: http(chainRpcUrl()) });
const walletClient = () => createWalletClient({ transport: http(chainRpcUrl()) });

/** Sends a real transaction from an unlocked dev account (the node assigns the nonce) and waits for it to be mined. */
export async function sendTx(opts: { to?: Address | null; valueEth?: string; data?: `0x${string}`; from?: number; gas?: bigint }) {
  const hash = await walletClient().sendTransaction({
    account: devAccount(opts.from ?? 5),
    to: opts.to ?? null,
    value: parseEther(opts.valueEth ?? "0"),
    data: opts.data,
    gas: opts.gas,
    chain: null,
  });
  const receipt = await publicClient().waitForTransactionReceipt({ hash, pollingInterval: 100 });
  return { hash, receipt };
}

export const sendEth = async (to: Address, valueEth: string, from?: number): Promise<Hash> => (await sendTx({ to, valueEth, from })).hash;

/** Deploys a contract whose code always reverts (PUSH1 0 PUSH1 0 REVERT), so any call to it fails. */
export async function deployReverter(): Promise<Address> {
  // init code: PUSH5 0x60006000fd, PUSH1 0, MSTORE, PUSH1 5, PUSH1 27, RETURN → runtime 0x60006000fd
  const { receipt } = await sendTx({ data: "0x6460006000fd6000526005601bf3", gas: 200_000n });
  if (!receipt.contractAddress) throw new Error("reverter deployment failed");
  return receipt.contractAddress;
}

/** Mines `blocks` empty blocks at once (Hardhat's hardhat_mine). */
export async function mine(blocks: number) {
  await publicClient().request({ method: "hardhat_mine" as never, params: [`0x${blocks.toString(16)}`] as never });
}

/** The business's TEST deposit address, from GET /business/balance. */
export async function testDepositAddress(owner: Owner): Promise<Address> {
  const r = await owner.call("GET", "/business/balance?environment=TEST");
  if (r.status !== 200 || !r.body.depositAddress) throw new Error(`balance failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.depositAddress as Address;
}

/** Funds the business's TEST pool for real: a transaction on the local chain, then verify. */
export async function fundTestPool(owner: Owner, amountEth: string) {
  const hash = await sendEth(await testDepositAddress(owner), amountEth);
  const r = await owner.call("POST", "/business/funding/verify", { txHash: hash, environment: "TEST" });
  if (r.status !== 200) throw new Error(`funding verify failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { txHash: string; creditedEth: string; balanceEth: string };
}
