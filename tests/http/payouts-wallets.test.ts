// Payout wallets that can neither block a run nor bleed the pool, on a real local chain (its own
// node): a contract whose code is REVERT, a contract that loops until it runs out of gas, one
// that needs more gas than PAYOUT_MAX_GAS, and a wallet that starts reverting after its transfer
// was sent each fail their own payout with a reason and are skipped by later runs until their
// wallet changes, while everyone else is paid in the same run. Tiny payouts whose gas would be a
// large share of the amount are held back. Reserved addresses and the business's own deposit
// address are refused as wallets (400) wherever a wallet is set.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWalletClient, http, parseEther, type Address, type Hex } from "viem";
import { devAccount } from "../support/chain";
import { balanceOf, earn, figures, freshWallet, fund, payoutBusiness, referrerWithWallet, rpcCall, startChainApp, type ChainApp, type PayoutBusiness } from "./payouts-helpers";

/** Runtime codes: REVERT at once; an endless loop (runs out of any gas); a loop of ~27,000 gas, then STOP. */
const REVERT = "60006000fd";
const ENDLESS = "5b600056";
const BURNS_27K = "6104005b600190038060035700";

let c: ChainApp;
beforeAll(async () => {
  c = await startChainApp();
});
afterAll(() => c?.stop());

/** Deploys a contract with the given runtime code (init code: copy it to memory, return it). */
async function deploy(runtime: string): Promise<Address> {
  const n = runtime.length / 2;
  const init = `0x${(0x5f + n).toString(16)}${runtime}600052${n.toString(16).padStart(2, "0").replace(/^/, "60")}${(32 - n).toString(16).padStart(2, "0").replace(/^/, "60")}f3` as Hex;
  const hash = await createWalletClient({ transport: http(c.rpc) }).sendTransaction({ account: devAccount(6), data: init, gas: 300_000n, chain: null });
  const receipt = await c.client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  if (!receipt.contractAddress) throw new Error("deployment failed");
  expect(await c.client.getCode({ address: receipt.contractAddress })).toBe(`0x${runtime}`);
  return receipt.contractAddress;
}

/**
 * Runtime code that reverts with Error("insufficient funds"): CODECOPY of the 100 bytes of the
 * encoded error that follow it, then REVERT with them. Init code: CODECOPY of the runtime, RETURN.
 */
function revertsWithReason(reason: string): string {
  const text = Buffer.from(reason).toString("hex");
  const data = `08c379a0${"20".padStart(64, "0")}${reason.length.toString(16).padStart(64, "0")}${text.padEnd(64, "0")}`;
  const size = (data.length / 2).toString(16).padStart(2, "0");
  return `60${size}600c600039` + `60${size}6000fd` + data;
}
async function deployLong(runtime: string): Promise<Address> {
  const n = (runtime.length / 2).toString(16).padStart(2, "0");
  const init = `0x60${n}600c60003960${n}6000f3${runtime}` as Hex;
  const hash = await createWalletClient({ transport: http(c.rpc) }).sendTransaction({ account: devAccount(6), data: init, gas: 300_000n, chain: null });
  const receipt = await c.client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  if (!receipt.contractAddress) throw new Error("deployment failed");
  expect(await c.client.getCode({ address: receipt.contractAddress })).toBe(`0x${runtime}`);
  return receipt.contractAddress;
}

async function run(b: PayoutBusiness) {
  const r = await b.owner.call("POST", "/business/payouts/run", { environment: "TEST" });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { payouts: Array<Record<string, any>>; skipped: Array<Record<string, any>> };
}

const nonceOf = (a: Address) => c.client.getTransactionCount({ address: a });

describe("payout wallets", () => {
  it("a wallet whose revert reason reads \"insufficient funds\" is refused before signing, not taken for the pool's shortage: no gas spent", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01" });
    const deposit = await fund(c, b.owner, "1");
    const liar = await referrerWithWallet(b, await deployLong(revertsWithReason("insufficient funds")));
    await earn(b, liar.referralCode);
    const { payouts } = await run(b);
    expect(payouts).toMatchObject([{ participantId: liar.participantId, status: "FAILED", txHash: null, nonce: null, error: expect.stringMatching(/^WALLET_REFUSED: a transfer to .* fails/) }]);
    expect(await nonceOf(deposit)).toBe(0);
    expect(await run(b)).toEqual({ payouts: [], skipped: [] });
  }, 120_000);

  it("REVERT, endless-loop and gas-hungry contract wallets fail their own payouts with a reason; everyone else is paid in the same run; later runs skip them until the wallet changes", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01" });
    const deposit = await fund(c, b.owner, "1");
    const reverter = await referrerWithWallet(b, await deploy(REVERT));
    const looper = await referrerWithWallet(b, await deploy(ENDLESS));
    const hungry = await referrerWithWallet(b, await deploy(BURNS_27K));
    const honest = await referrerWithWallet(b);
    for (const r of [reverter, looper, hungry, honest]) await earn(b, r.referralCode);

    const { payouts } = await run(b);
    const by = Object.fromEntries(payouts.map((p) => [p.participantId, p]));
    expect(by[honest.participantId]).toMatchObject({ status: "CONFIRMED", amountEth: "0.01" });
    expect(by[reverter.participantId]).toMatchObject({ status: "FAILED", txHash: null, nonce: null, error: expect.stringMatching(/^WALLET_REFUSED: a transfer to .* fails/) });
    expect(by[looper.participantId]).toMatchObject({ status: "FAILED", txHash: null, error: expect.stringMatching(/^WALLET_(GAS_LIMIT|REFUSED): /) });
    expect(by[hungry.participantId]).toMatchObject({ status: "FAILED", txHash: null, error: expect.stringMatching(/^WALLET_GAS_LIMIT: a transfer to .* needs more gas than PAYOUT_MAX_GAS \(30000\)/) });
    expect(await balanceOf(c, honest.wallet)).toBe(parseEther("0.01"));
    for (const r of [reverter, looper, hungry]) expect(await balanceOf(c, r.wallet)).toBe(0n);
    // One transaction left the deposit address: the refused wallets cost no gas at all.
    expect(await nonceOf(deposit)).toBe(1);
    expect(await figures(b)).toMatchObject({ owedEth: "0.03", paidOutEth: "0.01", gasSpentEth: by[honest.participantId].gasEth, reconciled: true });

    // Skipped until their wallet changes: the next runs create nothing.
    expect(await run(b)).toEqual({ payouts: [], skipped: [] });
    const queue = await b.owner.call("GET", "/business/payouts/queue?environment=TEST");
    expect(queue.status, JSON.stringify(queue.body)).toBe(200);
    const failed = queue.body.items.filter((i: { state: string }) => i.state === "WALLET_FAILED");
    expect(failed.map((i: { participant: { participantId: string } }) => i.participant.participantId).sort()).toEqual([reverter.participantId, looper.participantId, hungry.participantId].sort());

    // A new wallet: paid on the next run.
    const wallet = freshWallet();
    const set = await b.owner.call("PATCH", `/business/participants/${reverter.participantId}`, { walletAddress: wallet });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const again = await run(b);
    expect(again.payouts).toMatchObject([{ participantId: reverter.participantId, status: "CONFIRMED", amountEth: "0.01", walletAddress: wallet }]);
    expect(await balanceOf(c, wallet)).toBe(parseEther("0.01"));
  }, 300_000);

  it("a wallet that reverts on chain after its transfer was sent: FAILED (TX_REVERTED) with the gas it burnt, the rewards payable again, skipped after; the others paid in that run", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01" });
    const deposit = await fund(c, b.owner, "1");
    const turncoat = await referrerWithWallet(b);
    const bought = await b.sdk("POST", "/track", { eventName: "purchase", referrer: turncoat.referralCode, amount: "1", currency: "ETH", metadata: { referredUserEmail: `buyer-${Date.now()}@example.com` } });
    expect(bought.body.rewards?.[0]?.status, JSON.stringify(bought.body)).toBe("PAID");
    // The transfer is sent but not mined; half the purchase is refunded meanwhile (clawed back: the
    // reward is in a payout); then the wallet's code becomes REVERT and a block is mined.
    await rpcCall(c, "evm_setAutomine", [false]);
    try {
      const first = await run(b);
      expect(first.payouts).toMatchObject([{ participantId: turncoat.participantId, status: "SENT" }]);
      const half = await b.sdk("POST", "/sdk/rewards/reverse", { eventId: bought.body.eventId, amount: "0.5", reason: "half refunded" });
      expect(half.body, JSON.stringify(half.body)).toMatchObject({ clawbackEth: "0.005", reversals: [{ outcome: "CLAWBACK" }] });
      await rpcCall(c, "hardhat_setCode", [turncoat.wallet, `0x${REVERT}`]);
    } finally {
      await rpcCall(c, "evm_setAutomine", [true]);
    }
    await rpcCall(c, "evm_mine");
    const honest = await referrerWithWallet(b);
    await earn(b, honest.referralCode);

    const second = await run(b);
    expect(second.payouts).toMatchObject([{ participantId: honest.participantId, status: "CONFIRMED" }]);
    const list = await b.owner.call("GET", `/business/payouts?environment=TEST&participantId=${turncoat.participantId}`);
    const [reverted] = list.body.data;
    expect(reverted).toMatchObject({ status: "FAILED", error: expect.stringMatching(/^TX_REVERTED: /) });
    // The burnt gas is bounded by the transfer's gas limit (PAYOUT_MAX_GAS at most).
    expect(parseEther(reverted.gasEth)).toBeGreaterThan(0n);
    const tx = await c.client.getTransaction({ hash: reverted.txHash });
    expect(tx.gas).toBeLessThanOrEqual(30_000n);
    expect(await balanceOf(c, turncoat.wallet)).toBe(0n);
    const rewards = await b.owner.call("GET", `/business/rewards?environment=TEST&participantId=${turncoat.participantId}`);
    expect(rewards.body.data.map((r: { payoutStatus: string }) => r.payoutStatus)).toEqual(["PAYABLE"]);
    // Never paid out after all: the refunded half went back to the pool, the reward pays the rest.
    expect(rewards.body.data[0]).toMatchObject({ reversedEth: "0.005" });
    const reversals = await b.owner.call("GET", `/business/reversals?environment=TEST&participantId=${turncoat.participantId}`);
    expect(reversals.body.data).toMatchObject([{ outcome: "RETURNED_TO_POOL", amountEth: "0.005" }]);
    expect(await figures(b)).toMatchObject({ owedEth: "0.005" });
    expect(await run(b)).toEqual({ payouts: [], skipped: [] });
    expect(await nonceOf(deposit)).toBe(2);
    expect((await figures(b)).reconciled).toBe(true);
  }, 300_000);

  it("a payout whose gas would exceed PAYOUT_MAX_GAS_PERCENT of its amount is held back with the reason, its rewards payable", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.0000001" });
    await fund(c, b.owner, "1");
    const tiny = await referrerWithWallet(b);
    await earn(b, tiny.referralCode);
    const r = await run(b);
    expect(r.payouts).toEqual([]);
    expect(r.skipped).toMatchObject([{ participantId: tiny.participantId, code: "GAS_TOO_HIGH", message: expect.stringMatching(/would exceed 10% of the 0\.0000001 ETH/) }]);
    expect(await balanceOf(c, tiny.wallet)).toBe(0n);
    expect(await figures(b)).toMatchObject({ owedEth: "0.0000001", gasSpentEth: "0" });
  }, 120_000);

  it("the zero address, precompiles, the reserved low range and the business's deposit address are refused as wallets (400) by the SDK and the dashboard", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01" });
    const deposit = (await figures(b)).depositAddress as string;
    const ref = await referrerWithWallet(b, null);
    for (const wallet of ["0x0000000000000000000000000000000000000000", "0x0000000000000000000000000000000000000001", "0x000000000000000000000000000000000000000a", "0x000000000000000000000000000000000000ffff", deposit, deposit.toLowerCase()]) {
      const sdk = await b.sdk("POST", "/sdk/participants", { userId: `w-${Math.random().toString(36).slice(2)}`, walletAddress: wallet });
      expect(sdk.status, wallet).toBe(400);
      expect(sdk.body.error).toMatchObject({ code: "VALIDATION_ERROR", details: [expect.objectContaining({ path: "walletAddress" })] });
      const patch = await b.owner.call("PATCH", `/business/participants/${ref.participantId}`, { walletAddress: wallet });
      expect(patch.status, wallet).toBe(400);
      expect(patch.body.error.code).toBe("VALIDATION_ERROR");
    }
    const participants = await b.owner.call("GET", "/business/participants?environment=TEST");
    expect(participants.body.data).toHaveLength(1);
    expect(participants.body.data[0].walletAddress).toBeNull();
  });
});
