// Balance and on-chain funding over real HTTP, with real transactions on the run's local
// Hardhat 3 / EDR chain: credited once, replays, concurrent duplicates, every refusal reason.
import { describe, expect, it } from "vitest";
import { getAddress } from "viem";
import { baseUrl, createKey, request, sdk, signUp, uniqueEmail } from "../support/http";
import { deployReverter, devAccount, fundTestPool, publicClient, sendEth, sendTx, testDepositAddress } from "../support/chain";

const verify = (owner: Awaited<ReturnType<typeof signUp>>, body: unknown) => owner.call("POST", "/business/funding/verify", body);

describe("GET /business/balance", () => {
  it("defaults to LIVE; TEST has its own deposit address; balances start at 0", async () => {
    const owner = await signUp();
    const live = await owner.call("GET", "/business/balance");
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({ environment: "LIVE", balanceEth: "0", balanceWei: "0", lowPoolAlertEth: "0", belowLowPoolAlert: false });
    // No CHAIN_RPC_URL nor private DEPOSIT_MNEMONIC in the test app: LIVE funding is off and says why.
    expect(live.body.chainConfigured).toBe(false);
    expect(live.body.chainProblem).toMatch(/CHAIN_RPC_URL/);
    expect(live.body.depositAddress).toBeNull();

    const test = await owner.call("GET", "/business/balance?environment=TEST");
    expect(test.status).toBe(200);
    expect(test.body).toMatchObject({ environment: "TEST", balanceEth: "0", chainConfigured: true, chainProblem: null, confirmationsRequired: 1 });
    expect(test.body.depositAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(getAddress(test.body.depositAddress)).toBe(test.body.depositAddress);

    const other = await signUp();
    expect(await testDepositAddress(other)).not.toBe(test.body.depositAddress);
    // Stable: the same address every time.
    expect(await testDepositAddress(owner)).toBe(test.body.depositAddress);
  });

  it("rejects an unknown environment and requires a session", async () => {
    const owner = await signUp();
    expect((await owner.call("GET", "/business/balance?environment=MAIN")).status).toBe(400);
    const anon = await request(baseUrl(), "GET", "/business/balance");
    expect(anon.status).toBe(401);
  });
});

describe("POST /business/funding/verify", () => {
  it("credits a real deposit to the TEST pool once; a replay (any hex case) adds nothing", async () => {
    const owner = await signUp();
    const to = await testDepositAddress(owner);
    const hash = await sendEth(to, "1.5");

    const first = await verify(owner, { txHash: hash, environment: "TEST" });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      txHash: hash,
      environment: "TEST",
      amountEth: "1.5",
      creditedEth: "1.5",
      alreadyCredited: false,
      balanceEth: "1.5",
      depositAddress: to,
      from: devAccount(5),
    });
    // Other test files mine blocks on the same chain in parallel: at least the required one.
    expect(first.body.confirmations).toBeGreaterThanOrEqual(1);
    expect(first.body.blockNumber).toMatch(/^\d+$/);

    const again = await verify(owner, { txHash: hash.toUpperCase().replace("0X", "0x"), environment: "TEST" });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ txHash: hash, amountEth: "1.5", creditedEth: "0", alreadyCredited: true, balanceEth: "1.5", ledgerEntryId: first.body.ledgerEntryId });

    const balance = await owner.call("GET", "/business/balance?environment=TEST");
    expect(balance.body.balanceEth).toBe("1.5");
    // TEST money never shows in LIVE.
    expect((await owner.call("GET", "/business/balance?environment=LIVE")).body.balanceEth).toBe("0");

    // A second, different deposit adds up.
    const second = await fundTestPool(owner, "0.25");
    expect(second).toMatchObject({ creditedEth: "0.25", balanceEth: "1.75" });
  });

  it("10 concurrent verifications of one deposit credit it exactly once", async () => {
    const owner = await signUp();
    const hash = await sendEth(await testDepositAddress(owner), "0.7");
    const results = await Promise.all(Array.from({ length: 10 }, () => verify(owner, { txHash: hash, environment: "TEST" })));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(results.filter((r) => r.body.alreadyCredited === false)).toHaveLength(1);
    expect(results.filter((r) => r.body.alreadyCredited === true)).toHaveLength(9);
    for (const r of results) expect(r.body.amountEth).toBe("0.7");
    expect(new Set(results.map((r) => r.body.ledgerEntryId)).size).toBe(1);
    const balance = await owner.call("GET", "/business/balance?environment=TEST");
    expect(balance.body.balanceEth).toBe("0.7");
  });

  it("refuses a transaction sent to another address (422 WRONG_RECIPIENT)", async () => {
    const owner = await signUp();
    const elsewhere = devAccount(9);
    const hash = await sendEth(elsewhere, "1");
    const r = await verify(owner, { txHash: hash, environment: "TEST" });
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({ code: "FUNDING_REJECTED", details: { reason: "WRONG_RECIPIENT", recipient: elsewhere, depositAddress: await testDepositAddress(owner) } });
    expect((await owner.call("GET", "/business/balance?environment=TEST")).body.balanceEth).toBe("0");
  });

  it("refuses another business's deposit, before and after that business verified it", async () => {
    const alice = await signUp();
    const mallory = await signUp();
    const hash = await sendEth(await testDepositAddress(alice), "2");

    const before = await verify(mallory, { txHash: hash, environment: "TEST" });
    expect(before.status).toBe(422);
    expect(before.body.error.details.reason).toBe("WRONG_RECIPIENT");

    expect((await verify(alice, { txHash: hash, environment: "TEST" })).body.creditedEth).toBe("2");

    const after = await verify(mallory, { txHash: hash, environment: "TEST" });
    expect(after.status).toBe(422);
    expect(after.body.error.details.reason).toBe("WRONG_RECIPIENT");
    expect((await mallory.call("GET", "/business/balance?environment=TEST")).body.balanceEth).toBe("0");
    expect((await alice.call("GET", "/business/balance?environment=TEST")).body.balanceEth).toBe("2");
  });

  it("refuses a reverted transaction (422 TX_REVERTED)", async () => {
    const owner = await signUp();
    const reverter = await deployReverter();
    // Explicit gas: estimation would refuse a call that reverts; the node mines it as failed.
    const { hash, receipt } = await sendTx({ to: reverter, valueEth: "1", gas: 100_000n });
    expect(receipt.status).toBe("reverted");
    const r = await verify(owner, { txHash: hash, environment: "TEST" });
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({ code: "FUNDING_REJECTED", details: { reason: "TX_REVERTED" } });
  });

  it("refuses a transaction that moved no ETH (422 ZERO_VALUE)", async () => {
    const owner = await signUp();
    const hash = await sendEth(await testDepositAddress(owner), "0");
    const r = await verify(owner, { txHash: hash, environment: "TEST" });
    expect(r.status).toBe(422);
    expect(r.body.error.details.reason).toBe("ZERO_VALUE");
  });

  it("refuses an unknown hash (422 TX_NOT_FOUND)", async () => {
    const owner = await signUp();
    const r = await verify(owner, { txHash: `0x${"ab".repeat(32)}`, environment: "TEST" });
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({ code: "FUNDING_REJECTED", message: expect.stringMatching(/not found/), details: { reason: "TX_NOT_FOUND" } });
  });

  it("malformed input → 400 VALIDATION_ERROR, nothing credited", async () => {
    const owner = await signUp();
    const hash = await sendEth(await testDepositAddress(owner), "1");
    for (const body of [
      { txHash: "0x1234", environment: "TEST" },
      { txHash: hash.slice(0, 65) + "g", environment: "TEST" },
      { txHash: hash.slice(2), environment: "TEST" },
      { txHash: `${hash}00`, environment: "TEST" },
      { txHash: 42, environment: "TEST" },
      { environment: "TEST" },
      { txHash: hash, environment: "MAINNET" },
      { txHash: hash, environment: "TEST", amountEth: "100" },
    ]) {
      const r = await verify(owner, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
    expect((await owner.call("GET", "/business/balance?environment=TEST")).body.balanceEth).toBe("0");
  });

  it("LIVE without CHAIN_RPC_URL → 503 CHAIN_UNAVAILABLE (and environment defaults to LIVE)", async () => {
    const owner = await signUp();
    const hash = await sendEth(await testDepositAddress(owner), "1");
    const r = await verify(owner, { txHash: hash });
    expect(r.status).toBe(503);
    expect(r.body.error).toMatchObject({ code: "CHAIN_UNAVAILABLE", message: expect.stringMatching(/CHAIN_RPC_URL/) });
    expect((await owner.call("GET", "/business/balance?environment=TEST")).body.balanceEth).toBe("0");
  });

  it("is owner-only: a member gets 403 NOT_OWNER but may read the balance", async () => {
    const owner = await signUp();
    const memberEmail = uniqueEmail("member");
    const invited = await owner.call("POST", "/business/members", { email: memberEmail });
    expect(invited.status).toBe(200);
    const member = await signUp({ email: memberEmail, inviteUrl: invited.body.inviteUrl });
    const hash = await sendEth(await testDepositAddress(owner), "1");
    const r = await verify(member, { txHash: hash, environment: "TEST" });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("NOT_OWNER");
    const b = await member.call("GET", "/business/balance?environment=TEST");
    expect(b.status).toBe(200);
    expect(b.body.depositAddress).toBe(await testDepositAddress(owner));
    expect(b.body.balanceEth).toBe("0");
  });
});

describe("funding and the low-pool alert", () => {
  it("a reward debit below lowPoolAlertEth raises the flag; a verified deposit lifts it", async () => {
    const owner = await signUp();
    expect((await owner.call("PATCH", "/business/config/spend", { lowPoolAlertEth: "0.5" })).status).toBe(200);
    await fundTestPool(owner, "1");
    const { secret } = await createKey(owner, "TEST");
    const p = await sdk(secret, "POST", "/sdk/participants", { email: uniqueEmail("referrer") });
    expect(p.status).toBe(200);
    const reward = await owner.call("POST", "/business/rewards", { recipient: p.body.participantId, amountEth: "0.6", reason: "thanks", environment: "TEST" });
    expect(reward.status, JSON.stringify(reward.body)).toBe(200);

    const low = await owner.call("GET", "/business/balance?environment=TEST");
    expect(low.body).toMatchObject({ balanceEth: "0.4", lowPoolAlertEth: "0.5", belowLowPoolAlert: true });

    const topUp = await fundTestPool(owner, "2");
    expect(topUp.balanceEth).toBe("2.4");
    expect((await owner.call("GET", "/business/balance?environment=TEST")).body.belowLowPoolAlert).toBe(false);
    // LIVE is untouched by TEST movements.
    expect((await owner.call("GET", "/business/balance")).body).toMatchObject({ balanceEth: "0", belowLowPoolAlert: false });
  });
});

describe("POST /business/funding/test-deposit", () => {
  it("sends a real transaction from the dev account to the TEST deposit address; verify credits it", async () => {
    const owner = await signUp();
    const to = await testDepositAddress(owner);
    const before = await publicClient().getBalance({ address: to });
    const sent = await owner.call("POST", "/business/funding/test-deposit", { amountEth: "3.25" });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ environment: "TEST", amountEth: "3.25", from: devAccount(0), to });
    expect(sent.body.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await publicClient().getBalance({ address: to })) - before).toBe(3_250_000_000_000_000_000n);

    // Sending alone credits nothing: the pool is credited by the same verification as any deposit.
    expect((await owner.call("GET", "/business/balance?environment=TEST")).body.balanceEth).toBe("0");
    const v = await verify(owner, { txHash: sent.body.txHash, environment: "TEST" });
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ creditedEth: "3.25", balanceEth: "3.25", from: devAccount(0) });
  });

  it("concurrent test deposits all land (the node assigns nonces)", async () => {
    const owner = await signUp();
    const sent = await Promise.all(Array.from({ length: 5 }, () => owner.call("POST", "/business/funding/test-deposit", { amountEth: "0.1" })));
    expect(sent.map((r) => r.status)).toEqual(Array(5).fill(200));
    expect(new Set(sent.map((r) => r.body.txHash)).size).toBe(5);
    const credited = await Promise.all(sent.map((r) => verify(owner, { txHash: r.body.txHash, environment: "TEST" })));
    expect(credited.map((r) => r.status)).toEqual(Array(5).fill(200));
    expect((await owner.call("GET", "/business/balance?environment=TEST")).body.balanceEth).toBe("0.5");
  });

  it("validates the amount (> 0, ≤ 100 ETH, ≤ 18 decimals) and is owner-only", async () => {
    const owner = await signUp();
    for (const amountEth of ["0", "0.000", "-1", "100.000000000000000001", "101", "1e3", "0.0000000000000000001", "", 5]) {
      const r = await owner.call("POST", "/business/funding/test-deposit", { amountEth });
      expect(r.status, String(amountEth)).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
    const memberEmail = uniqueEmail("member");
    const invited = await owner.call("POST", "/business/members", { email: memberEmail });
    const member = await signUp({ email: memberEmail, inviteUrl: invited.body.inviteUrl });
    expect((await member.call("POST", "/business/funding/test-deposit", { amountEth: "1" })).status).toBe(403);
  });
});
