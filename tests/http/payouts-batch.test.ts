// Batch payouts on a real local chain (its own node, the BatchPayout contract the app deploys at
// start): warm recipients are paid in one transaction through the contract, a recipient that
// refuses (a reverting wallet, one that refuses a contract's call, a token's blacklist) fails alone
// and nobody else waits; a fresh ETH address is paid by a plain transfer (cheaper alone); a token
// program approves the contract once; each payout carries its batch and its share of the gas; a
// batch that reverts on chain after it was sent fails as a whole and the next simulation refuses
// the wallet that turned; a reorg and a stuck fee are handled as for single payouts; the ledger
// reconciles throughout.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWalletClient, encodeAbiParameters, encodeFunctionData, erc20Abi, formatEther, getAddress, http, parseEther, type Address, type Hex } from "viem";
import { TestToken, testTokenAbi } from "../../server/chain/contracts";
import { devAccount } from "../support/chain";
import { signUp, uniqueEmail } from "../support/http";
import { balanceOf, earn, figures, freshWallet, fund, mineBlocks, payoutBusiness, referrerWithWallet, rpcCall, startChainApp, type ChainApp, type PayoutBusiness } from "./payouts-helpers";

/** Runtime codes: REVERT at once; STOP unless the caller is the transaction's sender (refuses a contract's call). */
const REVERT = "0x60006000fd";
const EOA_ONLY = "0x3332146009575f5ffd5b00";

let c: ChainApp;
beforeAll(async () => {
  c = await startChainApp();
});
afterAll(() => c?.stop());

/** A wallet with one wei (an existing account: a batch pays it cheaper than a transfer of its own). */
async function warmWallet(code?: Hex): Promise<Address> {
  const a = freshWallet();
  await rpcCall(c, "hardhat_setBalance", [a, "0x1"]);
  if (code) await rpcCall(c, "hardhat_setCode", [a, code]);
  return a;
}

async function run(b: PayoutBusiness) {
  const r = await b.owner.call("POST", "/business/payouts/run", { environment: "TEST" });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { payouts: Array<Record<string, any>>; skipped: Array<Record<string, any>> };
}

const nonceOf = (a: Address) => c.client.getTransactionCount({ address: a });
const byParticipant = (payouts: Array<Record<string, any>>) => Object.fromEntries(payouts.map((p) => [p.participantId, p]));
const sumEth = (xs: string[]) => formatEther(xs.reduce((a, x) => a + parseEther(x), 0n));

async function send(from: number, tx: { to?: Address; data?: Hex; value?: bigint }) {
  const hash = await createWalletClient({ transport: http(c.rpc) }).sendTransaction({ account: devAccount(from), to: tx.to ?? null, data: tx.data, value: tx.value ?? 0n, gas: 3_000_000n, chain: null });
  return c.client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
}

describe("batch payouts", () => {
  it("ETH: warm recipients in one batch; a reverting wallet and one that refuses a contract's call, in the middle, fail alone; the batch lists them with its gas", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01" });
    const deposit = await fund(c, b.owner, "1");
    const first = await referrerWithWallet(b, await warmWallet());
    const reverter = await referrerWithWallet(b, await warmWallet(REVERT));
    const second = await referrerWithWallet(b, await warmWallet());
    const eoaOnly = await referrerWithWallet(b, await warmWallet(EOA_ONLY));
    const third = await referrerWithWallet(b, await warmWallet());
    for (const r of [first, reverter, second, eoaOnly, third]) await earn(b, r.referralCode);

    const { payouts } = await run(b);
    const by = byParticipant(payouts);
    const paid = [first, second, third].map((r) => by[r.participantId]);
    for (const p of paid) expect(p).toMatchObject({ status: "CONFIRMED", amountEth: "0.01", batchId: expect.any(String) });
    expect(new Set(paid.map((p) => p.batchId)).size).toBe(1);
    expect(new Set(paid.map((p) => p.txHash)).size).toBe(1);
    expect(by[reverter.participantId]).toMatchObject({ status: "FAILED", txHash: null, batchId: null, error: expect.stringMatching(/^WALLET_REFUSED: a transfer to .* fails/) });
    expect(by[eoaOnly.participantId]).toMatchObject({ status: "FAILED", txHash: null, batchId: null, error: expect.stringMatching(/^WALLET_REFUSED: a transfer to .* fails in a batch/) });
    for (const r of [first, second, third]) expect(await balanceOf(c, r.wallet)).toBe(parseEther("0.01") + 1n);
    for (const r of [reverter, eoaOnly]) expect(await balanceOf(c, r.wallet)).toBe(1n);
    expect(await nonceOf(deposit)).toBe(1); // one transaction paid all three

    const batches = await b.owner.call("GET", "/business/payouts/batches?environment=TEST");
    expect(batches.status, JSON.stringify(batches.body)).toBe(200);
    expect(batches.body).toMatchObject({ data: [{ batchId: paid[0].batchId, environment: "TEST", txHash: paid[0].txHash, status: "CONFIRMED", recipients: 3, amountEth: "0.03", asset: { symbol: "ETH", decimals: 18, tokenAddress: null } }], nextCursor: null });
    const batch = batches.body.data[0];
    expect(batch.confirmedAt).toEqual(expect.any(String));
    // Each payout's gas is its share of the batch's: together, exactly the batch's.
    expect(sumEth(paid.map((p) => p.gasEth))).toBe(batch.gasEth);
    const receipt = await c.client.getTransactionReceipt({ hash: batch.txHash });
    expect(parseEther(batch.gasEth)).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
    expect(await figures(b)).toMatchObject({ paidOutEth: "0.03", owedEth: "0.02", gasSpentEth: batch.gasEth, reconciled: true });
    // Later runs skip the refused wallets and pay nobody twice.
    expect(await run(b)).toEqual({ payouts: [], skipped: [] });
    expect(await nonceOf(deposit)).toBe(1);
  }, 300_000);

  it("the chooser: a fresh ETH address is paid alone (a transfer costs it less), the warm ones together", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.02" });
    const deposit = await fund(c, b.owner, "1");
    const fresh = await referrerWithWallet(b);
    const warm = [await referrerWithWallet(b, await warmWallet()), await referrerWithWallet(b, await warmWallet())];
    for (const r of [fresh, ...warm]) await earn(b, r.referralCode);
    const by = byParticipant((await run(b)).payouts);
    expect(by[fresh.participantId]).toMatchObject({ status: "CONFIRMED", batchId: null });
    const [a, z] = warm.map((r) => by[r.participantId]);
    expect(a).toMatchObject({ status: "CONFIRMED", batchId: expect.any(String) });
    expect(z.batchId).toBe(a.batchId);
    const tx = await c.client.getTransactionReceipt({ hash: by[fresh.participantId].txHash });
    expect(tx.gasUsed).toBe(21_000n);
    expect(await balanceOf(c, fresh.wallet)).toBe(parseEther("0.02"));
    expect(await nonceOf(deposit)).toBe(2);
    expect((await figures(b)).reconciled).toBe(true);
  }, 300_000);

  it("a token batch: approval once, a blacklisted recipient in the middle fails alone, the others paid in one transaction; the next batch needs no approval", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0" });
    const args = encodeAbiParameters([{ type: "string" }, { type: "string" }, { type: "uint8" }], ["Test BUSD", "BUSD", 6]);
    const token = (await send(8, { data: `${TestToken.bytecode}${args.slice(2)}` as Hex })).contractAddress!;
    expect((await b.owner.call("PATCH", "/business/config/asset", { environment: "TEST", asset: "ERC20", tokenAddress: token })).status).toBe(200);
    expect((await b.owner.call("PATCH", "/business/config/general", { environment: "TEST", referralRewardEth: "1.5" })).status).toBe(200);
    const deposit = (await figures(b)).depositAddress as Address;
    const minted = await send(8, { to: token, data: encodeFunctionData({ abi: testTokenAbi, functionName: "mint", args: [deposit, 100_000_000n] }) });
    expect((await b.owner.call("POST", "/business/funding/verify", { txHash: minted.transactionHash, environment: "TEST" })).status).toBe(200);
    await send(9, { to: deposit, value: parseEther("1") }); // gas
    const refs = [await referrerWithWallet(b), await referrerWithWallet(b), await referrerWithWallet(b), await referrerWithWallet(b)];
    await send(8, { to: token, data: encodeFunctionData({ abi: testTokenAbi, functionName: "setBlacklisted", args: [refs[1].wallet, true] }) });
    const earnToken = async (code: string) => {
      const t = await b.sdk("POST", "/track", { eventName: "purchase", referrer: code, metadata: { referredUserEmail: uniqueEmail("referred") } });
      expect(t.body.rewards?.[0], JSON.stringify(t.body)).toMatchObject({ status: "PAID" });
    };
    for (const r of refs) await earnToken(r.referralCode);

    const by = byParticipant((await run(b)).payouts);
    const paid = [refs[0], refs[2], refs[3]].map((r) => by[r.participantId]);
    for (const p of paid) expect(p).toMatchObject({ status: "CONFIRMED", amountEth: "1.5", batchId: paid[0].batchId, asset: { symbol: "BUSD", decimals: 6 } });
    expect(paid[0].batchId).toEqual(expect.any(String));
    expect(by[refs[1].participantId]).toMatchObject({ status: "FAILED", batchId: null, error: expect.stringMatching(/^WALLET_REFUSED/) });
    const held = (a: Address) => c.client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [a] });
    for (const r of [refs[0], refs[2], refs[3]]) expect(await held(r.wallet)).toBe(1_500_000n);
    expect(await held(refs[1].wallet)).toBe(0n);
    expect(await nonceOf(deposit)).toBe(2); // the approval, then the batch
    const batches = (await b.owner.call("GET", "/business/payouts/batches?environment=TEST")).body;
    expect(batches.data).toMatchObject([{ recipients: 3, amountEth: "4.5", status: "CONFIRMED", asset: { symbol: "BUSD", decimals: 6, tokenAddress: getAddress(token) } }]);
    expect(await figures(b)).toMatchObject({ balanceEth: "94", owedEth: "1.5", onChainBalanceEth: "95.5", reconciled: true });

    const more = [await referrerWithWallet(b), await referrerWithWallet(b)];
    for (const r of more) await earnToken(r.referralCode);
    const again = (await run(b)).payouts;
    expect(again).toMatchObject([{ status: "CONFIRMED" }, { status: "CONFIRMED" }]);
    expect(again[0].batchId).toBe(again[1].batchId);
    expect(await nonceOf(deposit)).toBe(3);
  }, 300_000);

  it("a batch that passes simulation and reverts on chain once sent: FAILED (TX_REVERTED), each payout FAILED with its share of the burnt gas, rewards payable again, a clawback back to the pool; the next run refuses the turncoat alone and pays the others once", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01" });
    const deposit = await fund(c, b.owner, "1");
    const first = await referrerWithWallet(b, await warmWallet());
    const turncoat = await referrerWithWallet(b, await warmWallet());
    const refunded = await referrerWithWallet(b, await warmWallet());
    const last = await referrerWithWallet(b, await warmWallet());
    for (const r of [first, turncoat, last]) await earn(b, r.referralCode);
    const bought = await b.sdk("POST", "/track", { eventName: "purchase", referrer: refunded.referralCode, amount: "1", currency: "ETH", metadata: { referredUserEmail: uniqueEmail("buyer") } });
    expect(bought.body.rewards?.[0]?.status, JSON.stringify(bought.body)).toBe("PAID");
    const members = [first, turncoat, refunded, last];

    // The batch is simulated (every wallet accepts), sent, not mined; half of one member's
    // purchase is refunded meanwhile (clawed back: the reward is in a payout); then the turncoat's
    // wallet becomes REVERT and a block is mined: the whole batch reverts.
    await rpcCall(c, "evm_setAutomine", [false]);
    let sent: Array<Record<string, any>>;
    try {
      sent = (await run(b)).payouts;
      expect(sent).toHaveLength(4);
      for (const p of sent) expect(p).toMatchObject({ status: "SENT", batchId: sent[0].batchId, txHash: sent[0].txHash, nonce: 0 });
      const half = await b.sdk("POST", "/sdk/rewards/reverse", { eventId: bought.body.eventId, amount: "0.5", reason: "half refunded" });
      expect(half.body, JSON.stringify(half.body)).toMatchObject({ clawbackEth: "0.005", reversals: [{ outcome: "CLAWBACK" }] });
      await rpcCall(c, "hardhat_setCode", [turncoat.wallet, REVERT]);
    } finally {
      await rpcCall(c, "evm_setAutomine", [true]);
    }
    await rpcCall(c, "evm_mine");
    const burnt = await c.client.getTransactionReceipt({ hash: sent[0].txHash });
    expect(burnt.status).toBe("reverted");
    const burntEth = formatEther(burnt.gasUsed * burnt.effectiveGasPrice);
    for (const r of members) expect(await balanceOf(c, r.wallet)).toBe(1n);

    const second = byParticipant((await run(b)).payouts);
    // The failed batch: FAILED as a whole, its gas (what the reverted transaction burnt) shared out.
    const batches = (await b.owner.call("GET", "/business/payouts/batches?environment=TEST")).body.data as Array<Record<string, any>>;
    const failed = batches.find((x) => x.batchId === sent[0].batchId)!;
    expect(failed).toMatchObject({ status: "FAILED", recipients: 4, amountEth: "0.04", txHash: sent[0].txHash, gasEth: burntEth, confirmedAt: null, error: expect.stringMatching(/^TX_REVERTED: /) });
    const old = (await b.owner.call("GET", "/business/payouts?environment=TEST&limit=100")).body.data.filter((p: { batchId: string }) => p.batchId === failed.batchId);
    expect(old).toHaveLength(4);
    for (const p of old) expect(p).toMatchObject({ status: "FAILED", error: expect.stringMatching(/^TX_REVERTED: /) });
    expect(sumEth(old.map((p: { gasEth: string }) => p.gasEth))).toBe(burntEth);
    for (const p of old) expect(parseEther(p.gasEth)).toBeGreaterThan(0n);

    // The same run simulated again: the turncoat fails alone (before signing), the others are paid
    // in a new batch, the refunded member what is left of their reward.
    expect(second[turncoat.participantId]).toMatchObject({ status: "FAILED", txHash: null, batchId: null, error: expect.stringMatching(/^WALLET_REFUSED: a transfer to .* fails/) });
    const repaid = [first, refunded, last].map((r) => second[r.participantId]);
    for (const p of repaid) expect(p).toMatchObject({ status: "CONFIRMED", batchId: repaid[0].batchId, nonce: 1 });
    expect(repaid[0].batchId).not.toBe(failed.batchId);
    expect(repaid.map((p) => p.amountEth)).toEqual(["0.01", "0.005", "0.01"]);
    expect(Object.keys(second)).toHaveLength(4);
    for (const r of [first, last]) expect(await balanceOf(c, r.wallet)).toBe(parseEther("0.01") + 1n);
    expect(await balanceOf(c, refunded.wallet)).toBe(parseEther("0.005") + 1n);
    expect(await balanceOf(c, turncoat.wallet)).toBe(1n);

    // Each reward paid once, by the new batch; the turncoat's payable again; the clawback back to the pool.
    for (const r of [first, refunded, last]) {
      const rewards = (await b.owner.call("GET", `/business/rewards?environment=TEST&participantId=${r.participantId}`)).body.data;
      expect(rewards).toMatchObject([{ payoutStatus: "PAID_OUT", payoutId: second[r.participantId].payoutId }]);
    }
    const turncoatRewards = (await b.owner.call("GET", `/business/rewards?environment=TEST&participantId=${turncoat.participantId}`)).body.data;
    expect(turncoatRewards).toMatchObject([{ payoutStatus: "PAYABLE", payoutId: null }]);
    const reversals = (await b.owner.call("GET", `/business/reversals?environment=TEST&participantId=${refunded.participantId}`)).body.data;
    expect(reversals).toMatchObject([{ outcome: "RETURNED_TO_POOL", amountEth: "0.005" }]);

    // The ledger: the burnt gas debited once, the new batch's gas, nothing else; on chain it adds up.
    const repaidBatch = batches.find((x) => x.batchId === repaid[0].batchId)!;
    expect(repaidBatch).toMatchObject({ status: "CONFIRMED", recipients: 3, amountEth: "0.025" });
    expect(await figures(b)).toMatchObject({ owedEth: "0.01", paidOutEth: "0.025", gasSpentEth: sumEth([burntEth, repaidBatch.gasEth]), reconciled: true });

    // Later runs skip the turncoat until their wallet changes and pay nobody twice.
    expect(await run(b)).toEqual({ payouts: [], skipped: [] });
    expect(await nonceOf(deposit)).toBe(2);
    expect((await figures(b)).reconciled).toBe(true);
  }, 300_000);

  it("batches: members read; a bad environment or another list's cursor is 400; another business sees none", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01" });
    await fund(c, b.owner, "1");
    for (const w of [await warmWallet(), await warmWallet()]) await earn(b, (await referrerWithWallet(b, w)).referralCode);
    const [p] = (await run(b)).payouts;
    const email = uniqueEmail("member");
    const invite = await b.owner.call("POST", "/business/members", { email, role: "MEMBER" });
    const member = await signUp({ url: c.app.url, email, inviteUrl: invite.body.inviteUrl });
    const seen = await member.call("GET", "/business/payouts/batches?environment=TEST&limit=1");
    expect(seen.status, JSON.stringify(seen.body)).toBe(200);
    expect(seen.body).toMatchObject({ data: [{ batchId: p.batchId, recipients: 2, txUrl: null }], nextCursor: null });
    expect((await member.call("POST", "/business/payouts/run", { environment: "TEST" })).status).toBe(403);
    expect((await b.owner.call("GET", "/business/payouts/batches?environment=NOPE")).status).toBe(400);
    const stranger = await signUp({ url: c.app.url });
    expect((await stranger.call("GET", "/business/payouts/batches?environment=TEST")).body).toEqual({ data: [], nextCursor: null });
    expect((await stranger.call("GET", `/business/payouts/batches?environment=TEST&cursor=${p.batchId}`)).status).toBe(400);
  }, 300_000);
});

describe("batch payouts across a reorg and a stuck fee", () => {
  beforeAll(async () => {
    await c?.stop();
    c = await startChainApp({ FUNDING_CONFIRMATIONS_TEST: "3", PAYOUT_STUCK_AFTER_MS: "0" });
  });

  it("a batch dropped by a reorg is rebroadcast (same transaction) and CONFIRMED after its confirmations; a stuck one is replaced at the same nonce; paid once", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.03" });
    await fund(c, b.owner, "1", 3);
    const refs = [await referrerWithWallet(b, await warmWallet()), await referrerWithWallet(b, await warmWallet())];
    for (const r of refs) await earn(b, r.referralCode);
    const snapshot = await rpcCall(c, "evm_snapshot");
    const [p] = (await run(b)).payouts;
    expect(p).toMatchObject({ status: "SENT", batchId: expect.any(String) });
    expect(await rpcCall(c, "evm_revert", [snapshot])).toBe(true);
    for (const r of refs) expect(await balanceOf(c, r.wallet)).toBe(1n);
    // Automine off: the rebroadcast waits in the pool while the base fee jumps over its max fee.
    await rpcCall(c, "evm_setAutomine", [false]);
    try {
      await run(b);
      let [batch] = (await b.owner.call("GET", "/business/payouts/batches?environment=TEST")).body.data;
      expect(batch).toMatchObject({ batchId: p.batchId, status: "SENT", txHash: p.txHash, blockNumber: null });
      expect(batch.error).toMatch(/reorganisation/);
      await rpcCall(c, "hardhat_setNextBlockBaseFeePerGas", ["0x174876e800"]);
      await rpcCall(c, "evm_mine");
      await run(b); // stuck under the base fee: replaced at the same nonce
      [batch] = (await b.owner.call("GET", "/business/payouts/batches?environment=TEST")).body.data;
      expect(batch).toMatchObject({ status: "SENT", nonce: p.nonce });
      expect(batch.txHash).not.toBe(p.txHash);
      await rpcCall(c, "evm_setAutomine", [true]);
      await rpcCall(c, "evm_mine");
      await mineBlocks(c, 3);
      await run(b);
      [batch] = (await b.owner.call("GET", "/business/payouts/batches?environment=TEST")).body.data;
      expect(batch).toMatchObject({ status: "CONFIRMED", recipients: 2 });
      const list = (await b.owner.call("GET", "/business/payouts?environment=TEST")).body.data;
      expect(list).toHaveLength(2);
      for (const x of list) expect(x).toMatchObject({ status: "CONFIRMED", batchId: p.batchId, txHash: batch.txHash });
      for (const r of refs) expect(await balanceOf(c, r.wallet)).toBe(parseEther("0.03") + 1n);
      expect(await figures(b)).toMatchObject({ owedEth: "0", paidOutEth: "0.06", reconciled: true });
    } finally {
      await rpcCall(c, "evm_setAutomine", [true]);
    }
  }, 300_000);
});
