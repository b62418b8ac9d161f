// Funding against apps with their own chain settings: required confirmations, a LIVE chain
// with a private deposit seed, and a chain that is down.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { english, generateMnemonic } from "viem/accounts";
import { freePort, startApp, type RunningApp } from "../support/app";
import { signUp } from "../support/http";
import { createPublicClient, createWalletClient, http, parseEther } from "viem";
import type { ChildProcess } from "node:child_process";
import { startLocalChain } from "../../scripts/local-chain.mjs";
import { chainRpcUrl, devAccount, mine, sendEth, testDepositAddress } from "../support/chain";

describe("confirmations, and a LIVE chain with a private deposit seed", () => {
  let app: RunningApp;
  beforeAll(async () => {
    // One app for both: TEST asks many confirmations, so that blocks mined meanwhile by parallel
    // tests cannot reach them; the local chain stands in for mainnet as LIVE, configured exactly
    // as in production.
    app = await startApp({
      CHAIN_RPC_URL_TEST: chainRpcUrl(),
      FUNDING_CONFIRMATIONS_TEST: "1000",
      CHAIN_RPC_URL: chainRpcUrl(),
      DEPOSIT_MNEMONIC: generateMnemonic(english),
      FUNDING_CONFIRMATIONS: "1",
    });
  });
  afterAll(() => app?.stop());

  it("refuses a deposit with too few confirmations (422), credits it once enough blocks are mined", async () => {
    const owner = await signUp({ url: app.url });
    const balance = await owner.call("GET", "/business/balance?environment=TEST");
    expect(balance.body.confirmationsRequired).toBe(1000);
    const hash = await sendEth(await testDepositAddress(owner), "4");

    const early = await owner.call("POST", "/business/funding/verify", { txHash: hash, environment: "TEST" });
    expect(early.status).toBe(422);
    expect(early.body.error).toMatchObject({ code: "FUNDING_REJECTED", details: { reason: "INSUFFICIENT_CONFIRMATIONS", required: 1000 } });
    expect(early.body.error.details.confirmations).toBeLessThan(1000);
    expect((await owner.call("GET", "/business/balance?environment=TEST")).body.balanceEth).toBe("0");

    await mine(1000);
    const later = await owner.call("POST", "/business/funding/verify", { txHash: hash, environment: "TEST" });
    expect(later.status).toBe(200);
    expect(later.body).toMatchObject({ creditedEth: "4", balanceEth: "4", alreadyCredited: false });
    expect(later.body.confirmations).toBeGreaterThanOrEqual(1000);
  });

  it("derives separate LIVE and TEST addresses; a deposit counts only in the environment it was sent to", async () => {
    const owner = await signUp({ url: app.url });
    const live = await owner.call("GET", "/business/balance");
    expect(live.body).toMatchObject({ environment: "LIVE", chainConfigured: true, chainProblem: null });
    const liveAddress = live.body.depositAddress as `0x${string}`;
    const testAddress = await testDepositAddress(owner);
    expect(liveAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(liveAddress).not.toBe(testAddress);

    const toLive = await sendEth(liveAddress, "0.5");
    const asTest = await owner.call("POST", "/business/funding/verify", { txHash: toLive, environment: "TEST" });
    expect(asTest.status).toBe(422);
    expect(asTest.body.error.details.reason).toBe("WRONG_RECIPIENT");

    const asLive = await owner.call("POST", "/business/funding/verify", { txHash: toLive });
    expect(asLive.status).toBe(200);
    expect(asLive.body).toMatchObject({ environment: "LIVE", creditedEth: "0.5", balanceEth: "0.5", depositAddress: liveAddress });
    expect((await owner.call("GET", "/business/balance?environment=TEST")).body.balanceEth).toBe("0");
  });
});

describe("chain down", () => {
  let app: RunningApp;
  beforeAll(async () => {
    // Nothing listens on this port: every chain call fails to connect.
    app = await startApp({ CHAIN_RPC_URL_TEST: `http://127.0.0.1:${await freePort()}` });
  });
  afterAll(() => app?.stop());

  it("verify and test-deposit answer 503 CHAIN_UNAVAILABLE; the balance (ledger) still answers", async () => {
    const owner = await signUp({ url: app.url });
    const r = await owner.call("POST", "/business/funding/verify", { txHash: `0x${"cd".repeat(32)}`, environment: "TEST" });
    expect(r.status).toBe(503);
    expect(r.body.error).toMatchObject({ code: "CHAIN_UNAVAILABLE", message: expect.stringMatching(/not reachable/) });
    const d = await owner.call("POST", "/business/funding/test-deposit", { amountEth: "1" });
    expect(d.status).toBe(503);
    expect(d.body.error.code).toBe("CHAIN_UNAVAILABLE");
    const b = await owner.call("GET", "/business/balance?environment=TEST");
    expect(b.status).toBe(200);
    expect(b.body).toMatchObject({ balanceEth: "0", chainConfigured: true });
  });
});

describe("pending transaction", () => {
  // Its own chain: switching automine off on the shared chain would stall every other test.
  let chain: ChildProcess | null;
  let app: RunningApp;
  let rpc: string;
  beforeAll(async () => {
    const port = await freePort();
    rpc = `http://127.0.0.1:${port}`;
    chain = await startLocalChain({ port, reuse: false, log: "ignore" });
    app = await startApp({ CHAIN_RPC_URL_TEST: rpc });
  });
  afterAll(async () => {
    await app?.stop();
    chain?.kill("SIGTERM");
  });

  it("a sent but unmined transaction → 422 TX_PENDING; once mined it is credited", async () => {
    const owner = await signUp({ url: app.url });
    const to = await testDepositAddress(owner);
    const client = createPublicClient({ transport: http(rpc) });
    await client.request({ method: "evm_setAutomine" as never, params: [false] as never });
    const hash = await createWalletClient({ transport: http(rpc) }).sendTransaction({ account: devAccount(3), to, value: parseEther("0.3"), chain: null });

    const pending = await owner.call("POST", "/business/funding/verify", { txHash: hash, environment: "TEST" });
    expect(pending.status).toBe(422);
    expect(pending.body.error).toMatchObject({ code: "FUNDING_REJECTED", details: { reason: "TX_PENDING", confirmations: 0 } });

    await client.request({ method: "evm_mine" as never });
    const mined = await owner.call("POST", "/business/funding/verify", { txHash: hash, environment: "TEST" });
    expect(mined.status).toBe(200);
    expect(mined.body).toMatchObject({ creditedEth: "0.3", balanceEth: "0.3", confirmations: 1 });
  });
});
