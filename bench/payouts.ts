// npm run bench:payouts [-- --recipients 1000 --skip-run]
// On a local chain of its own (Hardhat / EDR, as `npm start` runs it):
//  1. gas per recipient of 100 recipients paid by one BatchPayout transaction, in ETH and in the
//     test stablecoin, to warm addresses (an account that exists; a token holder) and to fresh
//     ones, side by side with one plain transfer each, and what the run's chooser pays;
//  2. payout runs through the app (production build, PGlite): `--recipients` participants with a
//     reward and a warm wallet paid by POST /business/payouts/run, timed until all are confirmed;
//     then the same with the app killed (SIGKILL) once in the middle of the run and started again.
//     Each time: the confirmed payouts are counted and every wallet's balance is checked (paid once).
// Figures go to bench/RESULTS.md by hand.
import { rmSync } from "node:fs";
import { createPublicClient, createWalletClient, encodeFunctionData, erc20Abi, http, maxUint256, parseEther, type Address, type Hex } from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { startLocalChain } from "../scripts/local-chain.mjs";
import { batchPayoutAbi, testTokenAbi } from "../server/chain/contracts";
import { DEV_MNEMONIC } from "../server/chain/deposit-address";
import { ensureLocalDeployments, LOCAL_BATCH_PAYOUT, LOCAL_TEST_USDC } from "../server/chain/local-deploy";
import { batchIsCheaper, batchShareGas } from "../server/domain/payouts/batch-call";
import { ETH_ASSET, type Asset } from "../server/shared/asset";
import { freePort } from "../tests/support/app";
import { tempPgliteDir } from "../tests/support/database";
import { call, signUpWithToken } from "./api";
import { startBenchApp, type BenchApp } from "./app";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const flag = (name: string) => process.argv.includes(`--${name}`);
const N = 100;
const USDC: Asset = { asset: "ERC20", tokenAddress: LOCAL_TEST_USDC, symbol: "USDC", decimals: 6 };

const payer = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 3 });
const fresh = (n: number): Address[] => Array.from({ length: n }, () => privateKeyToAccount(generatePrivateKey()).address);

async function gasFigures(rpc: string) {
  const client = createPublicClient({ transport: http(rpc) });
  const wallet = createWalletClient({ transport: http(rpc), account: payer });
  const rpcCall = (method: string, params: unknown[]) => client.request({ method: method as never, params: params as never });
  const send = async (tx: { to: Address; data?: Hex; value?: bigint }) => {
    const hash = await wallet.sendTransaction({ ...tx, gas: 15_000_000n, chain: null });
    const r = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (r.status !== "success") throw new Error(`reverted: ${hash}`);
    return r.gasUsed;
  };
  await ensureLocalDeployments(rpc);
  await send({ to: LOCAL_TEST_USDC, data: encodeFunctionData({ abi: testTokenAbi, functionName: "mint", args: [payer.address, 10n ** 15n] }) });
  await send({ to: LOCAL_TEST_USDC, data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [LOCAL_BATCH_PAYOUT, maxUint256] }) });
  /** Warm: an existing account (one wei) and, for the token, a holder (one base unit, minted). */
  const warm = async (n: number, token: boolean) => {
    const list = fresh(n);
    for (const a of list) {
      await rpcCall("hardhat_setBalance", [a, "0x1"]);
      if (token) await send({ to: LOCAL_TEST_USDC, data: encodeFunctionData({ abi: testTokenAbi, functionName: "mint", args: [a, 1n] }) });
    }
    return list;
  };
  const ethAmount = parseEther("0.001");
  const tokenAmount = 1_000_000n;
  const payEth = (to: Address[]) => send({ to: LOCAL_BATCH_PAYOUT, value: ethAmount * BigInt(to.length), data: encodeFunctionData({ abi: batchPayoutAbi, functionName: "payEth", args: [to, to.map(() => ethAmount)] }) });
  const payToken = (to: Address[]) => send({ to: LOCAL_BATCH_PAYOUT, data: encodeFunctionData({ abi: batchPayoutAbi, functionName: "payToken", args: [LOCAL_TEST_USDC, to, to.map(() => tokenAmount)] }) });
  const transferToken = (to: Address) => send({ to: LOCAL_TEST_USDC, data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, tokenAmount] }) });

  const rows: Array<{ case: string; single: bigint; batch: bigint; chosen: bigint }> = [];
  const row = (name: string, asset: Asset, single: bigint, batchTotal: bigint, empty: boolean) => {
    const batch = batchTotal / BigInt(N);
    // What a run pays per recipient: the chooser's pick, by its estimate (batch-call.ts).
    const chosen = batchIsCheaper(asset, single, empty) ? batch : single;
    rows.push({ case: name, single, batch, chosen });
  };
  const [w1] = await warm(1, false);
  row("ETH, warm (funded) recipients", ETH_ASSET, await send({ to: w1, value: ethAmount }), await payEth(await warm(N, false)), false);
  row("ETH, fresh recipients", ETH_ASSET, await send({ to: fresh(1)[0], value: ethAmount }), await payEth(fresh(N)), true);
  const [t1] = await warm(1, true);
  row("USDC, warm recipients (holders)", USDC, await transferToken(t1), await payToken(await warm(N, true)), false);
  row("USDC, fresh recipients", USDC, await transferToken(fresh(1)[0]), await payToken(fresh(N)), false);
  console.log(`\nGas per recipient, ${N} recipients in one BatchPayout transaction vs one transfer each (the chooser estimates a fresh ETH address's share of a batch at ${batchShareGas(ETH_ASSET, 21_000n, true)})`);
  console.log("| case | one transfer each | batch, per recipient | batch ÷ transfer | the run pays (chooser) |");
  console.log("|---|---:|---:|---:|---:|");
  for (const r of rows) console.log(`| ${r.case} | ${r.single.toLocaleString("en")} | ${r.batch.toLocaleString("en")} | ${(Number(r.batch) / Number(r.single)).toFixed(2)} | ${r.chosen.toLocaleString("en")} |`);
  return rows;
}

interface RunResult {
  recipients: number;
  seconds: number;
  confirmed: number;
  batches: number;
  transactions: number;
  paidTwice: number;
  unpaid: number;
  killed: boolean;
}

/** A business with `n` referrers (warm wallets, one reward each) on the app; its owner's headers. */
async function program(app: BenchApp, rpc: string, n: number) {
  const { secret, token } = await signUpWithToken(app.url, "bench-payouts");
  const owner = { authorization: `Bearer ${token}` };
  await call(app.url, "PATCH", "/business/config/general", { referralRewardEth: "0.001", bonusEth: "0", eventProcessing: "SYNC" }, owner);
  const balance = await call(app.url, "GET", "/business/balance?environment=TEST", undefined, owner);
  const deposit = balance.depositAddress as Address;
  const client = createPublicClient({ transport: http(rpc) });
  const funder = createWalletClient({ transport: http(rpc), account: mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 4 }) });
  const hash = await funder.sendTransaction({ to: deposit, value: parseEther(String(n * 0.001 + 1)), chain: null });
  await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  await call(app.url, "POST", "/business/funding/verify", { txHash: hash, environment: "TEST" }, owner);
  const wallets = fresh(n);
  const key = { "x-api-key": secret };
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      await client.request({ method: "hardhat_setBalance" as never, params: [wallets[i], "0x1"] as never });
      const p = await call(app.url, "POST", "/sdk/participants", { userId: `ref-${i}`, walletAddress: wallets[i] }, key);
      await call(app.url, "POST", "/track", { eventName: "purchase", referrer: p.referralCode, metadata: { referredUserEmail: `bought-${i}-${Date.now()}@example.com` } }, key);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return { owner, wallets, deposit, client };
}

async function payouts(url: string, owner: Record<string, string>) {
  const all: Array<Record<string, unknown>> = [];
  let cursor = "";
  do {
    const page = await call(url, "GET", `/business/payouts?environment=TEST&limit=200${cursor ? `&cursor=${cursor}` : ""}`, undefined, owner);
    all.push(...(page.data as Array<Record<string, unknown>>));
    cursor = (page.nextCursor as string | null) ?? "";
  } while (cursor);
  return all;
}

/** Pays `n` referrers; with `kill`, the app is killed once as soon as the run's first batch is recorded, then started again. */
async function endToEnd(rpc: string, n: number, kill: boolean): Promise<RunResult> {
  const port = await freePort();
  const dir = tempPgliteDir();
  const env = { PGLITE_DIR: dir, CHAIN_RPC_URL_TEST: rpc, PAYOUT_INTERVAL_MS: "0", RATE_LIMIT_PER_SECOND: "100000", RATE_LIMIT_BURST: "100000" };
  let app = await startBenchApp(env, port);
  try {
    const { owner, wallets, deposit, client } = await program(app, rpc, n);
    const started = performance.now();
    const run = () => fetch(`${app.url}/business/payouts/run`, { method: "POST", headers: { ...owner, "content-type": "application/json" }, body: JSON.stringify({ environment: "TEST" }) }).catch(() => null);
    if (kill) {
      const running = run();
      for (let i = 0; i < 6000; i++) {
        const b = await call(app.url, "GET", "/business/payouts/batches?environment=TEST&limit=1", undefined, owner).catch(() => ({ data: [] }));
        if ((b.data as unknown[]).length) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await app.kill();
      await running;
      app = await startBenchApp(env, port);
    }
    for (let i = 0; i < 20; i++) {
      await run();
      const list = await payouts(app.url, owner);
      if (list.filter((p) => p.status === "CONFIRMED").length >= n && !list.some((p) => p.status === "PENDING" || p.status === "SENT")) break;
    }
    const seconds = (performance.now() - started) / 1000;
    const list = await payouts(app.url, owner);
    const confirmed = list.filter((p) => p.status === "CONFIRMED");
    const batches = await call(app.url, "GET", "/business/payouts/batches?environment=TEST&limit=200", undefined, owner);
    let paidTwice = 0;
    let unpaid = 0;
    for (const w of wallets) {
      const got = await client.getBalance({ address: w });
      if (got > parseEther("0.001") + 1n) paidTwice++;
      if (got < parseEther("0.001") + 1n) unpaid++;
    }
    return { recipients: n, seconds, confirmed: confirmed.length, batches: (batches.data as unknown[]).length, transactions: await client.getTransactionCount({ address: deposit }), paidTwice, unpaid, killed: kill };
  } finally {
    await app.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const port = await freePort();
  const rpc = `http://127.0.0.1:${port}`;
  const chain = await startLocalChain({ port, reuse: false, log: "ignore" });
  try {
    await gasFigures(rpc);
    if (flag("skip-run")) return;
    const n = arg("recipients", 1000);
    console.log(`\nPayout runs through the app (PGlite, PAYOUT_BATCH_SIZE default), ${n} recipients with warm wallets`);
    console.log("| run | time to all confirmed | confirmed payouts | batches | transactions | paid twice | unpaid |");
    console.log("|---|---:|---:|---:|---:|---:|---:|");
    for (const kill of [false, true]) {
      const r = await endToEnd(rpc, n, kill);
      console.log(`| ${kill ? "killed once mid-run, started again" : "one run"} | ${r.seconds.toFixed(1)} s | ${r.confirmed} | ${r.batches} | ${r.transactions} | ${r.paidTwice} | ${r.unpaid} |`);
    }
  } finally {
    chain?.kill("SIGTERM");
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
