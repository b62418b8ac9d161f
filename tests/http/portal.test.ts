// The referrer's portal over HTTP, against the production build and its own local chain: portal
// sessions (201, publishable key 403, unknown participant 404), the link's cookie exchange and
// redirect, cookie and bearer auth, revocation (by DELETE and with the key), CORS for the
// business's origins, framing headers of the portal and of the embed, and the wallet step with a
// real private key whose verified address then receives a payout under requireVerifiedWallet;
// the paste flow (a signature made elsewhere, pasted with line breaks; a wrong one refused 400),
// the portal's story fields, the proof line, and bonusRequiresWallet through the REST face.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { devAccount } from "../support/chain";
import { deployContractWallet } from "../support/contract-wallet";
import { createKey, request, uniqueEmail } from "../support/http";
import { balanceOf, earn, fund, payoutBusiness, referrerWithWallet, runPayouts, startChainApp, type ChainApp } from "./payouts-helpers";

describe("portal", () => {
  let c: ChainApp;
  beforeAll(async () => {
    c = await startChainApp();
  });
  afterAll(() => c?.stop());

  const at = (path: string, headers: Record<string, string> = {}, method = "GET", body?: unknown) => request(c.app.url, method, path, body, headers);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it("sessions: created by a secret key, opened as a cookie without the token in the URL, refused once revoked", async () => {
    const b = await payoutBusiness(c);
    await fund(c, b.owner, "1");
    const ref = await referrerWithWallet(b, null);
    await earn(b, ref.referralCode, "jane.doe@example.com");

    const s = await b.sdk("POST", "/sdk/participants/portal-sessions", { participantId: ref.participantId, expiresInSeconds: 600, returnUrl: "https://shop.example/account" });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    expect(Object.keys(s.body).sort()).toEqual(["expiresAt", "participantId", "token", "url"]);
    expect(s.body.participantId).toBe(ref.participantId);
    const expiresIn = Date.parse(s.body.expiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(500_000);
    expect(expiresIn).toBeLessThanOrEqual(600_000);

    // Validation, unknown participant, publishable key.
    expect((await b.sdk("POST", "/sdk/participants/portal-sessions", { userId: "nobody" })).status).toBe(404);
    for (const bad of [{}, { userId: "x", expiresInSeconds: 30 }, { userId: "x", expiresInSeconds: 86_401 }, { userId: "x", returnUrl: "javascript:alert(1)" }, { userId: "x", other: 1 }]) {
      const r = await b.sdk("POST", "/sdk/participants/portal-sessions", bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
    const pub = await createKey(b.owner, "TEST", { kind: "PUBLISHABLE", allowedOrigins: ["https://shop.example"] });
    const denied = await request(c.app.url, "POST", "/sdk/participants/portal-sessions", { participantId: ref.participantId }, { "x-api-key": pub.secret, origin: "https://shop.example" });
    expect(denied.status).toBe(403);
    // A secret key without the participants:write scope cannot open a portal either.
    const trackOnly = await createKey(b.owner, "TEST", { scopes: ["track"] });
    const noScope = await request(c.app.url, "POST", "/sdk/participants/portal-sessions", { participantId: ref.participantId }, { "x-api-key": trackOnly.secret });
    expect(noScope.status, JSON.stringify(noScope.body)).toBe(403);

    // Opening the link: a cookie for /portal and a redirect that no longer carries the token.
    const open = await fetch(s.body.url.replace(/^https?:\/\/[^/]+/, c.app.url), { redirect: "manual" });
    expect(open.status).toBe(303);
    expect(open.headers.get("location")).toBe("/portal");
    const cookie = open.headers.get("set-cookie")!;
    expect(cookie).toContain(`portal_session=${s.body.token}`);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\/portal/);
    const jar = { cookie: cookie.split(";")[0] };

    const me = await at("/portal/api/me", jar);
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body).toMatchObject({ participantId: ref.participantId, referralCode: ref.referralCode, returnUrl: "https://shop.example/account", earnings: { earnedEth: "0.01", payableEth: "0.01" } });
    const viaBearer = await at("/portal/api/referrals", bearer(s.body.token));
    expect(viaBearer.status).toBe(200);
    expect(viaBearer.body.data).toHaveLength(1);
    expect(viaBearer.body.data[0].referred).toBe("j•••@example.com");
    expect(JSON.stringify(viaBearer.body)).not.toContain("jane.doe");
    expect(viaBearer.body.nextCursor).toBeNull();
    for (const path of ["/portal/api/rewards", "/portal/api/payouts"]) {
      const r = await at(path, bearer(s.body.token));
      expect(r.status, path).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual(["data", "nextCursor"]);
    }
    const page = await fetch(`${c.app.url}/portal`, { headers: jar });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(ref.referralCode);
    expect(html).not.toContain("jane.doe");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");

    // Without a session, or with a wrong one: 401 in the error shape.
    for (const h of [{}, bearer("pt_test_nope"), { cookie: "portal_session=garbage" }] as Array<Record<string, string>>) {
      const r = await at("/portal/api/me", h);
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("UNAUTHENTICATED");
    }

    // Revoked: the very next request is refused, cookie and bearer alike.
    const del = await b.sdk("DELETE", `/sdk/participants/portal-sessions/${s.body.token}`);
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect((await at("/portal/api/me", jar)).status).toBe(401);
    expect((await at("/portal/api/me", bearer(s.body.token))).status).toBe(401);
    expect((await b.sdk("DELETE", "/sdk/participants/portal-sessions/pt_test_unknown")).status).toBe(404);

    // Revoking the key that made a session ends it too.
    const k2 = await createKey(b.owner, "TEST");
    const s2 = await request(c.app.url, "POST", "/sdk/participants/portal-sessions", { participantId: ref.participantId }, { "x-api-key": k2.secret });
    expect(s2.status).toBe(201);
    expect((await at("/portal/api/me", bearer(s2.body.token))).status).toBe(200);
    expect((await b.owner.call("DELETE", `/business/api-keys/${k2.apiKeyId}`)).status).toBe(200);
    expect((await at("/portal/api/me", bearer(s2.body.token))).status).toBe(401);

    // Another business's key cannot open or revoke this participant's portal.
    const other = await payoutBusiness(c);
    expect((await other.sdk("POST", "/sdk/participants/portal-sessions", { participantId: ref.participantId })).status).toBe(404);
    const s3 = await b.sdk("POST", "/sdk/participants/portal-sessions", { participantId: ref.participantId });
    expect((await other.sdk("DELETE", `/sdk/participants/portal-sessions/${s3.body.token}`)).status).toBe(404);
    expect((await at("/portal/api/me", bearer(s3.body.token))).status).toBe(200);
  });

  it("CORS answers the business's origins only; the embed may be framed by them, no other portal page by anyone", async () => {
    const b = await payoutBusiness(c);
    await createKey(b.owner, "TEST", { allowedOrigins: ["https://shop.example"] });
    const ref = await referrerWithWallet(b, null);
    const s = await b.sdk("POST", "/sdk/participants/portal-sessions", { participantId: ref.participantId });
    const ok = await at("/portal/api/me", { ...bearer(s.body.token), origin: "https://shop.example" });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    const evil = await at("/portal/api/me", { ...bearer(s.body.token), origin: "https://evil.example" });
    expect(evil.headers.get("access-control-allow-origin")).toBeNull();
    const pre = await fetch(`${c.app.url}/portal/api/me`, { method: "OPTIONS", headers: { origin: "https://shop.example", "access-control-request-method": "GET", "access-control-request-headers": "authorization" } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-headers")).toMatch(/authorization/i);

    const embed = await fetch(`${c.app.url}/portal/embed?token=${s.body.token}`);
    expect(embed.status).toBe(200);
    const csp = embed.headers.get("content-security-policy")!;
    expect(csp).toMatch(/frame-ancestors https:\/\/shop\.example(;|$)/);
    expect(embed.headers.get("x-frame-options")).toBeNull();
    expect(await embed.text()).toContain(ref.referralCode);
    const expired = await fetch(`${c.app.url}/portal/embed?token=pt_test_nope`);
    expect(expired.status).toBe(401);
    expect(expired.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    for (const path of ["/portal", "/portal/open", "/portal/api/me"]) {
      const r = await fetch(`${c.app.url}${path}`, { redirect: "manual" });
      expect(r.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
    }
  });

  it("wallet by signature: refusals leave the wallet unchanged; a verified wallet receives the payout under requireVerifiedWallet", async () => {
    const b = await payoutBusiness(c, { rewardEth: "0.01", spend: { requireVerifiedWallet: true } });
    await fund(c, b.owner, "1");
    const account = privateKeyToAccount(generatePrivateKey());
    const stranger = privateKeyToAccount(generatePrivateKey());
    // The integration set a wallet through the SDK: not verified, so not paid.
    const ref = await referrerWithWallet(b, stranger.address);
    await earn(b, ref.referralCode);
    expect(await runPayouts(b)).toEqual([]);

    const s = await b.sdk("POST", "/sdk/participants/portal-sessions", { participantId: ref.participantId });
    const auth = bearer(s.body.token);
    const challenge = await at("/portal/api/wallet/challenge", auth, "POST", { address: account.address });
    expect(challenge.status, JSON.stringify(challenge.body)).toBe(200);
    expect(Object.keys(challenge.body).sort()).toEqual(["expiresAt", "message", "nonce"]);
    expect(challenge.body.message).toContain(`URI: ${c.app.url}/portal`);
    expect(challenge.body.message).toContain("Chain ID: 31337");
    const message = challenge.body.message as string;
    expect((await at("/portal/api/wallet/challenge", auth, "POST", { address: "0x123" })).status).toBe(400);

    const wrongKey = await at("/portal/api/wallet", auth, "POST", { message, signature: await stranger.signMessage({ message }) });
    expect(wrongKey.status, JSON.stringify(wrongKey.body)).toBe(400);
    expect(wrongKey.body.error.code).toBe("INVALID_SIGNATURE");
    const wrongChain = message.replace("Chain ID: 31337", "Chain ID: 1");
    const chainRefused = await at("/portal/api/wallet", auth, "POST", { message: wrongChain, signature: await account.signMessage({ message: wrongChain }) });
    expect(chainRefused.status).toBe(400);
    expect(chainRefused.body.error.code).toBe("INVALID_CHALLENGE");
    expect((await at("/portal/api/me", auth)).body.wallet).toMatchObject({ address: stranger.address, verified: false, verificationRequired: true });

    const signature = await account.signMessage({ message });
    const ok = await at("/portal/api/wallet", auth, "POST", { message, signature });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ walletAddress: account.address, walletVerified: true });
    expect((await at("/portal/api/wallet", auth, "POST", { message, signature })).body.error.code).toBe("INVALID_CHALLENGE");
    const detail = await b.owner.call("GET", `/business/participants/${ref.participantId}`);
    expect(detail.body).toMatchObject({ walletAddress: account.address, walletVerified: true });

    const payouts = await runPayouts(b);
    expect(payouts).toHaveLength(1);
    expect(payouts[0]).toMatchObject({ status: "CONFIRMED", walletAddress: account.address, amountEth: "0.01" });
    expect(await balanceOf(c, account.address)).toBe(parseEther("0.01"));
    const listed = await at("/portal/api/payouts", auth);
    expect(listed.body.data[0]).toMatchObject({ status: "CONFIRMED", statusText: "Paid out", txHash: payouts[0].txHash, walletAddress: account.address });

    // A wallet verified by one participant is refused to another of the same business.
    const second = await b.sdk("POST", "/sdk/participants", { userId: `p-${uniqueEmail()}` });
    const s2 = await b.sdk("POST", "/sdk/participants/portal-sessions", { participantId: second.body.participantId });
    const c2 = await at("/portal/api/wallet/challenge", bearer(s2.body.token), "POST", { address: account.address });
    const taken = await at("/portal/api/wallet", bearer(s2.body.token), "POST", { message: c2.body.message, signature: await account.signMessage({ message: c2.body.message }) });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe("WALLET_IN_USE");

    // The dashboard changes the wallet: unverified again, shown so.
    const owner2 = await b.owner.call("PATCH", `/business/participants/${ref.participantId}`, { walletAddress: stranger.address });
    expect(owner2.body).toMatchObject({ walletAddress: stranger.address, walletVerified: false });
  });

  it("wallet by signature, EIP-1271: a contract wallet's owner signs for it; another key's signature is refused", async () => {
    const b = await payoutBusiness(c, { spend: { requireVerifiedWallet: true } });
    const owner = privateKeyToAccount(generatePrivateKey());
    const stranger = privateKeyToAccount(generatePrivateKey());
    const contract = await deployContractWallet(c.rpc, devAccount(4), owner.address);
    const ref = await referrerWithWallet(b, null);
    const s = await b.sdk("POST", "/sdk/participants/portal-sessions", { participantId: ref.participantId });
    const auth = bearer(s.body.token);

    // A signature by some other key: the contract answers 0xffffffff, the wallet stays unset.
    const c1 = await at("/portal/api/wallet/challenge", auth, "POST", { address: contract });
    expect(c1.status, JSON.stringify(c1.body)).toBe(200);
    const refused = await at("/portal/api/wallet", auth, "POST", { message: c1.body.message, signature: await stranger.signMessage({ message: c1.body.message }) });
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.error.code).toBe("INVALID_SIGNATURE");
    expect((await at("/portal/api/me", auth)).body.wallet).toMatchObject({ address: null, verified: false });

    // The owner's signature: isValidSignature answers 0x1626ba7e through the environment's chain.
    const c2 = await at("/portal/api/wallet/challenge", auth, "POST", { address: contract });
    const ok = await at("/portal/api/wallet", auth, "POST", { message: c2.body.message, signature: await owner.signMessage({ message: c2.body.message }) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ walletAddress: contract, walletVerified: true });
    expect(ok.body.walletVerifiedAt).toEqual(expect.any(String));
    // The owner's own address is not what was verified: the contract is the payout wallet.
    expect((await at("/portal/api/me", auth)).body.wallet).toMatchObject({ address: contract, verified: true });
  });

  it("paste flow: a signature made in another wallet and pasted (spaces, line breaks) verifies the EOA; a wrong or malformed one is refused 400 and changes nothing", async () => {
    const b = await payoutBusiness(c);
    const account = privateKeyToAccount(generatePrivateKey());
    const other = privateKeyToAccount(generatePrivateKey());
    const ref = await referrerWithWallet(b, null);
    const s = await b.sdk("POST", "/sdk/participants/portal-sessions", { participantId: ref.participantId });
    const auth = bearer(s.body.token);
    const ch = await at("/portal/api/wallet/challenge", auth, "POST", { address: account.address });
    expect(ch.status, JSON.stringify(ch.body)).toBe(200);
    const message = ch.body.message as string;

    // Another key's signature of the same message, and one of another text: 400 INVALID_SIGNATURE.
    for (const signature of [await other.signMessage({ message }), await account.signMessage({ message: `${message}\n` })]) {
      const wrong = await at("/portal/api/wallet", auth, "POST", { message, signature });
      expect(wrong.status, JSON.stringify(wrong.body)).toBe(400);
      expect(wrong.body.error.code).toBe("INVALID_SIGNATURE");
    }
    // Not a signature at all: 400 VALIDATION_ERROR.
    const garbage = await at("/portal/api/wallet", auth, "POST", { message, signature: "signed!" });
    expect(garbage.status).toBe(400);
    expect(garbage.body.error.code).toBe("VALIDATION_ERROR");
    expect((await at("/portal/api/me", auth)).body.wallet).toMatchObject({ address: null, verified: false });

    // The right signature, as pasted from a wallet's screen.
    const pasted = `  ${await account.signMessage({ message })}\n`;
    const ok = await at("/portal/api/wallet", auth, "POST", { message, signature: pasted });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ walletAddress: account.address, walletVerified: true });
    expect((await at("/portal/api/me", auth)).body.wallet).toMatchObject({ address: account.address, verified: true });
  });

  it("the story: rewards say what for, referrals count and say refunds, earnings per month, the proof line; bonusRequiresWallet over REST", async () => {
    const b = await payoutBusiness(c, { general: { bonusEth: "0.002" } });
    await fund(c, b.owner, "1");
    const ref = await referrerWithWallet(b);
    const bo = uniqueEmail("bo");
    await earn(b, ref.referralCode, bo);
    const s = await b.sdk("POST", "/sdk/participants/portal-sessions", { participantId: ref.participantId });
    const auth = bearer(s.body.token);

    const proof = await b.owner.call("POST", "/business/proofs", { environment: "TEST" });
    expect(proof.status, JSON.stringify(proof.body)).toBe(200);
    const me = await at("/portal/api/me", auth);
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body).toMatchObject({ audience: "REFERRER", referrals: { total: 1, notCounted: 0 }, earnings: { earnedEth: "0.01" } });
    expect(me.body.earningsByMonth).toEqual([{ month: new Date().toISOString().slice(0, 7), earnedEth: "0.01" }]);
    expect(me.body.proof).toMatchObject({ blockNumber: proof.body.blockNumber, covered: true, yourShareIncluded: true, yourOwedEth: "0.01" });
    expect(me.body.proof.verifyUrl).toMatch(/\/proofs\/[^/]+\/TEST\/latest$/);
    expect((await request(me.body.proof.verifyUrl, "GET", "", undefined, { accept: "application/json" })).status).toBe(200);

    const rewards = await at("/portal/api/rewards", auth);
    expect(rewards.body.data[0]).toMatchObject({ kind: "REFERRAL", forWhat: { referred: "b•••@example.com", eventName: "purchase", purchaseAmount: null, commissionPercent: null }, description: "Referral reward: b•••@example.com joined (purchase)" });
    const referrals = await at("/portal/api/referrals", auth);
    expect(referrals.body.data[0]).toMatchObject({ counted: true, reversedAt: null, refundedEth: "0", statusText: "Rewarded" });

    // The referred customer's own portal: a customer's page data, owed their bonus.
    const customer = await b.sdk("POST", "/sdk/participants/portal-sessions", { email: bo });
    expect(customer.status, JSON.stringify(customer.body)).toBe(201);
    const cme = await at("/portal/api/me", bearer(customer.body.token));
    expect(cme.body).toMatchObject({ audience: "CUSTOMER", wallet: { address: null }, earnings: { earnedEth: "0.002" } });
    const queue = await b.owner.call("GET", "/business/payouts/queue?environment=TEST");
    expect(queue.body.customersWithoutWallet).toEqual({ count: 1, eth: "0.002" });

    // bonusRequiresWallet: per environment, default false, answered under general.
    expect((await b.owner.call("GET", "/business/config?environment=TEST")).body.general.bonusRequiresWallet).toBe(false);
    const on = await b.owner.call("PATCH", "/business/config/general", { environment: "TEST", bonusRequiresWallet: true });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body.general.bonusRequiresWallet).toBe(true);
    expect((await b.owner.call("GET", "/business/config?environment=LIVE")).body.general.bonusRequiresWallet).toBe(false);
    const bad = await b.owner.call("PATCH", "/business/config/general", { environment: "TEST", bonusRequiresWallet: "yes" });
    expect(bad.status).toBe(400);
    const t = await b.sdk("POST", "/track", { eventName: "purchase", referrer: ref.referralCode, metadata: { referredUserEmail: uniqueEmail("cy") } });
    expect(t.body.rewards.map((r: { kind: string }) => r.kind)).toEqual(["REFERRAL"]);
  });
});
