// Proofs of liabilities over HTTP, against the production build and its own local chain: the owner
// publishes a proof, anyone reads it without authentication (no leaves in it), a participant gets
// their leaf and path from the portal (staff from the participants route), and the SDK's
// verifyLiabilityProof checks signature, inclusion and the balance at the proof's block against the
// test chain's RPC; tampered leaves and amounts fail; a pool short of what is owed is published
// covered: false and raises the low-pool alert; a payout run publishes a fresh proof by itself.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEther } from "viem";
import { verifyLiabilityProof } from "../../sdk/src/proofs";
import { request, signUp, uniqueEmail } from "../support/http";
import { earn, fund, mineBlocks, payoutBusiness, referrerWithWallet, rpcCall, runPayouts, startChainApp, type ChainApp } from "./payouts-helpers";

describe("proofs of liabilities", () => {
  let c: ChainApp;
  beforeAll(async () => {
    c = await startChainApp();
  });
  afterAll(() => c?.stop());

  const at = (path: string, headers: Record<string, string> = {}) => request(c.app.url, "GET", path, undefined, headers);

  it("an inclusion proof from the portal verifies in the SDK against the chain; tampering fails; the public proof carries no leaf", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01" });
    await fund(c, b.owner, "1");
    const alice = await referrerWithWallet(b, null);
    const bob = await referrerWithWallet(b, null);
    await earn(b, alice.referralCode);
    await earn(b, alice.referralCode);
    await earn(b, bob.referralCode);

    const invited = uniqueEmail("member");
    const invite = await b.owner.call("POST", "/business/members", { email: invited, role: "MEMBER" });
    expect(invite.status, JSON.stringify(invite.body)).toBe(200);
    const member = await signUp({ email: invited, inviteUrl: invite.body.inviteUrl, url: c.app.url });
    const refused = await member.call("POST", "/business/proofs", { environment: "TEST" });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("NOT_OWNER");
    expect((await b.owner.call("POST", "/business/proofs", { environment: "NOPE" })).status).toBe(400);

    const made = await b.owner.call("POST", "/business/proofs", { environment: "TEST" });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const proof = made.body;
    expect(proof).toMatchObject({ environment: "TEST", totalOwedWei: parseEther("0.03").toString(), poolBalanceWei: parseEther("1").toString(), covered: true, reason: "MANUAL", chainId: 31337 });
    expect(proof.participants).toBe(5);
    const deposit = (await b.owner.call("GET", "/business/balance?environment=TEST")).body.depositAddress;
    expect(proof.signer).toBe(deposit);

    // Public, no authentication: latest and by id; unknown → 404 in the error shape.
    const latest = await at(`/proofs/${proof.businessId}/TEST/latest`);
    expect(latest.status).toBe(200);
    expect(latest.body).toEqual(proof);
    expect((await at(`/proofs/${proof.businessId}/TEST/${proof.proofId}`)).body).toEqual(proof);
    expect(JSON.stringify(latest.body)).not.toContain(alice.participantId);
    for (const path of [`/proofs/${proof.businessId}/TEST/unknown-proof`, `/proofs/${proof.businessId}/LIVE/latest`, `/proofs/${proof.businessId}/BOGUS/latest`, `/proofs/no-such-business/TEST/latest`]) {
      const r = await at(path);
      expect(r.status, path).toBe(404);
      expect(r.body.error.code).toBe("NOT_FOUND");
    }

    // The participant's own leaf and path, from the portal.
    const s = await b.sdk("POST", "/sdk/participants/portal-sessions", { participantId: alice.participantId, expiresInSeconds: 600 });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    const mine = await at("/portal/api/proof", { authorization: `Bearer ${s.body.token}` });
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    expect(mine.body.proof).toEqual(proof);
    expect(mine.body.leaf).toMatchObject({ participantId: alice.participantId, owedWei: parseEther("0.02").toString() });
    // Staff see the same leaf and path.
    const staff = await member.call("GET", `/business/participants/${alice.participantId}/proof`);
    expect(staff.status).toBe(200);
    expect(staff.body).toEqual(mine.body);
    const other = await payoutBusiness(c);
    expect((await other.owner.call("GET", `/business/participants/${alice.participantId}/proof`)).status).toBe(404);

    const verdict = await verifyLiabilityProof({ proof: latest.body, leaf: mine.body.leaf, path: mine.body.path, rpcUrl: c.rpc, expectedSigner: deposit });
    expect(verdict.problems).toEqual([]);
    expect(verdict).toMatchObject({ ok: true, signatureValid: true, included: true, balanceMatches: true, covered: true, onChainBalanceWei: parseEther("1") });

    // A tampered leaf amount, another participant's key, a tampered total: each fails.
    const leaf = mine.body.leaf;
    const tamperedLeaf = await verifyLiabilityProof({ proof: latest.body, leaf: { ...leaf, owedWei: parseEther("0.5").toString() }, path: mine.body.path, rpcUrl: c.rpc });
    expect(tamperedLeaf).toMatchObject({ ok: false, included: false, signatureValid: true });
    const wrongKey = await verifyLiabilityProof({ proof: latest.body, leaf: { ...leaf, participantId: bob.participantId }, path: mine.body.path, rpcUrl: c.rpc });
    expect(wrongKey).toMatchObject({ ok: false, included: false });
    const tamperedTotal = await verifyLiabilityProof({ proof: { ...latest.body, totalOwedWei: "1" }, leaf, path: mine.body.path, rpcUrl: c.rpc });
    expect(tamperedTotal).toMatchObject({ ok: false, signatureValid: false });
    const wrongSigner = await verifyLiabilityProof({ proof: latest.body, leaf, path: mine.body.path, rpcUrl: c.rpc, expectedSigner: "0x0000000000000000000000000000000000000001" });
    expect(wrongSigner).toMatchObject({ ok: false, signatureValid: false });

    // The business moves ETH out of the deposit address: the next proof is published, not covered, and alerts.
    // (A new block first: the earlier proof stays about its own block's state.)
    await mineBlocks(c, 1);
    await rpcCall(c, "hardhat_setBalance", [deposit, `0x${parseEther("0.01").toString(16)}`]);
    // Mined into a block of its own, so a read at the latest block number sees it whatever the
    // node does with state set between blocks.
    await mineBlocks(c, 1);
    const short = await b.owner.call("POST", "/business/proofs", { environment: "TEST" });
    expect(short.status, JSON.stringify(short.body)).toBe(200);
    expect(short.body).toMatchObject({ covered: false, poolBalanceWei: parseEther("0.01").toString(), totalOwedWei: parseEther("0.03").toString() });
    expect((await at(`/proofs/${proof.businessId}/TEST/latest`)).body.proofId).toBe(short.body.proofId);
    const alerts = await b.owner.call("GET", "/business/alerts?environment=TEST&kind=LOW_POOL");
    expect(alerts.status).toBe(200);
    expect(alerts.body.data).toHaveLength(1);
    expect(alerts.body.data[0].message).toBe("Pool balance 0.01 ETH fell below the alert threshold of 0.03 ETH");
    const shortMine = await at("/portal/api/proof", { authorization: `Bearer ${s.body.token}` });
    const shortVerdict = await verifyLiabilityProof({ proof: short.body, leaf: shortMine.body.leaf, path: shortMine.body.path, rpcUrl: c.rpc });
    expect(shortVerdict).toMatchObject({ ok: false, signatureValid: true, included: true, balanceMatches: true, covered: false });
    // The earlier proof still verifies: it is about its own block.
    expect((await verifyLiabilityProof({ proof: latest.body, leaf, path: mine.body.path, rpcUrl: c.rpc })).ok).toBe(true);
  }, 180_000);

  it("a payout run publishes a fresh proof of what is still owed (a LIABILITY_PROOF job)", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01" });
    await fund(c, b.owner, "1");
    const ref = await referrerWithWallet(b);
    await earn(b, ref.referralCode);
    const paid = await runPayouts(b);
    expect(paid).toHaveLength(1);
    const businessId = (await b.owner.call("GET", "/business/me")).body.business.businessId;
    let latest: { status: number; body: any } | undefined;
    for (let i = 0; i < 100; i++) {
      latest = await at(`/proofs/${businessId}/TEST/latest`);
      if (latest.status === 200 && latest.body.reason === "PAYOUT") break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(latest?.body).toMatchObject({ reason: "PAYOUT", totalOwedWei: "0", covered: true });
  });
});
