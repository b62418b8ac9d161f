// Withdrawals requested by the referrer, over HTTP against the production build and its own local
// chain: the settings in PATCH /business/config/spend (owner or admin), POST /portal/api/withdrawals
// (202; 409 WITHDRAWAL_PENDING; 429 with Retry-After; 422 WITHDRAWALS_DISABLED, NO_WALLET,
// BELOW_MINIMUM, WALLET_FAILED), the list with its transaction, the run a request starts paying it
// on chain by itself (in ETH and in the test USDC), REQUESTED in the staff's payout queue and the
// audit log, and ownership: one referrer never sees another's requests, nor one business another's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWalletClient, erc20Abi, http, parseEther, type Address } from "viem";
import { devAccount } from "../support/chain";
import { request, signUp, uniqueEmail, type Owner } from "../support/http";
import { balanceOf, earn, figures, fund, freshWallet, payoutBusiness, referrerWithWallet, revertingWallet, runPayouts, startChainApp, type ChainApp, type PayoutBusiness } from "./payouts-helpers";

describe("withdrawals", () => {
  let c: ChainApp;
  beforeAll(async () => {
    c = await startChainApp({ WITHDRAWAL_RUN_DELAY_MS: "0" });
  });
  afterAll(() => c?.stop());

  const portal = (token: string, method = "GET", path = "/portal/api/withdrawals", body?: unknown) => request(c.app.url, method, path, body, { authorization: `Bearer ${token}` });
  async function session(b: PayoutBusiness, participantId: string) {
    const s = await b.sdk("POST", "/sdk/participants/portal-sessions", { participantId });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    return s.body.token as string;
  }
  /** Reads the referrer's requests until the newest is `status` (the run a request starts is a job of the app). */
  async function until(token: string, status: string) {
    for (;;) {
      const r = await portal(token);
      expect(r.status).toBe(200);
      if (r.body.data[0]?.status === status) return r.body;
      expect(r.body.data[0]?.status, JSON.stringify(r.body.data[0])).not.toBe(status === "PAID" ? "FAILED" : "PAID");
      await new Promise((res) => setTimeout(res, 250));
    }
  }
  /** A member of the owner's business, on this suite's app. */
  async function member(owner: Owner, role: "MEMBER" | "ADMIN"): Promise<Owner> {
    const email = uniqueEmail(role.toLowerCase());
    const r = await owner.call("POST", "/business/members", { email, role });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return signUp({ url: c.app.url, email, inviteUrl: r.body.inviteUrl });
  }
  const withdrawalsOn = { withdrawalsEnabled: true, minWithdrawalEth: "0.015" };

  it("settings: off by default, minimum defaults to minPayoutEth; owner or admin may change them, a member may not; decimals checked", async () => {
    const b = await payoutBusiness(c, { spend: { minPayoutEth: "0.002" } });
    const got = await b.owner.call("GET", "/business/config?environment=TEST");
    expect(got.body.spend).toMatchObject({ withdrawalsEnabled: false, minWithdrawalEth: "0.002", minPayoutEth: "0.002" });
    const admin = await member(b.owner, "ADMIN");
    const set = await admin.call("PATCH", "/business/config/spend", { environment: "TEST", ...withdrawalsOn });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.spend).toMatchObject({ withdrawalsEnabled: true, minWithdrawalEth: "0.015" });
    // An admin changes only the withdrawal settings; a member none.
    expect((await admin.call("PATCH", "/business/config/spend", { minPayoutEth: "0.1" })).status).toBe(403);
    const plain = await member(b.owner, "MEMBER");
    expect((await plain.call("PATCH", "/business/config/spend", { withdrawalsEnabled: false })).status).toBe(403);
    for (const bad of [{ minWithdrawalEth: "0.0000000000000000001" }, { minWithdrawalEth: "-1" }, { withdrawalsEnabled: "true" }]) {
      const r = await b.owner.call("PATCH", "/business/config/spend", bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
    // null: back to minPayoutEth.
    const reset = await b.owner.call("PATCH", "/business/config/spend", { minWithdrawalEth: null });
    expect(reset.body.spend.minWithdrawalEth).toBe("0.002");
  });

  it("each refusal: 422 WITHDRAWALS_DISABLED, NO_WALLET (none, or unverified where required), BELOW_MINIMUM, WALLET_FAILED; the button says why", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01" });
    await fund(c, b.owner, "1");
    const ref = await referrerWithWallet(b);
    await earn(b, ref.referralCode);
    const token = await session(b, ref.participantId);
    const refused = async (code: string) => {
      const r = await portal(token, "POST");
      expect(r.status, JSON.stringify(r.body)).toBe(422);
      expect(r.body.error.code).toBe(code);
      expect(typeof r.body.error.message).toBe("string");
      const list = await portal(token);
      expect(list.body.availability).toMatchObject({ allowed: false, reason: code });
    };
    await refused("WITHDRAWALS_DISABLED");
    expect((await b.owner.call("PATCH", "/business/config/spend", withdrawalsOn)).status).toBe(200);
    await refused("BELOW_MINIMUM");
    expect((await portal(token)).body.availability).toMatchObject({ amountEth: "0.01", minWithdrawalEth: "0.015", asset: { symbol: "ETH", decimals: 18 } });
    await earn(b, ref.referralCode);

    // A wallet that refuses a transfer (a reverting contract): WALLET_FAILED once a payout found it.
    const bad = await referrerWithWallet(b, await revertingWallet(c));
    await earn(b, bad.referralCode);
    await earn(b, bad.referralCode);
    await runPayouts(b);
    const badToken = await session(b, bad.participantId);
    const r = await portal(badToken, "POST");
    expect(r.status, JSON.stringify(r.body)).toBe(422);
    expect(r.body.error.code).toBe("WALLET_FAILED");

    // No wallet; then a wallet not verified where verification is required.
    const none = await referrerWithWallet(b, null);
    await earn(b, none.referralCode);
    await earn(b, none.referralCode);
    const noneToken = await session(b, none.participantId);
    const nw = await portal(noneToken, "POST");
    expect(nw.status).toBe(422);
    expect(nw.body.error.code).toBe("NO_WALLET");
    expect((await b.owner.call("PATCH", "/business/config/spend", { requireVerifiedWallet: true })).status).toBe(200);
    const unverified = await portal(token, "POST");
    expect(unverified.status).toBe(422);
    expect(unverified.body.error.code).toBe("NO_WALLET");
    // Bad input is a 400, never a 500.
    expect((await portal(token, "POST", "/portal/api/withdrawals", { amountEth: "1" })).status).toBe(400);
    expect((await request(c.app.url, "POST", "/portal/api/withdrawals")).status).toBe(401);
  });

  it("202, then 409 while open; REQUESTED in the staff's queue and audit log; paid by hand, the list links the transaction", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01", spend: { withdrawalsEnabled: true } });
    await fund(c, b.owner, "1");
    const ref = await referrerWithWallet(b);
    await earn(b, ref.referralCode);
    const token = await session(b, ref.participantId);
    // The node refuses every call: the run the request starts cannot pay, the request waits.
    c.faults.set("eth_chainId", { code: -32603, message: "node down", passOn: false });
    try {
      const w = await portal(token, "POST");
      expect(w.status, JSON.stringify(w.body)).toBe(202);
      expect(w.body).toEqual({ withdrawalId: expect.any(String), status: "REQUESTED", amountEth: "0.01", asset: { symbol: "ETH", decimals: 18, tokenAddress: null } });
      const again = await portal(token, "POST");
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe("WITHDRAWAL_PENDING");
      const queue = await b.owner.call("GET", "/business/payouts/queue?environment=TEST");
      expect(queue.body.items.find((i: any) => i.participant.participantId === ref.participantId)).toMatchObject({ state: "REQUESTED", amountEth: "0.01" });
      expect(queue.body.totals.REQUESTED).toEqual({ count: 1, eth: "0.01" });
      const audit = await b.owner.call("GET", "/business/audit-log?action=portal.withdrawal.request");
      expect(audit.status).toBe(200);
      expect(audit.body.data[0]).toMatchObject({ target: `participantId:${ref.participantId}`, after: { withdrawalId: w.body.withdrawalId, amountEth: "0.01" } });
      const listed = await portal(token);
      expect(listed.body.data).toEqual([expect.objectContaining({ withdrawalId: w.body.withdrawalId, status: "REQUESTED", amountEth: "0.01", txHash: null, txUrl: null })]);
      expect(listed.body.availability).toMatchObject({ allowed: false, reason: "WITHDRAWAL_PENDING" });
    } finally {
      c.faults.clear();
    }
    // Run by hand (the retried job of the request may be first: either pays it, once).
    await runPayouts(b);
    const done = await until(token, "PAID");
    const paid = (await portal(token, "GET", "/portal/api/payouts")).body.data;
    expect(paid).toEqual([expect.objectContaining({ status: "CONFIRMED", amountEth: "0.01", walletAddress: ref.wallet })]);
    expect(done.data[0]).toMatchObject({ paidEth: "0.01", payoutId: paid[0].payoutId, txHash: paid[0].txHash, txUrl: null });
    expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.01"));
    const queue = await b.owner.call("GET", "/business/payouts/queue?environment=TEST");
    expect(queue.body.totals.REQUESTED).toBeUndefined();
  });

  it("paid end to end: the request starts the run, which pays it on the local chain once; others payable are paid too", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01", spend: { withdrawalsEnabled: true } });
    await fund(c, b.owner, "1");
    const ref = await referrerWithWallet(b);
    const other = await referrerWithWallet(b);
    await earn(b, ref.referralCode);
    await earn(b, other.referralCode);
    const token = await session(b, ref.participantId);
    const w = await portal(token, "POST");
    expect(w.status, JSON.stringify(w.body)).toBe(202);
    const done = await until(token, "PAID");
    expect(done.data[0]).toMatchObject({ withdrawalId: w.body.withdrawalId, paidEth: "0.01", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.01"));
    // The run paid whoever was payable, like a scheduled one; nobody twice.
    const payouts = await b.owner.call("GET", "/business/payouts?environment=TEST");
    const wallets = payouts.body.data.map((p: any) => p.walletAddress as Address);
    expect(wallets.sort()).toEqual([ref.wallet, other.wallet].sort());
    expect(await runPayouts(b)).toEqual([]);
    expect(await balanceOf(c, ref.wallet)).toBe(parseEther("0.01"));
    // Nothing payable now: a new request is BELOW_MINIMUM.
    expect((await portal(token, "POST")).body.error.code).toBe("BELOW_MINIMUM");
  });

  it("at most 5 a day: the sixth is 429 with Retry-After", async () => {
    // A reward so small that its gas would exceed PAYOUT_MAX_GAS_PERCENT of it: each run holds the
    // payout back (GAS_TOO_HIGH) and answers the request with that reason, closing it.
    const b = await payoutBusiness(c, { rewardEth: "0.00001", spend: { withdrawalsEnabled: true } });
    await fund(c, b.owner, "1");
    const ref = await referrerWithWallet(b, freshWallet());
    await earn(b, ref.referralCode);
    const token = await session(b, ref.participantId);
    for (let i = 0; i < 5; i++) {
      const w = await portal(token, "POST");
      expect(w.status, JSON.stringify(w.body)).toBe(202);
      const failed = await until(token, "FAILED");
      expect(failed.data[0]).toMatchObject({ withdrawalId: w.body.withdrawalId, failureCode: "GAS_TOO_HIGH" });
    }
    const sixth = await portal(token, "POST");
    expect(sixth.status, JSON.stringify(sixth.body)).toBe(429);
    expect(sixth.body.error.code).toBe("RATE_LIMITED");
    const retryAfter = Number(sixth.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect((await portal(token)).body.availability).toMatchObject({ allowed: false, reason: "RATE_LIMITED" });
  });

  it("ownership: a referrer sees only their own requests; another business's referrer and staff see none of them", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01", spend: { withdrawalsEnabled: true } });
    await fund(c, b.owner, "1");
    const one = await referrerWithWallet(b);
    const two = await referrerWithWallet(b);
    await earn(b, one.referralCode);
    c.faults.set("eth_chainId", { code: -32603, message: "node down", passOn: false });
    let id: string;
    try {
      const oneToken = await session(b, one.participantId);
      const w = await portal(oneToken, "POST");
      expect(w.status).toBe(202);
      id = w.body.withdrawalId;
      const twoToken = await session(b, two.participantId);
      const theirs = await portal(twoToken);
      expect(theirs.body.data).toEqual([]);
      // Another's id as a cursor is unknown to this referrer.
      const probe = await portal(twoToken, "GET", `/portal/api/withdrawals?cursor=${id}`);
      expect(probe.status).toBe(400);
      expect(JSON.stringify(probe.body)).not.toContain(one.participantId);

      const stranger = await payoutBusiness(c, { spend: { withdrawalsEnabled: true } });
      const theirRef = await referrerWithWallet(stranger);
      const strangerToken = await session(stranger, theirRef.participantId);
      expect((await portal(strangerToken)).body.data).toEqual([]);
      expect((await portal(strangerToken, "GET", `/portal/api/withdrawals?cursor=${id}`)).status).toBe(400);
      const q = await stranger.owner.call("GET", "/business/payouts/queue?environment=TEST");
      expect(q.body.totals.REQUESTED).toBeUndefined();
      const audit = await stranger.owner.call("GET", "/business/audit-log?action=portal.withdrawal.request");
      expect(audit.body.data).toEqual([]);
      // A session of another business cannot be used to read this one's participant.
      expect((await b.sdk("POST", "/sdk/participants/portal-sessions", { participantId: theirRef.participantId })).status).toBe(404);
    } finally {
      c.faults.clear();
    }
  });

  it("a program in the test USDC: amounts in its decimals, paid in the token by the run the request starts", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0" });
    const usdc = (await b.owner.call("GET", "/business/config/asset?environment=TEST")).body.suggestedTokens[0];
    expect((await b.owner.call("PATCH", "/business/config/asset", { environment: "TEST", asset: "ERC20", tokenAddress: usdc.tokenAddress })).status).toBe(200);
    expect((await b.owner.call("PATCH", "/business/config/general", { environment: "TEST", referralRewardEth: "0.5" })).status).toBe(200);
    // More decimals than the USDC environment has: refused.
    const tooFine = await b.owner.call("PATCH", "/business/config/spend", { withdrawalsEnabled: true, minWithdrawalEth: "0.0000001" });
    expect(tooFine.status).toBe(400);
    expect(tooFine.body.error.code).toBe("VALIDATION_ERROR");
    expect((await b.owner.call("PATCH", "/business/config/spend", { withdrawalsEnabled: true, minWithdrawalEth: "0.75" })).status).toBe(200);
    const d = await b.owner.call("POST", "/business/funding/test-deposit", { amountEth: "10" });
    expect(d.status, JSON.stringify(d.body)).toBe(200);
    expect((await b.owner.call("POST", "/business/funding/verify", { txHash: d.body.txHash, environment: "TEST" })).status).toBe(200);
    // The deposit address's ETH pays the gas.
    const gas = await createWalletClient({ transport: http(c.rpc) }).sendTransaction({ account: devAccount(9), to: (await figures(b)).depositAddress as Address, value: parseEther("1"), chain: null });
    await c.client.waitForTransactionReceipt({ hash: gas, pollingInterval: 100 });

    const ref = await referrerWithWallet(b);
    await earn(b, ref.referralCode);
    const token = await session(b, ref.participantId);
    const low = await portal(token, "POST");
    expect(low.status).toBe(422);
    expect(low.body.error).toMatchObject({ code: "BELOW_MINIMUM", message: "0.5 USDC is below the minimum withdrawal of 0.75 USDC" });
    await earn(b, ref.referralCode);
    const w = await portal(token, "POST");
    expect(w.status, JSON.stringify(w.body)).toBe(202);
    expect(w.body).toMatchObject({ status: "REQUESTED", amountEth: "1", asset: { symbol: "USDC", decimals: 6, tokenAddress: usdc.tokenAddress } });
    const done = await until(token, "PAID");
    expect(done.data[0]).toMatchObject({ paidEth: "1", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await c.client.readContract({ address: usdc.tokenAddress, abi: erc20Abi, functionName: "balanceOf", args: [ref.wallet] })).toBe(1_000_000n);
    expect(await balanceOf(c, ref.wallet)).toBe(0n);
  });
});
