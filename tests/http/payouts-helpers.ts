// Helpers of the payout tests: each suite runs its own local chain (snapshots, reverts and
// drained deposit addresses must not touch the shared chain) and its own app on it.
import type { ChildProcess } from "node:child_process";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import { createPublicClient, createWalletClient, http, parseEther, type Address, type Hash, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { freePort, startApp, type RunningApp } from "../support/app";
import { devAccount } from "../support/chain";
import { createKey, request, signUp, uniqueEmail, type Owner } from "../support/http";
import { startLocalChain } from "../../scripts/local-chain.mjs";

export interface ChainApp {
  rpc: string;
  app: RunningApp;
  chain: ChildProcess | null;
  client: ReturnType<typeof createPublicClient>;
  /** What the app's node does to a JSON-RPC method (none: it answers as the chain does); see rpcProxy. */
  faults: Map<string, RpcFault>;
  stop(): Promise<void>;
}

/** An error the node answers for a method, after passing the request on to the chain (`passOn`) or instead of it. */
export interface RpcFault {
  code: number;
  message: string;
  passOn: boolean;
}

/** A JSON-RPC proxy to `rpc` that misbehaves on the methods `faults` names. */
async function rpcProxy(rpc: string, faults: Map<string, RpcFault>) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => void answer(Buffer.concat(chunks).toString("utf8"), res));
  });
  async function answer(body: string, res: ServerResponse) {
    try {
      const call = JSON.parse(body) as { id: number; method: string } | unknown[];
      const fault = Array.isArray(call) ? undefined : faults.get(call.method);
      let text = "";
      if (!fault || fault.passOn) text = await (await fetch(rpc, { method: "POST", headers: { "content-type": "application/json" }, body })).text();
      if (fault && !Array.isArray(call)) text = JSON.stringify({ jsonrpc: "2.0", id: call.id, error: { code: fault.code, message: fault.message } });
      res.writeHead(200, { "content-type": "application/json" }).end(text);
    } catch {
      res.destroy();
    }
  }
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** A local chain of its own, and an app whose TEST node is that chain behind rpcProxy (pass-through until `faults` says otherwise). */
export async function startChainApp(extraEnv: Record<string, string> = {}): Promise<ChainApp> {
  const port = await freePort();
  const rpc = `http://127.0.0.1:${port}`;
  const chain = await startLocalChain({ port, reuse: false, log: "ignore" });
  const faults = new Map<string, RpcFault>();
  const proxy = await rpcProxy(rpc, faults);
  const app = await startApp({ CHAIN_RPC_URL_TEST: proxy.url, PAYOUT_INTERVAL_MS: "0", ...extraEnv });
  const client = createPublicClient({ transport: http(rpc) });
  const chainApp: ChainApp = {
    rpc,
    app,
    chain,
    client,
    faults,
    async stop() {
      await app.stop();
      this.chain?.kill("SIGTERM");
      await proxy.close();
    },
  };
  return chainApp;
}

/** Stops the app's chain and starts an empty one on the same port, as a restart of the in-memory development chain does. */
export async function restartChain(c: ChainApp) {
  const old = c.chain;
  if (old && old.exitCode === null) {
    const exited = new Promise((r) => old.once("exit", r));
    old.kill("SIGTERM");
    await exited;
  }
  c.chain = await startLocalChain({ port: Number(new URL(c.rpc).port), reuse: false, log: "ignore" });
}

export const rpcCall = (c: ChainApp, method: string, params: unknown[] = []) => c.client.request({ method: method as never, params: params as never });
export const mineBlocks = (c: ChainApp, n: number) => rpcCall(c, "hardhat_mine", [`0x${n.toString(16)}`]);

/** A wallet nobody has used: its balance starts at 0. */
export const freshWallet = (): Address => privateKeyToAccount(generatePrivateKey()).address;

export const balanceOf = async (c: ChainApp, a: Address) => c.client.getBalance({ address: a });

/** Sends real ETH from a dev account to the business's TEST deposit address and verifies it. */
export async function fund(c: ChainApp, owner: Owner, eth: string, confirmations = 1) {
  const b = await owner.call("GET", "/business/balance?environment=TEST");
  const hash: Hash = await createWalletClient({ transport: http(c.rpc) }).sendTransaction({ account: devAccount(7), to: b.body.depositAddress, value: parseEther(eth), chain: null });
  await c.client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  if (confirmations > 1) await mineBlocks(c, confirmations - 1);
  const r = await owner.call("POST", "/business/funding/verify", { txHash: hash, environment: "TEST" });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return b.body.depositAddress as Address;
}

export interface PayoutBusiness {
  owner: Owner;
  secret: string;
  url: string;
  sdk: (method: string, path: string, body?: unknown) => ReturnType<typeof request>;
}

/** A business with a TEST key, referral rewards of `rewardEth` processed synchronously. */
export async function payoutBusiness(c: ChainApp, opts: { rewardEth?: string; spend?: Record<string, unknown>; general?: Record<string, unknown> } = {}): Promise<PayoutBusiness> {
  const url = c.app.url;
  const owner = await signUp({ url });
  const { secret } = await createKey(owner, "TEST");
  const g = await owner.call("PATCH", "/business/config/general", { referralRewardEth: opts.rewardEth ?? "0.01", bonusEth: "0", eventProcessing: "SYNC", ...opts.general });
  expect(g.status, JSON.stringify(g.body)).toBe(200);
  if (opts.spend) {
    const s = await owner.call("PATCH", "/business/config/spend", opts.spend);
    expect(s.status, JSON.stringify(s.body)).toBe(200);
  }
  return { owner, secret, url, sdk: (m, p, b) => request(url, m, p, b, { "x-api-key": secret }) };
}

/** A referrer with a wallet (SDK upsert). */
export async function referrerWithWallet(b: PayoutBusiness, wallet: Address | null = freshWallet()) {
  const r = await b.sdk("POST", "/sdk/participants", { userId: `ref-${Math.random().toString(36).slice(2)}`, ...(wallet ? { walletAddress: wallet.toLowerCase() } : {}) });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { participantId: r.body.participantId as string, referralCode: r.body.referralCode as string, wallet: wallet as Address };
}

/** A tracked referral that earns the referrer one reward; returns the referred user's email. */
export async function earn(b: PayoutBusiness, referralCode: string, referredUserEmail = uniqueEmail("referred")) {
  const r = await b.sdk("POST", "/track", { eventName: "purchase", referrer: referralCode, metadata: { referredUserEmail } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.rewards?.[0]?.status, JSON.stringify(r.body)).toBe("PAID");
  return referredUserEmail;
}

export async function runPayouts(b: PayoutBusiness) {
  const r = await b.owner.call("POST", "/business/payouts/run", { environment: "TEST" });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.payouts as Array<Record<string, any>>;
}

export async function figures(b: PayoutBusiness) {
  const r = await b.owner.call("GET", "/business/balance?environment=TEST");
  expect(r.status).toBe(200);
  return r.body as Record<string, any>;
}

/** A contract wallet whose every call reverts: a transfer to it fails (WALLET_REFUSED). */
export async function revertingWallet(c: ChainApp): Promise<Address> {
  // Init code that returns the two-instruction runtime 0x60006000fd (REVERT(0, 0)).
  const init = "0x6460006000fd6000526005601bf3" as Hex;
  const hash = await createWalletClient({ transport: http(c.rpc) }).sendTransaction({ account: devAccount(6), data: init, gas: 300_000n, chain: null });
  const receipt = await c.client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  if (!receipt.contractAddress) throw new Error("deployment failed");
  expect(await c.client.getCode({ address: receipt.contractAddress })).toBe("0x60006000fd");
  return receipt.contractAddress;
}
