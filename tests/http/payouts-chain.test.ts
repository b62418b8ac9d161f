// Payouts on a real local chain (its own Hardhat / EDR node per suite): the ETH reaches the
// wallet exactly once, concurrent runs pay once, gas is in the ledger and the deposit address
// reconciles with it, too little ETH fails cleanly, a reorg is detected, reversals before and
// after payout, LIVE stays off without a private seed and an RPC URL, and a node that answers with
// errors it does not explain neither pays twice nor blames a wallet.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEther } from "viem";
import { Webhook } from "standardwebhooks";
import { startReceiver } from "../support/webhook-receiver";
import { request, signUp, uniqueEmail } from "../support/http";
import {
  balanceOf,
  earn,
  figures,
  freshWallet,
  fund,
  mineBlocks,
  payoutBusiness,
  referrerWithWallet,
  restartChain,
  rpcCall,
  runPayouts,
  startChainApp,
  type ChainApp,
  type PayoutBusiness,
} from "./payouts-helpers";

/** A funded business (its deposit credited after `confirmations`) with one referrer who earned `rewardEth` and has a wallet. */
async function earning(c: ChainApp, rewardEth = "0.01", confirmations = 1) {
  const b = await payoutBusiness(c, { rewardEth });
  await fund(c, b.owner, "1", confirmations);
  const ref = await referrerWithWallet(b);
  await earn(b, ref.referralCode);
  return { b, ref };
}

const runRaw = (b: PayoutBusiness) => b.owner.call("POST", "/business/payouts/run", { environment: "TEST" });

describe("payouts", () => {
  let c: ChainApp;
  beforeAll(async () => {
    c = await startChainApp();
  });
  afterAll(() => c?.stop());

  it("a payout reaches the wallet (exactly the amount), is CONFIRMED with gas from the pool; a second run pays nothing", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01" });
    const deposit = await fund(c, b.owner, "1");
    const ref = await referrerWithWallet(b);
    await earn(b, ref.referralCode);
    await earn(b, ref.referralCode);

    const before = await figures(b);
    expect(before).toMatchObject({ availableEth: "0.98", owedEth: "0.02", paidOutEth: "0", gasSpentEth: "0", onChainBalanceEth: "1", reconciled: true });

    const payouts = await runPayouts(b);
    expect(payouts).toHaveLength(1);
    const p = payouts[0];
    expect(p).toMatchObject({ status: "CONFIRMED", amountEth: "0.02", walletAddress: ref.wallet, participantId: ref.participantId, environment: "TEST", error: null });
    expect(p.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(p.rewardIds).toHaveLength(2);
    expect(Number(p.gasEth)).toBeGreaterThan(0);
    expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.02"));
    const tx = await c.client.getTransaction({ hash: p.txHash });
    expect(tx.from.toLowerCase()).toBe(deposit.toLowerCase());
    expect(tx.to!.toLowerCase()).toBe(ref.wallet.toLowerCase());

    // Rewards PAID_OUT, the payout listed, gas in the ledger, the deposit address reconciles.
    const rewards = await b.owner.call("GET", "/business/rewards?environment=TEST");
    expect(rewards.body.data.map((r: { payoutStatus: string; payoutId: string }) => [r.payoutStatus, r.payoutId])).toEqual([
      ["PAID_OUT", p.payoutId],
      ["PAID_OUT", p.payoutId],
    ]);
    const after = await figures(b);
    expect(after).toMatchObject({ owedEth: "0", paidOutEth: "0.02", gasSpentEth: p.gasEth, reconciled: true });
    expect(parseEther(after.availableEth)).toBe(parseEther("0.98") - parseEther(p.gasEth));
    expect(parseEther(after.onChainBalanceEth)).toBe(parseEther("0.98") - parseEther(p.gasEth));
    const gas = await b.owner.call("GET", "/business/ledger?environment=TEST&kind=GAS");
    expect(gas.status).toBe(200);
    expect(gas.body.data.length).toBeGreaterThan(0);
    const listed = await b.owner.call("GET", `/business/payouts?environment=TEST&participantId=${ref.participantId}`);
    expect(listed.body).toMatchObject({ data: [{ payoutId: p.payoutId, status: "CONFIRMED", txHash: p.txHash }], nextCursor: null });

    expect(await runPayouts(b)).toEqual([]);
    expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.02"));

    // The participant's wallet and totals, in the list (searchable by wallet) and the detail.
    const found = await b.owner.call("GET", `/business/participants?environment=TEST&search=${ref.wallet.slice(2, 12).toLowerCase()}`);
    expect(found.status).toBe(200);
    expect(found.body.data).toHaveLength(1);
    const totals = { participantId: ref.participantId, walletAddress: ref.wallet, earnedEth: "0.02", owedEth: "0", paidOutEth: "0.02", clawbackOwedEth: "0", balanceEth: "0" };
    expect(found.body.data[0]).toMatchObject(totals);
    const one = await b.owner.call("GET", `/business/participants/${ref.participantId}`);
    expect(one.body).toMatchObject({ ...totals, rewards: [{ status: "PAID" }, { status: "PAID" }] });
  });

  it("20 concurrent runs pay each participant once", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.003" });
    await fund(c, b.owner, "1");
    const refs = [await referrerWithWallet(b), await referrerWithWallet(b), await referrerWithWallet(b)];
    for (const r of refs) await earn(b, r.referralCode);
    await earn(b, refs[0].referralCode);

    const answers = await Promise.all(Array.from({ length: 20 }, () => b.owner.call("POST", "/business/payouts/run", { environment: "TEST" })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const created = answers.flatMap((a) => a.body.payouts as Array<{ payoutId: string; status: string }>);
    expect(created.filter((p) => p.status !== "FAILED")).toHaveLength(3);
    // A payout whose confirmation was left to a later call is confirmed by the next run.
    await runPayouts(b);
    const all = await b.owner.call("GET", "/business/payouts?environment=TEST");
    expect(all.body.data).toHaveLength(3);
    expect(all.body.data.every((p: { status: string }) => p.status === "CONFIRMED")).toBe(true);
    expect(await balanceOf(c, refs[0].wallet)).toBe(parseEther("0.006"));
    expect(await balanceOf(c, refs[1].wallet)).toBe(parseEther("0.003"));
    expect(await balanceOf(c, refs[2].wallet)).toBe(parseEther("0.003"));
    expect((await figures(b)).reconciled).toBe(true);
  }, 300_000);

  it("too little ETH on chain for amount + gas: FAILED with its reason, rewards stay payable; paid once funded; payout.* webhooks", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01" });
    const rx = await startReceiver();
    const hook = await b.owner.call("POST", "/business/webhooks", { url: `${rx.url}/payouts`, environment: "TEST", events: ["payout.sent", "payout.confirmed", "payout.failed"] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(200);
    await fund(c, b.owner, "0.01");
    const ref = await referrerWithWallet(b);
    await earn(b, ref.referralCode);

    const [failed] = await runPayouts(b);
    expect(failed).toMatchObject({ status: "FAILED", txHash: null, amountEth: "0.01" });
    expect(failed.error).toMatch(/INSUFFICIENT_FUNDS/);
    expect(await balanceOf(c, ref.wallet)).toBe(0n);
    const rewards = await b.owner.call("GET", "/business/rewards?environment=TEST");
    expect(rewards.body.data[0]).toMatchObject({ payoutStatus: "PAYABLE", payoutId: null });
    expect(await figures(b)).toMatchObject({ availableEth: "0", owedEth: "0.01", gasSpentEth: "0", reconciled: true });

    await fund(c, b.owner, "0.1");
    const [paid] = await runPayouts(b);
    expect(paid).toMatchObject({ status: "CONFIRMED", amountEth: "0.01" });
    expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.01"));
    const list = await b.owner.call("GET", "/business/payouts?environment=TEST&status=FAILED");
    expect(list.body.data).toHaveLength(1);

    // Each transition sent its event once, signed, with the payout as the API lists it.
    const wh = new Webhook(hook.body.secret);
    const events = (await rx.waitFor(3)).map((m) => wh.verify(m.body, m.headers) as { type: string; data: { payoutId: string; status: string; txHash: string | null } });
    await new Promise((r) => setTimeout(r, 500));
    expect(rx.received).toHaveLength(3);
    const byType = Object.fromEntries(events.map((e) => [e.type, e.data]));
    expect(byType["payout.failed"]).toMatchObject({ payoutId: failed.payoutId, status: "FAILED", txHash: null });
    expect(byType["payout.sent"]).toMatchObject({ payoutId: paid.payoutId, status: "SENT" });
    expect(byType["payout.confirmed"]).toMatchObject({ payoutId: paid.payoutId, status: "CONFIRMED", txHash: paid.txHash });
    await rx.close();
  });

  it("below minPayoutEth nothing is paid; without a wallet nothing is paid", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01", spend: { minPayoutEth: "0.025" } });
    await fund(c, b.owner, "1");
    const ref = await referrerWithWallet(b);
    const noWallet = await referrerWithWallet(b, null);
    await earn(b, ref.referralCode);
    await earn(b, ref.referralCode);
    await earn(b, noWallet.referralCode);
    expect(await runPayouts(b)).toEqual([]);
    await earn(b, ref.referralCode);
    const [p] = await runPayouts(b);
    expect(p).toMatchObject({ status: "CONFIRMED", amountEth: "0.03" });

    // The business sets the wallet: paid on the next run.
    const wallet = freshWallet();
    const bad = await b.owner.call("PATCH", `/business/participants/${noWallet.participantId}`, { walletAddress: "0x123" });
    expect(bad.status).toBe(400);
    const set = await b.owner.call("PATCH", `/business/participants/${noWallet.participantId}`, { walletAddress: wallet.toLowerCase() });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ walletAddress: wallet, earnedEth: "0.01", owedEth: "0.01", paidOutEth: "0" });
    await b.owner.call("PATCH", "/business/config/spend", { minPayoutEth: "0" });
    const [q] = await runPayouts(b);
    expect(q).toMatchObject({ status: "CONFIRMED", amountEth: "0.01", walletAddress: wallet });
  });

  it("reversal before payout returns the ETH to the pool; after payout it offsets the next payout", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01" });
    await fund(c, b.owner, "1");
    const ref = await referrerWithWallet(b);
    const refunded = await earn(b, ref.referralCode);
    const before = await b.sdk("POST", "/sdk/rewards/reverse", { referredUserEmail: refunded, reason: "order refunded", eventName: "refund" });
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(before.body).toMatchObject({ returnedToPoolEth: "0.01", clawbackEth: "0", balanceEth: "1", reversals: [{ outcome: "RETURNED_TO_POOL", reason: "order refunded" }] });
    expect(await runPayouts(b)).toEqual([]);

    const charged = await earn(b, ref.referralCode);
    const [first] = await runPayouts(b);
    expect(first).toMatchObject({ status: "CONFIRMED", amountEth: "0.01" });
    const after = await b.sdk("POST", "/sdk/rewards/reverse", { referredUserEmail: charged, reason: "chargeback", idempotencyKey: "cb-1" });
    expect(after.body).toMatchObject({ clawbackEth: "0.01", returnedToPoolEth: "0", reversals: [{ outcome: "CLAWBACK" }] });
    const replay = await b.sdk("POST", "/sdk/rewards/reverse", { referredUserEmail: charged, reason: "chargeback", idempotencyKey: "cb-1" });
    expect(replay.body).toEqual(after.body);

    await earn(b, ref.referralCode);
    await earn(b, ref.referralCode);
    await earn(b, ref.referralCode);
    const [next] = await runPayouts(b);
    expect(next).toMatchObject({ status: "CONFIRMED", amountEth: "0.02", rewardsEth: "0.03", offsetEth: "0.01" });
    expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.03"));
    expect(await figures(b)).toMatchObject({ owedEth: "0", paidOutEth: "0.03", reconciled: true });
  });

  it("a partial refund of an event: the share before payout returns to the pool, the payout sends the rest, the rest after payout is clawed back; reconciled throughout", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01" });
    await fund(c, b.owner, "1");
    const ref = await referrerWithWallet(b);
    const t = await b.sdk("POST", "/track", { eventName: "purchase", referrer: ref.referralCode, amount: "100", currency: "ETH", metadata: { referredUserEmail: uniqueEmail("buyer") } });
    expect(t.body.rewards?.[0]?.status, JSON.stringify(t.body)).toBe("PAID");
    const eventId = t.body.eventId as string;
    const both = await b.sdk("POST", "/sdk/rewards/reverse", { eventId, referredUserId: "someone", reason: "x" });
    expect([both.status, both.body.error?.code]).toEqual([400, "VALIDATION_ERROR"]);
    const quarter = await b.sdk("POST", "/sdk/rewards/reverse", { eventId, amount: "25", reason: "partial refund", eventName: "refund" });
    expect(quarter.status, JSON.stringify(quarter.body)).toBe(200);
    expect(quarter.body).toMatchObject({ eventId, refundedAmount: "25", returnedToPoolEth: "0.0025", clawbackEth: "0", reversals: [{ amountEth: "0.0025", outcome: "RETURNED_TO_POOL" }] });
    const tooMuch = await b.sdk("POST", "/sdk/rewards/reverse", { eventId, amount: "80", reason: "x" });
    expect([tooMuch.status, tooMuch.body.error?.code]).toEqual([422, "UNPROCESSABLE"]);

    const [paid] = await runPayouts(b);
    expect(paid).toMatchObject({ status: "CONFIRMED", amountEth: "0.0075" });
    expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.0075"));
    expect(await figures(b)).toMatchObject({ owedEth: "0", reconciled: true });

    const rest = await b.sdk("POST", "/sdk/rewards/reverse", { eventId, reason: "refunded in full" });
    expect(rest.body).toMatchObject({ refundedAmount: "100", clawbackEth: "0.0075", returnedToPoolEth: "0", reversals: [{ outcome: "CLAWBACK" }] });
    const rewards = await b.owner.call("GET", `/business/rewards?environment=TEST&eventId=${eventId}`);
    expect(rewards.body.data).toMatchObject([{ state: "REVERSED", reversedEth: "0.01", amountEth: "0.01" }]);
    expect(await figures(b)).toMatchObject({ owedEth: "0", reconciled: true });
  });

  it("access: a member cannot run payouts; another business's participant is 404; a bad environment is 400", async () => {
    const b = await payoutBusiness(c);
    const other = await payoutBusiness(c);
    const ref = await referrerWithWallet(b);
    const r = await other.owner.call("PATCH", `/business/participants/${ref.participantId}`, { walletAddress: null });
    expect(r.status).toBe(404);
    expect((await b.owner.call("POST", "/business/payouts/run", { environment: "MAIN" })).status).toBe(400);
    expect((await b.sdk("POST", "/sdk/participants", { userId: "w", walletAddress: "0xZZ" })).status).toBe(400);
    const stranger = await signUp({ url: c.app.url });
    expect((await stranger.call("GET", `/business/payouts?environment=TEST&participantId=${ref.participantId}`)).body.data).toEqual([]);
  });

  it("LIVE without CHAIN_RPC_URL and a private DEPOSIT_MNEMONIC: 503 CHAIN_UNAVAILABLE with the reason", async () => {
    const b = await payoutBusiness(c);
    const r = await b.owner.call("POST", "/business/payouts/run", { environment: "LIVE" });
    expect(r.status).toBe(503);
    expect(r.body.error).toMatchObject({ code: "CHAIN_UNAVAILABLE", message: expect.stringMatching(/CHAIN_RPC_URL|DEPOSIT_MNEMONIC/) });
    const bal = await b.owner.call("GET", "/business/balance?environment=LIVE");
    expect(bal.body).toMatchObject({ onChainBalanceEth: null, reconciled: null, owedEth: "0" });
  });

  // A node that misbehaves (the app's node is the chain behind a proxy: c.faults). An answer the
  // payout code does not recognise after the node took the transaction must not fail the payout
  // (its rewards would be paid again by the next run); a node's internal error while simulating
  // a transfer is the node's trouble, not the wallet's.
  it("the node takes the transaction but answers with an error it does not explain: the payout is sent, not failed, and the wallet is paid once", async () => {
    const { b, ref } = await earning(c);

    c.faults.set("eth_sendRawTransaction", { code: -32603, message: "internal error", passOn: true });
    const first = await runRaw(b);
    c.faults.clear();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.payouts).toMatchObject([{ participantId: ref.participantId, amountEth: "0.01" }]);
    expect(first.body.payouts[0].status).not.toBe("FAILED");

    // The next runs confirm it and pay nothing more.
    for (let i = 0; i < 2; i++) expect((await runRaw(b)).status).toBe(200);
    expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.01"));
    const list = await b.owner.call("GET", "/business/payouts?environment=TEST");
    expect(list.body.data.map((p: { status: string }) => p.status)).toEqual(["CONFIRMED"]);
    expect((await figures(b)).reconciled).toBe(true);
  }, 120_000);

  it("the node refuses the transaction with an error it does not explain and keeps nothing: FAILED, the rewards stay payable, the next run pays once", async () => {
    const { b, ref } = await earning(c);

    c.faults.set("eth_sendRawTransaction", { code: -32603, message: "internal error", passOn: false });
    const first = await runRaw(b);
    c.faults.clear();
    expect(first.body.payouts).toMatchObject([{ status: "FAILED", error: expect.stringMatching(/^BROADCAST_REJECTED: /) }]);
    expect(await balanceOf(c, ref.wallet)).toBe(0n);

    const second = await runRaw(b);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.payouts).toMatchObject([{ status: "CONFIRMED", amountEth: "0.01" }]);
    expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.01"));
    expect((await figures(b)).reconciled).toBe(true);
  }, 120_000);

  it("the node fails to simulate a transfer for its own reasons: 503, nothing written, the wallet is not blamed; paid once the node recovers", async () => {
    const { b, ref } = await earning(c);

    for (const [code, message] of [
      [-32603, "internal error"],
      [-32005, "limit exceeded"],
    ] as const) {
      c.faults.set("eth_call", { code, message, passOn: false });
      const r = await runRaw(b);
      c.faults.clear();
      expect(r.status, JSON.stringify(r.body)).toBe(503);
      expect(r.body.error.code).toBe("CHAIN_UNAVAILABLE");
    }
    const list = await b.owner.call("GET", "/business/payouts?environment=TEST");
    expect(list.body.data).toEqual([]);
    const queue = await b.owner.call("GET", "/business/payouts/queue?environment=TEST");
    expect(queue.body.items.map((i: { state: string }) => i.state)).toEqual(["READY"]);

    const paid = await runRaw(b);
    expect(paid.body.payouts).toMatchObject([{ participantId: ref.participantId, status: "CONFIRMED" }]);
    expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.01"));
  }, 120_000);

  it("the in-memory TEST chain restarts empty under the same database: the nonces recorded on the old one do not strand new payouts", async () => {
    // Last in this suite: the chain it restarts is this suite's.
    const { b, ref } = await earning(c);
    expect(await runPayouts(b)).toMatchObject([{ status: "CONFIRMED", nonce: 0 }]);

    await restartChain(c);
    await fund(c, b.owner, "1");
    const next = await referrerWithWallet(b);
    await earn(b, next.referralCode);
    const [paid] = await runPayouts(b);
    expect(paid, JSON.stringify(paid)).toMatchObject({ participantId: next.participantId, status: "CONFIRMED", nonce: 0 });
    expect(await balanceOf(c, next.wallet)).toBe(parseEther("0.01"));
    expect(await balanceOf(c, ref.wallet)).toBe(0n); // the old chain's payment is gone with it
  }, 120_000);
});

describe("reorg", () => {
  let c: ChainApp;
  beforeAll(async () => {
    // Its own chain (snapshot/revert) and 3 confirmations, so a mined payout waits as SENT.
    c = await startChainApp({ FUNDING_CONFIRMATIONS_TEST: "3", PAYOUT_STUCK_AFTER_MS: "0" });
  });
  afterAll(() => c?.stop());

  it("a payout dropped by a reorg goes back and is rebroadcast (same transaction); CONFIRMED only after the confirmations; paid once", async () => {
    const { b, ref } = await earning(c, "0.05", 3);
    const snapshot = await rpcCall(c, "evm_snapshot");

    const [p] = await runPayouts(b);
    expect(p).toMatchObject({ status: "SENT", amountEth: "0.05" });
    expect(p.blockNumber).not.toBeNull();
    expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.05"));

    // The block holding the payout disappears.
    expect(await rpcCall(c, "evm_revert", [snapshot])).toBe(true);
    expect(await balanceOf(c, ref.wallet)).toBe(0n);
    await runPayouts(b); // detects the reorg and rebroadcasts the recorded transaction
    let [again] = (await b.owner.call("GET", "/business/payouts?environment=TEST")).body.data;
    expect(again).toMatchObject({ payoutId: p.payoutId, status: "SENT", txHash: p.txHash, nonce: p.nonce });
    expect(again.error).toMatch(/reorganisation/);
    expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.05"));

    await mineBlocks(c, 3);
    await runPayouts(b);
    [again] = (await b.owner.call("GET", "/business/payouts?environment=TEST")).body.data;
    expect(again).toMatchObject({ status: "CONFIRMED", txHash: p.txHash });
    expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.05"));
    expect(await figures(b)).toMatchObject({ owedEth: "0", paidOutEth: "0.05", reconciled: true });
  });

  it("a proof of liabilities follows a run that created or settled a payout, not every run while one waits for its confirmations", async () => {
    const { b } = await earning(c, "0.03", 3);
    const businessId = (await b.owner.call("GET", "/business/me")).body.business.businessId as string;
    const latest = async () => (await request(c.app.url, "GET", `/proofs/${businessId}/TEST/latest`)).body as { proofId?: string; reason?: string };
    const nextProof = async (after: string | undefined) => {
      for (let i = 0; i < 100; i++) {
        const p = await latest();
        if (p.proofId && p.proofId !== after) return p;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error("no new proof");
    };
    expect(await runPayouts(b)).toMatchObject([{ status: "SENT" }]);
    const first = await nextProof(undefined);
    expect(first.reason).toBe("PAYOUT");
    // Still waiting (2 of 3 confirmations): the run moved nothing.
    await mineBlocks(c, 1);
    expect(await runPayouts(b)).toEqual([]);
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await latest()).proofId).toBe(first.proofId);
    // Confirmed by this run: a new proof.
    await mineBlocks(c, 1);
    await runPayouts(b);
    expect((await nextProof(first.proofId)).reason).toBe("PAYOUT");
  });

  it("a transfer the wallet reverts fails only once it has its confirmations (a reorg may mine it again, and a wallet may then accept it)", async () => {
    const { b, ref } = await earning(c, "0.02", 3);
    await rpcCall(c, "evm_setAutomine", [false]);
    try {
      expect(await runPayouts(b)).toMatchObject([{ status: "SENT" }]);
      await rpcCall(c, "hardhat_setCode", [ref.wallet, "0x60006000fd"]); // REVERT from now on
    } finally {
      await rpcCall(c, "evm_setAutomine", [true]);
    }
    await rpcCall(c, "evm_mine");
    await runPayouts(b);
    const list = async () => (await b.owner.call("GET", "/business/payouts?environment=TEST")).body.data[0];
    expect(await list()).toMatchObject({ status: "SENT" });
    expect((await list()).blockNumber).not.toBeNull();
    await mineBlocks(c, 2);
    await runPayouts(b);
    expect(await list()).toMatchObject({ status: "FAILED", error: expect.stringMatching(/^TX_REVERTED: /) });
  });

  it("a transaction stuck under the base fee is replaced at the same nonce; only one version is mined", async () => {
    const { b, ref } = await earning(c, "0.04", 3);
    await rpcCall(c, "evm_setAutomine", [false]);
    try {
      const [p] = await runPayouts(b);
      expect(p).toMatchObject({ status: "SENT", blockNumber: null });
      // The network's base fee jumps far above the payout's max fee: it cannot be mined.
      await rpcCall(c, "hardhat_setNextBlockBaseFeePerGas", ["0x174876e800"]); // 100 gwei
      await rpcCall(c, "evm_mine");
      expect(await balanceOf(c, ref.wallet)).toBe(0n);
      await runPayouts(b); // sees it stuck: signs a replacement (same nonce, higher fees) and sends it
      let [now] = (await b.owner.call("GET", "/business/payouts?environment=TEST")).body.data;
      expect(now).toMatchObject({ payoutId: p.payoutId, status: "SENT", nonce: p.nonce });
      expect(now.txHash).not.toBe(p.txHash);
      expect(now.error).toMatch(/Replaced/);
      await rpcCall(c, "evm_setAutomine", [true]);
      await rpcCall(c, "evm_mine");
      await mineBlocks(c, 3);
      await runPayouts(b);
      [now] = (await b.owner.call("GET", "/business/payouts?environment=TEST")).body.data;
      expect(now).toMatchObject({ status: "CONFIRMED" });
      expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.04"));
      await expect(c.client.getTransactionReceipt({ hash: p.txHash })).rejects.toThrow();
      expect(await figures(b)).toMatchObject({ owedEth: "0", paidOutEth: "0.04", reconciled: true });
    } finally {
      await rpcCall(c, "evm_setAutomine", [true]);
    }
  }, 300_000);
});
