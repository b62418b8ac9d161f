// Payouts across crashes: the app is killed (SIGKILL) at each point of a payout, the steps up to
// that point are run in this process exactly as the app runs them (domain functions on the
// app's database and chain), then the app restarts and a run recovers. Each time the wallet
// receives the amount exactly once and the sending address uses exactly one nonce.
// Also: scheduled payouts (autoPayoutEnabled) through the REWARD_PAYOUT job on the embedded runner.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChildProcess } from "node:child_process";
import { createPublicClient, http, parseEther, type Address } from "viem";
import { freePort, startApp, type RunningApp } from "../support/app";
import { ownDatabase } from "../support/database";
import { startLocalChain } from "../../scripts/local-chain.mjs";
import type * as PayoutCreate from "../../server/domain/payouts/create";
import type * as PayoutSender from "../../server/domain/payouts/sender";
import type * as PayoutSettle from "../../server/domain/payouts/settle";
import { balanceOf, earn, figures, fund, payoutBusiness, referrerWithWallet, runPayouts, type ChainApp } from "./payouts-helpers";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

let chain: ChildProcess | null = null;
let rpc = "";
let dbEnv: Record<string, string> = {};
let c: ChainApp;
let appPort = 0;

/** Starts (or restarts, after a kill) the app on the same port and database: sessions and URLs stay valid. */
async function boot(extra: Record<string, string> = {}) {
  const app: RunningApp = await startApp({ ...dbEnv, CHAIN_RPC_URL_TEST: rpc, PAYOUT_INTERVAL_MS: "0", ...extra }, appPort);
  c = { rpc, app, chain, client: createPublicClient({ transport: http(rpc) }), faults: new Map(), stop: () => app.stop() };
  return c;
}

/** Runs `fn` with the app's domain code in this process (the app is down: PGlite allows one process). */
type PayoutSteps = typeof PayoutSender & typeof PayoutCreate & typeof PayoutSettle;
async function inProcess<T>(fn: (m: PayoutSteps) => Promise<T>): Promise<T> {
  Object.assign(process.env, dbEnv, { CHAIN_RPC_URL_TEST: rpc });
  const m = { ...(await import("../../server/domain/payouts/sender")), ...(await import("../../server/domain/payouts/create")), ...(await import("../../server/domain/payouts/settle")) };
  const { closeDb } = await import("../../server/db/client");
  try {
    return await fn(m);
  } finally {
    await closeDb();
  }
}

beforeAll(async () => {
  appPort = await freePort();
  const port = await freePort();
  rpc = `http://127.0.0.1:${port}`;
  chain = await startLocalChain({ port, reuse: false, log: "ignore" });
  cleanups.push(async () => void chain?.kill("SIGTERM"));
  const own = await ownDatabase();
  cleanups.push(own.drop);
  dbEnv = own.env;
});

async function prepared(rewardEth: string) {
  await boot();
  const b = await payoutBusiness(c, { rewardEth });
  const deposit = await fund(c, b.owner, "1");
  const ref = await referrerWithWallet(b);
  await earn(b, ref.referralCode);
  // Asked before the kill: a PGlite database opens in one process at a time, and each opening costs.
  const businessId = (await b.owner.call("GET", "/business/me")).body.business.businessId as string;
  await c.app.kill();
  return { b, ref, deposit, businessId };
}

const nonceOf = (a: Address) => createPublicClient({ transport: http(rpc) }).getTransactionCount({ address: a });

describe("payouts across crashes", () => {
  it("killed between signing and recording: the discarded signature never pays; the run pays once", async () => {
    const { b, ref, deposit, businessId } = await prepared("0.011");
    // The process signed a transfer and died before its transaction committed: nothing recorded, nothing sent.
    const discarded = await inProcess(async (m) => {
      const s = await m.senderFor(businessId, "TEST");
      const fees = await m.quoteFees(s);
      return m.signTransfer(s, { to: ref.wallet, value: parseEther("0.011"), nonce: 0, gasLimit: 21_000n, fees: { ...fees, maxPriorityFeePerGas: fees.maxPriorityFeePerGas + 7n }, chainId: 31337 });
    });
    await boot();
    const [p] = await runPayouts(b);
    expect(p).toMatchObject({ status: "CONFIRMED", amountEth: "0.011", nonce: 0 });
    expect(p.txHash).not.toBe(discarded.txHash);
    // The discarded signature can no longer be mined: its nonce is used.
    await expect(c.client.sendRawTransaction({ serializedTransaction: discarded.rawTx })).rejects.toThrow(/nonce/i);
    expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.011"));
    expect(await nonceOf(deposit)).toBe(1);
    await c.app.kill();
  }, 300_000);

  it("killed between recording and broadcasting: recovery broadcasts the recorded transaction, once", async () => {
    const { b, ref, deposit, businessId } = await prepared("0.012");
    const recorded = await inProcess(async (m) => {
      const s = await m.senderFor(businessId, "TEST");
      const step = await m.createNextPayout(s, new Set());
      if (step.kind !== "created") throw new Error(`expected a created payout, got ${step.kind}`);
      return step.payout;
    });
    expect(recorded).toMatchObject({ status: "PENDING" });
    expect(await balanceOf(c, ref.wallet)).toBe(0n);
    await boot();
    const again = await runPayouts(b);
    expect(again).toEqual([]); // nothing new created: the recorded one was recovered
    const list = await b.owner.call("GET", "/business/payouts?environment=TEST");
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ payoutId: recorded.id, status: "CONFIRMED", txHash: recorded.txHash, nonce: recorded.nonce });
    expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.012"));
    expect(await nonceOf(deposit)).toBe(1);
    await c.app.kill();
  }, 300_000);

  it("killed between broadcasting and confirming: the next run confirms, nothing is sent again; the ledger reconciles", async () => {
    const { b, ref, deposit, businessId } = await prepared("0.013");
    const sent = await inProcess(async (m) => {
      const s = await m.senderFor(businessId, "TEST");
      const step = await m.createNextPayout(s, new Set());
      if (step.kind !== "created") throw new Error(`expected a created payout, got ${step.kind}`);
      return m.broadcastPayout(s, step.payout.id);
    });
    expect(sent.status).toBe("SENT");
    await boot();
    expect(await runPayouts(b)).toEqual([]);
    const list = await b.owner.call("GET", "/business/payouts?environment=TEST");
    expect(list.body.data).toMatchObject([{ payoutId: sent.id, status: "CONFIRMED", txHash: sent.txHash }]);
    expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.013"));
    expect(await nonceOf(deposit)).toBe(1);
    expect(await figures(b)).toMatchObject({ paidOutEth: "0.013", owedEth: "0", reconciled: true });
    await c.app.kill();
  }, 300_000);

  it("autoPayoutEnabled: the schedule runs a REWARD_PAYOUT job on the embedded runner", async () => {
    await boot({ PAYOUT_INTERVAL_MS: "500" });
    const b = await payoutBusiness(c, { rewardEth: "0.014", spend: { autoPayoutEnabled: true } });
    await fund(c, b.owner, "1");
    const ref = await referrerWithWallet(b);
    await earn(b, ref.referralCode);
    let status = "";
    for (let i = 0; i < 120 && status !== "CONFIRMED"; i++) {
      await new Promise((r) => setTimeout(r, 500));
      const list = await b.owner.call("GET", "/business/payouts?environment=TEST");
      status = list.body.data[0]?.status ?? "";
    }
    expect(status).toBe("CONFIRMED");
    expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.014"));
    await c.app.stop();
  }, 300_000);
});

