// Contracts every local TEST chain has: deployed at start-up (server/runtime.ts, so `npm start`,
// `npm run dev` and the tests' apps alike) from account 19 of the public development mnemonic, in
// the order of LOCAL_DEPLOYMENTS, so each lands at the address its deployer nonce gives on a fresh
// chain. An address that already has code is left as it is; nothing is ever deployed on a chain
// that is not a local development node.
import { getContractAddress, type Address, type Hex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { LOCAL_DEV_CHAIN_IDS, publicClientFor, walletClientFor } from "./clients";
import { BatchPayout, TestUSDC, type ContractBuild } from "./contracts";
import { DEV_MNEMONIC } from "./deposit-address";

/** The development account reserved for deployments (no test or faucet uses it). */
const deployer = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 19 });

interface LocalDeployment {
  name: string;
  build: ContractBuild;
  /** Constructor arguments, ABI-encoded (empty for none). */
  args?: Hex;
}

/** What a local chain gets, in deployment order (append only: an entry's position is its nonce). */
const LOCAL_DEPLOYMENTS: readonly LocalDeployment[] = [
  { name: "TestUSDC", build: TestUSDC },
  { name: "BatchPayout", build: BatchPayout },
];

/** Where an entry of LOCAL_DEPLOYMENTS lives on a fresh local chain. */
function localDeploymentAddress(name: string): Address {
  const nonce = LOCAL_DEPLOYMENTS.findIndex((d) => d.name === name);
  if (nonce < 0) throw new Error(`No local deployment named ${name}`);
  return getContractAddress({ from: deployer.address, nonce: BigInt(nonce) });
}

/** The test stablecoin's address on a local TEST chain. */
export const LOCAL_TEST_USDC: Address = localDeploymentAddress("TestUSDC");

/** The batch payout contract's address on a local TEST chain. */
export const LOCAL_BATCH_PAYOUT: Address = localDeploymentAddress("BatchPayout");

const hasCode = async (rpcUrl: string, address: Address) => ((await publicClientFor(rpcUrl).getCode({ address })) ?? "0x") !== "0x";

/** Deploys one entry unless its address has code; another process deploying it at the same time is waited for. */
async function deployOne(rpcUrl: string, d: LocalDeployment, nonce: number): Promise<void> {
  const address = getContractAddress({ from: deployer.address, nonce: BigInt(nonce) });
  if (await hasCode(rpcUrl, address)) return;
  const client = publicClientFor(rpcUrl);
  const used = await client.getTransactionCount({ address: deployer.address, blockTag: "pending" });
  if (used > nonce) {
    // Another process sent it (or the nonce went elsewhere): wait for it briefly, then say so.
    for (let i = 0; i < 50 && !(await hasCode(rpcUrl, address)); i++) await new Promise((r) => setTimeout(r, 100));
    if (!(await hasCode(rpcUrl, address))) console.warn(`[chain] ${d.name} is not at ${address}: the deployer's nonce ${nonce} went to another transaction`);
    return;
  }
  const data = `${d.build.bytecode}${(d.args ?? "0x").slice(2)}` as Hex;
  try {
    const hash = await walletClientFor(rpcUrl).sendTransaction({ account: deployer, data, nonce, chain: await chainOf(rpcUrl) });
    await client.waitForTransactionReceipt({ hash, pollingInterval: 100, timeout: 30_000 });
  } catch (e) {
    if (!(await hasCode(rpcUrl, address))) throw e;
  }
}

async function chainOf(rpcUrl: string) {
  const id = await publicClientFor(rpcUrl).getChainId();
  return { id, name: "local", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } };
}

const done = new Map<string, Promise<boolean>>();

/** Makes sure every local deployment is on the chain at rpcUrl (`recheck`: again, after the chain restarted empty); false (and nothing sent) when it is not a local development node. */
export function ensureLocalDeployments(rpcUrl: string, recheck = false): Promise<boolean> {
  if (recheck) done.delete(rpcUrl);
  let p = done.get(rpcUrl);
  if (!p) {
    p = (async () => {
      if (!LOCAL_DEV_CHAIN_IDS.has(await publicClientFor(rpcUrl).getChainId())) return false;
      for (const [nonce, d] of LOCAL_DEPLOYMENTS.entries()) await deployOne(rpcUrl, d, nonce);
      return true;
    })();
    done.set(rpcUrl, p);
    p.catch(() => done.delete(rpcUrl));
  }
  return p;
}
