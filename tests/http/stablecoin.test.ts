// A program in a stablecoin, end to end on a local chain of its own: the test USDC the app deploys
// at start-up, a token the test deploys (another asset, a blacklist), funding by Transfer logs, a
// 10 % commission on a 19.99 USD purchase paid in base units of USDC, and the ledger, the balance,
// the proof and balanceOf agreeing to the base unit. Gas is the deposit address's ETH. Every answer,
// export, webhook payload and email that carries a program amount states it in USDC.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWalletClient, encodeAbiParameters, getAddress, encodeFunctionData, erc20Abi, http, parseEther, type Address, type Hex } from "viem";
import { TestToken, testTokenAbi } from "../../server/chain/contracts";
import { verifyLiabilityProof } from "../../sdk/src/proofs";
import { devAccount } from "../support/chain";
import { request, signUp, uniqueEmail } from "../support/http";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import { figures, freshWallet, payoutBusiness, referrerWithWallet, runPayouts, startChainApp, type ChainApp, type PayoutBusiness } from "./payouts-helpers";

const wallet = (c: ChainApp) => createWalletClient({ transport: http(c.rpc) });

async function send(c: ChainApp, from: number, tx: { to?: Address; data?: Hex; value?: bigint }) {
  const hash = await wallet(c).sendTransaction({ account: devAccount(from), to: tx.to ?? null, data: tx.data, value: tx.value ?? 0n, gas: 3_000_000n, chain: null });
  return { hash, receipt: await c.client.waitForTransactionReceipt({ hash, pollingInterval: 100 }) };
}

const tokenBalance = (c: ChainApp, token: Address, holder: Address) => c.client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [holder] });

/** A TestToken deployed by the test (its owner: dev account 8, which may blacklist). */
async function deployToken(c: ChainApp, symbol: string, decimals: number): Promise<Address> {
  const args = encodeAbiParameters([{ type: "string" }, { type: "string" }, { type: "uint8" }], [`Test ${symbol}`, symbol, decimals]);
  const { receipt } = await send(c, 8, { data: `${TestToken.bytecode}${args.slice(2)}` as Hex });
  return receipt.contractAddress!;
}

/** A business whose TEST program is in the test USDC, with a 10 % commission on purchases priced at USD 1 per USDC. */
async function usdcBusiness(c: ChainApp) {
  const b = await payoutBusiness(c, { rewardEth: "0" });
  const got = await b.owner.call("GET", "/business/config/asset?environment=TEST");
  expect(got.status, JSON.stringify(got.body)).toBe(200);
  const usdc = got.body.suggestedTokens[0];
  expect(usdc).toMatchObject({ symbol: "USDC", decimals: 6 });
  const set = await b.owner.call("PATCH", "/business/config/asset", { environment: "TEST", asset: "ERC20", tokenAddress: usdc.tokenAddress });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  expect((await b.owner.call("PATCH", "/business/config/pricing", { environment: "TEST", rates: { USD: "1" } })).status).toBe(200);
  const rule = await b.owner.call("POST", "/business/commission-rules", { environment: "TEST", name: "10 %", eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "10" });
  expect(rule.status, JSON.stringify(rule.body)).toBe(201);
  return { b, token: usdc.tokenAddress as Address };
}

/** A purchase of 19.99 USD by a new customer of `referralCode`: the referrer's commission. */
async function purchase(b: PayoutBusiness, referralCode: string) {
  const email = uniqueEmail("buyer");
  expect((await b.sdk("POST", "/track", { eventName: "signup", referrer: referralCode, metadata: { referredUserEmail: email } })).status).toBe(200);
  const t = await b.sdk("POST", "/track", { eventName: "purchase", amount: "19.99", currency: "USD", metadata: { referredUserEmail: email } });
  expect(t.status, JSON.stringify(t.body)).toBe(200);
  return t.body;
}

async function testDeposit(b: PayoutBusiness, amount: string) {
  const d = await b.owner.call("POST", "/business/funding/test-deposit", { amountEth: amount });
  expect(d.status, JSON.stringify(d.body)).toBe(200);
  const v = await b.owner.call("POST", "/business/funding/verify", { txHash: d.body.txHash, environment: "TEST" });
  expect(v.status, JSON.stringify(v.body)).toBe(200);
  return v.body;
}

/** A CSV export as rows keyed by its header (no quoted commas in these exports' amounts). */
async function csvRows(c: ChainApp, b: PayoutBusiness, path: string) {
  const r = await request(c.app.url, "GET", path, undefined, { authorization: `Bearer ${b.owner.token}` });
  expect(r.status, path).toBe(200);
  const [head, ...lines] = (r.body as string).trim().split(/\r?\n/);
  const keys = head.split(",");
  return lines.map((l) => Object.fromEntries(l.split(",").map((v, i) => [keys[i], v])));
}

/** The payloads of `type` the receiver got at `path` (waits for n). */
async function payloads(rx: Receiver, path: string, type: string, n = 1) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const got = rx.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body)).filter((m) => m.type === type);
    if (got.length >= n) return got;
    if (Date.now() > deadline) throw new Error(`${type}: ${got.length} of ${n} deliveries`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("a program in a stablecoin", () => {
  let c: ChainApp;
  let rx: Receiver;
  beforeAll(async () => {
    [c, rx] = await Promise.all([startChainApp(), startReceiver()]);
  });
  afterAll(async () => {
    await c?.stop();
    await rx?.close();
  });

  it("USDC: funded 1,000, a 10 % commission on 19.99 USD pays exactly 1,999,000 base units on chain; ledger, balance, proof and balanceOf agree", async () => {
    const { b, token } = await usdcBusiness(c);
    const asset = { symbol: "USDC", decimals: 6, tokenAddress: token };
    const hook = await b.owner.call("POST", "/business/webhooks", { url: `${rx.url}/usdc`, environment: "TEST" });
    expect(hook.status, JSON.stringify(hook.body)).toBe(200);
    const funded = await testDeposit(b, "1000");
    expect(funded).toMatchObject({ amountEth: "1000", creditedEth: "1000", balanceEth: "1000", alreadyCredited: false, asset });
    const again = await b.owner.call("POST", "/business/funding/verify", { txHash: funded.txHash, environment: "TEST" });
    expect(again.body).toMatchObject({ creditedEth: "0", alreadyCredited: true, balanceEth: "1000" });

    // The asset is locked from the first ledger entry on.
    const locked = await b.owner.call("PATCH", "/business/config/asset", { environment: "TEST", asset: "ETH" });
    expect(locked.status).toBe(422);
    expect(locked.body.error.code).toBe("ASSET_LOCKED");
    expect((await b.owner.call("GET", "/business/config/asset?environment=TEST")).body).toMatchObject({ asset: "ERC20", symbol: "USDC", decimals: 6, locked: true });

    // The referrer has an email: their reward's email states it in USDC.
    const wallet = freshWallet();
    const made = await b.sdk("POST", "/sdk/participants", { userId: "usdc-referrer", email: uniqueEmail("referrer"), walletAddress: wallet.toLowerCase() });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const ref = { participantId: made.body.participantId as string, referralCode: made.body.referralCode as string, wallet };
    const t = await purchase(b, ref.referralCode);
    // The synchronous /track answer states the commission in USDC.
    const commission = t.rewards.find((r: { kind: string }) => r.kind === "COMMISSION");
    expect(commission).toMatchObject({ status: "PAID", amountEth: "1.999", requestedEth: "1.999", asset });
    const events = await b.owner.call("GET", "/business/events?environment=TEST&eventName=purchase");
    expect(events.body.data[0].rewards).toMatchObject([{ kind: "COMMISSION", amountEth: "1.999", asset }]);
    const [created] = await payloads(rx, "/usdc", "reward.created");
    expect(created.data).toMatchObject({ kind: "COMMISSION", amountEth: "1.999", requestedEth: "1.999", asset });
    expect((await payloads(rx, "/usdc", "funding.credited"))[0].data).toMatchObject({ amountEth: "1000", balanceEth: "1000", asset });
    const stats = await b.owner.call("GET", "/business/referrals/stats?environment=TEST");
    expect(stats.body).toMatchObject({ asset, ethRewarded: "1.999", ethRewardedByKind: { COMMISSION: "1.999" } });
    const [exported] = await csvRows(c, b, "/api/export/rewards?environment=TEST&kind=COMMISSION");
    expect(exported).toMatchObject({ amountEth: "1.999", requestedEth: "1.999", reversedEth: "0" });
    const ledgerCsv = await csvRows(c, b, "/api/export/ledger?environment=TEST");
    expect(ledgerCsv.map((r) => [r.kind, r.amountEth, r.balanceEth])).toEqual([["FUNDING", "1000", "1000"], ["REWARD", "-1.999", "998.001"]]);
    const emails = await b.owner.call("GET", "/business/emails?environment=TEST&kind=REWARD_EARNED");
    expect(emails.status, JSON.stringify(emails.body)).toBe(200);
    expect(emails.body.data[0].subject).toMatch(/^\[TEST\] You earned 1\.999 USDC from /);
    const listed = await b.owner.call("GET", "/business/rewards?environment=TEST&kind=COMMISSION");
    expect(listed.body.data).toMatchObject([{ amountEth: "1.999", asset, baseAmount: "19.99", baseCurrency: "USD", rate: "1" }]);

    // Gas: ETH sent to the deposit address, outside the ledger (a token program credits only its token).
    const deposit = (await figures(b)).depositAddress as Address;
    await send(c, 9, { to: deposit, value: parseEther("1") });
    const before = await figures(b);
    expect(before).toMatchObject({ asset, balanceEth: "998.001", owedEth: "1.999", onChainBalanceEth: "1000", gasBalanceEth: "1", reconciled: true });
    // A proof while the commission is owed: the referrer checks it with the SDK against balanceOf, not the ETH balance.
    const owedProof = await b.owner.call("POST", "/business/proofs", { environment: "TEST" });
    expect(owedProof.body).toMatchObject({ totalOwedWei: "1999000", poolBalanceWei: "1000000000", covered: true, asset });
    const mine = await b.owner.call("GET", `/business/participants/${ref.participantId}/proof`);
    expect(mine.body.leaf.owedWei).toBe("1999000");
    const verdict = await verifyLiabilityProof({ proof: owedProof.body, leaf: mine.body.leaf, path: mine.body.path, rpcUrl: c.rpc, expectedSigner: deposit });
    expect(verdict.problems).toEqual([]);
    expect(verdict).toMatchObject({ ok: true, balanceMatches: true, covered: true, onChainBalanceWei: 1_000_000_000n });

    const [p] = await runPayouts(b);
    expect(p).toMatchObject({ status: "CONFIRMED", amountEth: "1.999", asset, walletAddress: ref.wallet, error: null });
    expect(await tokenBalance(c, token, ref.wallet)).toBe(1_999_000n);
    expect(await c.client.getBalance({ address: ref.wallet })).toBe(0n);
    const tx = await c.client.getTransaction({ hash: p.txHash });
    expect([tx.to!.toLowerCase(), tx.value]).toEqual([token.toLowerCase(), 0n]);

    const after = await figures(b);
    expect(after).toMatchObject({ balanceEth: "998.001", availableEth: "998.001", owedEth: "0", paidOutEth: "1.999", gasSpentEth: "0", onChainBalanceEth: "998.001", reconciled: true });
    expect(parseEther(after.gasBalanceEth)).toBeLessThan(parseEther("1"));
    expect(await tokenBalance(c, token, deposit)).toBe(998_001_000n);
    const ledger = await b.owner.call("GET", "/business/ledger?environment=TEST");
    expect(ledger.body).toMatchObject({ balanceEth: "998.001", asset });
    expect(ledger.body.data.map((e: { kind: string }) => e.kind)).not.toContain("GAS");

    const proof = await b.owner.call("POST", "/business/proofs", { environment: "TEST" });
    expect(proof.status, JSON.stringify(proof.body)).toBe(200);
    expect(proof.body).toMatchObject({ poolBalanceWei: "998001000", totalOwedWei: "0", covered: true, asset });
    expect((await b.owner.call("GET", "/business/proofs?environment=TEST")).body.data[0]).toMatchObject({ proofId: proof.body.proofId, asset });
    const confirmed = (await payloads(rx, "/usdc", "payout.confirmed"))[0];
    expect(confirmed.data).toMatchObject({ payoutId: p.payoutId, amountEth: "1.999", asset });
    const [payoutRow] = await csvRows(c, b, "/api/export/payouts?environment=TEST");
    expect(payoutRow).toMatchObject({ payoutId: p.payoutId, amountEth: "1.999", rewardsEth: "1.999" });
  });

  it("asset routes: members read, owners change; a non-contract or a contract without symbol()/decimals() is 400; too many decimals is 400", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0" });
    const email = uniqueEmail("member");
    const invite = await b.owner.call("POST", "/business/members", { email, role: "MEMBER" });
    const member = await signUp({ url: c.app.url, email, inviteUrl: invite.body.inviteUrl });
    expect((await member.call("GET", "/business/config/asset?environment=TEST")).body).toMatchObject({ environment: "TEST", asset: "ETH", symbol: "ETH", decimals: 18, tokenAddress: null, locked: false });
    const denied = await member.call("PATCH", "/business/config/asset", { environment: "TEST", asset: "ETH" });
    expect(denied.status).toBe(403);
    for (const tokenAddress of [freshWallet(), await deployReverterAt(c)]) {
      const r = await b.owner.call("PATCH", "/business/config/asset", { environment: "TEST", asset: "ERC20", tokenAddress });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
    expect((await b.owner.call("PATCH", "/business/config/asset", { environment: "TEST", asset: "ERC20" })).status).toBe(400);
    const token = await deployToken(c, "TWO", 2);
    const set = await b.owner.call("PATCH", "/business/config/asset", { environment: "TEST", asset: "ERC20", tokenAddress: token });
    expect(set.body).toMatchObject({ asset: "ERC20", symbol: "TWO", decimals: 2, tokenAddress: getAddress(token) });
    const tooFine = await b.owner.call("PATCH", "/business/config/spend", { environment: "TEST", lowPoolAlertEth: "1.001" });
    expect(tooFine.status).toBe(400);
    expect(tooFine.body.error.code).toBe("VALIDATION_ERROR");
    const ok = await b.owner.call("PATCH", "/business/config/spend", { environment: "TEST", lowPoolAlertEth: "1.01" });
    expect(ok.body).toMatchObject({ asset: { symbol: "TWO", decimals: 2 }, spend: { lowPoolAlertEth: "1.01" } });
  });

  it("inputs: every amount the API takes has at most USDC's 6 decimals (7 → 400 VALIDATION_ERROR naming the field); 6 are accepted", async () => {
    const { b } = await usdcBusiness(c);
    const seven = "1.0000001";
    const six = "1.000001";
    const tries: Array<[string, string, Record<string, unknown>, string]> = [
      ["PATCH", "/business/config/general", { environment: "TEST", referralRewardEth: seven }, "referralRewardEth"],
      ["PATCH", "/business/config/general", { environment: "TEST", bonusEth: seven }, "bonusEth"],
      ["PATCH", "/business/config/spend", { environment: "TEST", maxEthPerDayPerUser: seven }, "maxEthPerDayPerUser"],
      ["PATCH", "/business/config/spend", { environment: "TEST", maxReferralEthPerEvent: seven }, "maxReferralEthPerEvent"],
      ["PATCH", "/business/config/spend", { environment: "TEST", maxBonusEthPerEvent: seven }, "maxBonusEthPerEvent"],
      ["PATCH", "/business/config/spend", { environment: "TEST", lowPoolAlertEth: seven }, "lowPoolAlertEth"],
      ["PATCH", "/business/config/spend", { environment: "TEST", autoRefillAmountEth: seven }, "autoRefillAmountEth"],
      ["PATCH", "/business/config/spend", { environment: "TEST", minPayoutEth: seven }, "minPayoutEth"],
      ["POST", "/business/config/tiers", { name: "Gold", minReferrals: 5, referralRewardEth: seven }, "referralRewardEth"],
      ["POST", "/business/config/tiers", { name: "Gold", minReferrals: 5, referralRewardEth: "1", bonusEth: seven }, "bonusEth"],
      ["POST", "/business/funding/test-deposit", { amountEth: seven }, "amountEth"],
    ];
    for (const [method, path, body, field] of tries) {
      const r = await b.owner.call(method, path, body);
      expect(r.status, `${path} ${JSON.stringify(body)} → ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
      expect(JSON.stringify(r.body.error.details), path).toContain(field);
    }
    const ref = await referrerWithWallet(b);
    const manual = await b.owner.call("POST", "/business/rewards", { environment: "TEST", recipient: ref.participantId, amountEth: seven, reason: "thanks" });
    expect([manual.status, manual.body.error?.code]).toEqual([400, "VALIDATION_ERROR"]);

    const general = await b.owner.call("PATCH", "/business/config/general", { environment: "TEST", referralRewardEth: six });
    expect(general.status, JSON.stringify(general.body)).toBe(200);
    expect(general.body).toMatchObject({ asset: { symbol: "USDC", decimals: 6 }, general: { referralRewardEth: six } });
    const tier = await b.owner.call("POST", "/business/config/tiers", { name: "Gold", minReferrals: 5, referralRewardEth: six });
    expect(tier.status, JSON.stringify(tier.body)).toBe(200);
  });

  it("funding: only the token's Transfer logs to the deposit address count; another token's is refused; a reverted transfer credits nothing", async () => {
    const { b, token } = await usdcBusiness(c);
    const deposit = (await figures(b)).depositAddress as Address;
    const other = await deployToken(c, "OTH", 6);
    const foreign = await send(c, 8, { to: other, data: encodeFunctionData({ abi: testTokenAbi, functionName: "mint", args: [deposit, 5_000_000n] }) });
    const r1 = await b.owner.call("POST", "/business/funding/verify", { txHash: foreign.hash, environment: "TEST" });
    expect([r1.status, r1.body.error?.details?.reason]).toEqual([422, "WRONG_RECIPIENT"]);
    // A transfer of more than the sender holds reverts (mined, status 0).
    const reverted = await send(c, 10, { to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [deposit, 1n] }) });
    expect(reverted.receipt.status).toBe("reverted");
    const r2 = await b.owner.call("POST", "/business/funding/verify", { txHash: reverted.hash, environment: "TEST" });
    expect([r2.status, r2.body.error?.details?.reason]).toEqual([422, "TX_REVERTED"]);
    // Minted to someone else and transferred on: only the log to the deposit address counts.
    await send(c, 10, { to: token, data: encodeFunctionData({ abi: testTokenAbi, functionName: "mint", args: [devAccount(10), 7_000_000n] }) });
    const sent = await send(c, 10, { to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [deposit, 2_500_000n] }) });
    const ok = await b.owner.call("POST", "/business/funding/verify", { txHash: sent.hash, environment: "TEST" });
    expect(ok.body).toMatchObject({ creditedEth: "2.5", balanceEth: "2.5" });
    expect((await figures(b)).balanceEth).toBe("2.5");
  });

  it("a recipient the token refuses (blacklisted) fails only its own payout (WALLET_REFUSED); too little ETH for gas is skipped with GAS_BALANCE_LOW", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0" });
    const token = await deployToken(c, "BLK", 6);
    expect((await b.owner.call("PATCH", "/business/config/asset", { environment: "TEST", asset: "ERC20", tokenAddress: token })).status).toBe(200);
    expect((await b.owner.call("PATCH", "/business/config/general", { environment: "TEST", referralRewardEth: "1.25" })).status).toBe(200);
    const deposit = (await figures(b)).depositAddress as Address;
    const minted = await send(c, 8, { to: token, data: encodeFunctionData({ abi: testTokenAbi, functionName: "mint", args: [deposit, 100_000_000n] }) });
    expect((await b.owner.call("POST", "/business/funding/verify", { txHash: minted.hash, environment: "TEST" })).body.balanceEth).toBe("100");
    const good = await referrerWithWallet(b);
    const bad = await referrerWithWallet(b);
    await send(c, 8, { to: token, data: encodeFunctionData({ abi: testTokenAbi, functionName: "setBlacklisted", args: [bad.wallet, true] }) });
    for (const r of [good, bad]) {
      const t = await b.sdk("POST", "/track", { eventName: "purchase", referrer: r.referralCode, metadata: { referredUserEmail: uniqueEmail("referred") } });
      expect(t.body.rewards?.[0]).toMatchObject({ status: "PAID" });
    }

    // No ETH for gas yet: the refused wallet fails (its transfer reverts in simulation, whatever
    // the gas), the other is not paid, and the run says why.
    const starved = await b.owner.call("POST", "/business/payouts/run", { environment: "TEST" });
    expect(starved.body.payouts).toMatchObject([{ walletAddress: bad.wallet, status: "FAILED" }]);
    expect(starved.body.payouts[0].error).toMatch(/^WALLET_REFUSED/);
    expect(starved.body.skipped).toMatchObject([{ participantId: good.participantId, code: "GAS_BALANCE_LOW" }]);
    expect(await tokenBalance(c, token, good.wallet)).toBe(0n);

    await send(c, 9, { to: deposit, value: parseEther("1") });
    const payouts = await runPayouts(b);
    expect(payouts).toMatchObject([{ walletAddress: good.wallet, status: "CONFIRMED", amountEth: "1.25" }]);
    expect(await tokenBalance(c, token, good.wallet)).toBe(1_250_000n);
    expect(await tokenBalance(c, token, bad.wallet)).toBe(0n);
    expect(await figures(b)).toMatchObject({ balanceEth: "97.5", owedEth: "1.25", onChainBalanceEth: "98.75", reconciled: true });
  });
});

/** A contract whose code always reverts: no symbol(), no decimals(). */
async function deployReverterAt(c: ChainApp): Promise<Address> {
  const { receipt } = await send(c, 8, { data: "0x6460006000fd6000526005601bf3" });
  return receipt.contractAddress!;
}
