// Batch payouts across crashes, as payouts-crash.test.ts does for single payouts: the app is
// killed (SIGKILL) between recording a batch and broadcasting it, and between broadcasting it and
// confirming it (those steps run in this process exactly as the app runs them), then restarts and
// a run recovers; and a run paying many participants in batches is killed in the middle and
// started again. Each wallet receives its amount exactly once, no payout is lost, and the sending
// address uses one nonce per transaction.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChildProcess } from "node:child_process";
import { createPublicClient, http, parseEther, type Address } from "viem";
import { freePort, startApp, type RunningApp } from "../support/app";
import { ownDatabase } from "../support/database";
import { startLocalChain } from "../../scripts/local-chain.mjs";
import type * as PayoutSender from "../../server/domain/payouts/sender";
import type * as BatchCall from "../../server/domain/payouts/batch-call";
import type * as BatchCreate from "../../server/domain/payouts/batch-create";
import type * as BatchSettle from "../../server/domain/payouts/batch-settle";
import { balanceOf, earn, figures, freshWallet, fund, payoutBusiness, referrerWithWallet, runPayouts, type ChainApp, type PayoutBusiness } from "./payouts-helpers";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

let chain: ChildProcess | null = null;
let rpc = "";
let dbEnv: Record<string, string> = {};
let c: ChainApp;
let appPort = 0;

async function boot(extra: Record<string, string> = {}) {
  const app: RunningApp = await startApp({ ...dbEnv, CHAIN_RPC_URL_TEST: rpc, PAYOUT_INTERVAL_MS: "0", ...extra }, appPort);
  c = { rpc, app, chain, client: createPublicClient({ transport: http(rpc) }), faults: new Map(), stop: () => app.stop() };
  return c;
}

type Steps = typeof PayoutSender & typeof BatchCall & typeof BatchCreate & typeof BatchSettle;
/** Runs `fn` with the app's domain code in this process (the app is down: PGlite allows one process). */
async function inProcess<T>(fn: (m: Steps) => Promise<T>): Promise<T> {
  Object.assign(process.env, dbEnv, { CHAIN_RPC_URL_TEST: rpc });
  const m = {
    ...(await import("../../server/domain/payouts/sender")),
    ...(await import("../../server/domain/payouts/batch-call")),
    ...(await import("../../server/domain/payouts/batch-create")),
    ...(await import("../../server/domain/payouts/batch-settle")),
  };
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

const rpcCall = (method: string, params: unknown[] = []) => createPublicClient({ transport: http(rpc) }).request({ method: method as never, params: params as never });
const nonceOf = (a: Address) => createPublicClient({ transport: http(rpc) }).getTransactionCount({ address: a });

/** Referrers with a wallet holding one wei (a batch pays an existing account cheaper than a transfer), each with one reward. */
async function warmReferrers(b: PayoutBusiness, n: number) {
  const refs = [];
  for (let i = 0; i < n; i++) {
    const wallet = freshWallet();
    await rpcCall("hardhat_setBalance", [wallet, "0x1"]);
    const r = await referrerWithWallet(b, wallet);
    await earn(b, r.referralCode);
    refs.push(r);
  }
  return refs;
}

async function prepared(rewardEth: string) {
  await boot();
  const b = await payoutBusiness(c, { rewardEth });
  const deposit = await fund(c, b.owner, "1");
  const refs = await warmReferrers(b, 3);
  const businessId = (await b.owner.call("GET", "/business/me")).body.business.businessId as string;
  await c.app.kill();
  return { b, refs, deposit, businessId };
}

/** The next batch, recorded in this process as the app records it. */
const recordBatch = (m: Steps, businessId: string) =>
  (async () => {
    const s = await m.senderFor(businessId, "TEST");
    s.chainId = await s.client.getChainId();
    s.genesis = await m.chainGenesisOf(s, s.chainId);
    s.fees = await m.quoteFees(s);
    const contract = await m.batchContractFor(s, s.chainId);
    if (!contract) throw new Error("no batch contract on the local chain");
    const step = await m.createNextBatch(s, contract, new Set(), new Set());
    if (step.kind !== "created") throw new Error(`expected a batch, got ${step.kind}`);
    return { s, batchId: step.batchId };
  })();

describe("batch payouts across crashes", () => {
  it("killed between recording and broadcasting: recovery broadcasts the recorded batch, once", async () => {
    const { b, refs, deposit, businessId } = await prepared("0.021");
    const batchId = await inProcess(async (m) => (await recordBatch(m, businessId)).batchId);
    for (const r of refs) expect(await balanceOf(c, r.wallet)).toBe(1n);
    await boot();
    expect(await runPayouts(b)).toEqual([]); // nothing new: the recorded batch was recovered
    const list = (await b.owner.call("GET", "/business/payouts?environment=TEST")).body.data;
    expect(list).toHaveLength(3);
    for (const p of list) expect(p).toMatchObject({ status: "CONFIRMED", batchId, nonce: 0 });
    for (const r of refs) expect(await balanceOf(c, r.wallet)).toBe(parseEther("0.021") + 1n);
    expect(await nonceOf(deposit)).toBe(1);
    expect(await figures(b)).toMatchObject({ paidOutEth: "0.063", owedEth: "0", reconciled: true });
    await c.app.kill();
  }, 300_000);

  it("killed between broadcasting and confirming: the next run confirms, nothing is sent again; the ledger reconciles", async () => {
    const { b, refs, deposit, businessId } = await prepared("0.022");
    const sent = await inProcess(async (m) => {
      const { s, batchId } = await recordBatch(m, businessId);
      return m.broadcastBatch(s, batchId);
    });
    expect(sent.status).toBe("SENT");
    await boot();
    expect(await runPayouts(b)).toEqual([]);
    const batches = (await b.owner.call("GET", "/business/payouts/batches?environment=TEST")).body.data;
    expect(batches).toMatchObject([{ batchId: sent.id, status: "CONFIRMED", txHash: sent.txHash, recipients: 3, amountEth: "0.066" }]);
    for (const r of refs) expect(await balanceOf(c, r.wallet)).toBe(parseEther("0.022") + 1n);
    expect(await nonceOf(deposit)).toBe(1);
    expect(await figures(b)).toMatchObject({ paidOutEth: "0.066", owedEth: "0", gasSpentEth: batches[0].gasEth, reconciled: true });
    await c.app.kill();
  }, 300_000);

  it("a run paying 50 in batches of 10 is killed in the middle and started again: exactly 50 confirmed payouts, each wallet paid once", async () => {
    await boot({ PAYOUT_BATCH_SIZE: "10" });
    const b = await payoutBusiness(c, { rewardEth: "0.001" });
    const deposit = await fund(c, b.owner, "1");
    const refs = await warmReferrers(b, 50);
    const running = b.owner.call("POST", "/business/payouts/run", { environment: "TEST" }).catch(() => null);
    for (let i = 0; i < 600; i++) {
      const r = await b.owner.call("GET", "/business/payouts/batches?environment=TEST");
      if ((r.body.data?.length ?? 0) >= 1) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    await c.app.kill();
    await running;
    await boot({ PAYOUT_BATCH_SIZE: "10" });
    await runPayouts(b);
    await runPayouts(b);
    const all: Array<Record<string, any>> = [];
    let cursor = "";
    do {
      const page = await b.owner.call("GET", `/business/payouts?environment=TEST&limit=200${cursor ? `&cursor=${cursor}` : ""}`);
      all.push(...page.body.data);
      cursor = page.body.nextCursor ?? "";
    } while (cursor);
    const confirmed = all.filter((p) => p.status === "CONFIRMED");
    expect(confirmed).toHaveLength(50);
    expect(new Set(confirmed.map((p) => p.participantId)).size).toBe(50);
    expect(all.filter((p) => p.status === "PENDING" || p.status === "SENT")).toEqual([]);
    for (const r of refs) expect(await balanceOf(c, r.wallet)).toBe(parseEther("0.001") + 1n);
    // One nonce per transaction that paid: every confirmed batch (and any plain transfer) once.
    expect(await nonceOf(deposit)).toBe(new Set(confirmed.map((p) => p.txHash)).size);
    expect(await figures(b)).toMatchObject({ paidOutEth: "0.05", owedEth: "0", reconciled: true });
    await c.app.stop();
  }, 600_000);
});
