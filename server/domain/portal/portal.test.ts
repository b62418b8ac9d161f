// The portal's access rules, in process: a session reads one participant of one business and
// environment and nothing else (every pair tried), a revoked or expired session or one whose key
// was revoked is refused at once, other people are masked on every field, and the wallet step
// (Sign-In with Ethereum with a real private key) refuses reuse, expiry, and foreign messages, and
// every wallet it sets is in the business's audit log.
import { describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage, parseSiweMessage } from "viem/siwe";
import { db } from "../../db/client";
import { createApiKey, revokeApiKey } from "../api-keys/service";
import { upsertParticipant } from "../participants/service";
import { updateParticipantWallet, updateParticipantInput } from "../payouts/wallet";
import type { Scope } from "../../shared/scope";
import { domainBusiness, trackReferral, uniqueEmail } from "../../../tests/support/domain";
import { env } from "../../shared/env";
import { updateGeneralConfig } from "../config/service";
import { updateGeneralInput } from "../config/schemas";
import { flushClicks } from "../links/clicks";
import { followLink } from "../links/redirect";
import { maskEmail, maskName } from "./mask";
import { portalMe, portalPayouts, portalReferrals, portalRewards } from "./read";
import { createPortalSessionInput, portalListInput } from "./schemas";
import { authenticatePortalToken, createPortalSession, revokePortalSession } from "./sessions";
import { createWalletChallenge, verifyWalletSignature } from "./wallet";

const list = portalListInput.parse({});
const session = (scope: Scope, body: Record<string, unknown>) => createPortalSession(scope, createPortalSessionInput.parse(body));
const authOf = async (token: string) => (await authenticatePortalToken(token))!;

/** A referrer with two referred people (named, emailed) who earned a reward, in one scope. */
async function referrer(scope: Scope, tag: string) {
  const p = await upsertParticipant(scope, { userId: `${tag}-user`, email: uniqueEmail(tag), name: `${tag} Referrer` });
  const friendEmail = uniqueEmail(`${tag}friend`);
  await trackReferral(scope, p.referralCode, { referredUserEmail: friendEmail });
  await db.participant.updateMany({ where: { email: friendEmail }, data: { name: `${tag} Friendname` } });
  return { ...p, friendEmail, friendName: `${tag} Friendname` };
}

async function world() {
  const a = await domainBusiness({ fundEth: "1" });
  const b = await domainBusiness({ fundEth: "1" });
  const live = await createApiKey(a.businessId, { environment: "LIVE", name: "live" });
  const aLive: Scope = { businessId: a.businessId, environment: "LIVE", apiKeyId: live.apiKeyId };
  const cells = {
    a1: { scope: a.scope, who: await referrer(a.scope, "aone") },
    a2: { scope: a.scope, who: await referrer(a.scope, "atwo") },
    aLive: { scope: aLive, who: await upsertParticipant(aLive, { userId: "aone-user", email: uniqueEmail("alive") }) },
    b1: { scope: b.scope, who: await referrer(b.scope, "bone") },
  };
  return { a, b, aLive, liveKeyId: live.apiKeyId, cells };
}

describe("portal sessions", () => {
  it("are created for a participant of the key's own business and environment only", async () => {
    const w = await world();
    const s = await session(w.a.scope, { userId: "aone-user", returnUrl: "https://shop.example/account" });
    expect(s).toMatchObject({ participantId: w.cells.a1.who.participantId });
    expect(s.url).toContain("/portal/open?token=");
    expect(s.token).toMatch(/^pt_test_/);
    expect(Date.parse(s.expiresAt) - Date.now()).toBeGreaterThan(3_500_000);
    // The token is stored hashed only.
    const row = await db.portalSession.findFirstOrThrow({ where: { participantId: s.participantId } });
    expect(row.tokenHash).not.toContain(s.token);
    expect(JSON.stringify(row)).not.toContain(s.token);

    expect((await session(w.a.scope, { email: w.cells.a2.who.email })).participantId).toBe(w.cells.a2.who.participantId);
    // Same userId in LIVE is another participant; B's participant is unknown to A.
    expect((await session(w.aLive, { userId: "aone-user" })).participantId).toBe(w.cells.aLive.who.participantId);
    await expect(session(w.a.scope, { participantId: w.cells.b1.who.participantId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(session(w.a.scope, { participantId: w.cells.aLive.who.participantId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(session(w.aLive, { participantId: w.cells.a1.who.participantId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(session(w.a.scope, { userId: "nobody" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(() => createPortalSessionInput.parse({ userId: "x", expiresInSeconds: 59 })).toThrow();
    expect(() => createPortalSessionInput.parse({ userId: "x", expiresInSeconds: 86_401 })).toThrow();
    expect(() => createPortalSessionInput.parse({ expiresInSeconds: 60 })).toThrow();
    expect(() => createPortalSessionInput.parse({ userId: "x", returnUrl: "javascript:alert(1)" })).toThrow();
  });

  it("are refused on the next request once revoked, expired, or their key revoked", async () => {
    const w = await world();
    const s1 = await session(w.a.scope, { userId: "aone-user" });
    expect(await authenticatePortalToken(s1.token)).toMatchObject({ participantId: w.cells.a1.who.participantId, businessId: w.a.businessId, environment: "TEST" });
    // Another business (or environment) cannot revoke it.
    await expect(revokePortalSession(w.b.scope, s1.token)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(revokePortalSession(w.aLive, s1.token)).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await authenticatePortalToken(s1.token)).not.toBeNull();
    expect(await revokePortalSession(w.a.scope, s1.token)).toMatchObject({ revoked: true });
    expect(await authenticatePortalToken(s1.token)).toBeNull();
    expect(await revokePortalSession(w.a.scope, s1.token)).toMatchObject({ revoked: true });

    const s2 = await session(w.a.scope, { userId: "aone-user", expiresInSeconds: 60 });
    expect(await authenticatePortalToken(s2.token, new Date(Date.now() + 59_000))).not.toBeNull();
    expect(await authenticatePortalToken(s2.token, new Date(Date.now() + 61_000))).toBeNull();

    const s3 = await session(w.aLive, { userId: "aone-user" });
    await revokeApiKey(w.a.businessId, w.liveKeyId);
    expect(await authenticatePortalToken(s3.token)).toBeNull();
    for (const bad of ["", "pt_test_short", s1.token.replace(/.$/, "x"), `${s3.token} `]) expect(await authenticatePortalToken(bad)).toBeNull();
  });

  it("never read across participants, businesses or environments (every pair), and mask everyone else", async () => {
    const w = await world();
    const cells = Object.entries(w.cells);
    for (const [name, cell] of cells) {
      const s = await session(cell.scope, { participantId: cell.who.participantId });
      const auth = await authOf(s.token);
      const me = await portalMe(auth);
      const reads = JSON.stringify([me, await portalReferrals(auth, list), await portalRewards(auth, list), await portalPayouts(auth, list)]);
      expect(me.participantId, name).toBe(cell.who.participantId);
      for (const [other, o] of cells) {
        if (other === name) continue;
        expect(reads, `${name} reads ${other}`).not.toContain(o.who.participantId);
        if (o.who.email) expect(reads, `${name} reads ${other}`).not.toContain(o.who.email);
        if (o.who.referralCode) expect(reads).not.toContain(o.who.referralCode);
      }
      // The people they referred: masked on every field, never a full email or name.
      if ("friendEmail" in cell.who) {
        expect(reads).not.toContain(cell.who.friendEmail);
        expect(reads).not.toContain(cell.who.friendName);
        expect(reads).not.toContain(cell.who.friendName.split(" ")[1]);
        const refs = await portalReferrals(auth, list);
        expect(refs.data).toHaveLength(1);
        expect(refs.data[0].referred).toBe(maskEmail(cell.who.friendEmail));
        expect(refs.data[0].referred).toMatch(/^.•••@example\.com$/);
        const rewards = await portalRewards(auth, list);
        expect(rewards.data.map((r) => [r.amountEth, r.statusText])).toEqual([["0.01", "Payable"]]);
        expect(me.earnings).toMatchObject({ earnedEth: "0.01", payableEth: "0.01", onHoldEth: "0", paidOutEth: "0" });
      }
      // A cursor of another participant's list is refused, not followed.
      const foreign = await db.referral.findFirst({ where: { NOT: { referrerId: cell.who.participantId } } });
      await expect(portalReferrals(auth, portalListInput.parse({ cursor: foreign!.id }))).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    }
    expect(maskEmail("john@example.com")).toBe("j•••@example.com");
    expect(maskName("John Smith")).toBe("J••• S.");
  });
});

describe("the wallet step (Sign-In with Ethereum)", () => {
  const chainId = 31337;
  async function setup() {
    const w = await world();
    const s = await session(w.a.scope, { userId: "aone-user" });
    return { w, auth: await authOf(s.token) };
  }

  it("sets a verified wallet from a real signature, once per nonce", async () => {
    const { w, auth } = await setup();
    const account = privateKeyToAccount(generatePrivateKey());
    const c = await createWalletChallenge(auth, account.address, { chainId });
    expect(c.message).toContain(`Chain ID: ${chainId}`);
    expect(c.message).toContain(`Nonce: ${c.nonce}`);
    expect(c.message).toContain(account.address);
    expect(Date.parse(c.expiresAt) - Date.now()).toBeLessThanOrEqual(600_000);
    const signature = await account.signMessage({ message: c.message });
    const out = await verifyWalletSignature(auth, { message: c.message, signature });
    expect(out).toMatchObject({ walletAddress: account.address, walletVerified: true });
    expect((await portalMe(auth)).wallet).toMatchObject({ address: account.address, verified: true });
    await expect(verifyWalletSignature(auth, { message: c.message, signature })).rejects.toMatchObject({ code: "INVALID_CHALLENGE" });

    // Replacing a verified wallet through the portal is in the business's audit log, before and after.
    const next = privateKeyToAccount(generatePrivateKey());
    const cn = await createWalletChallenge(auth, next.address, { chainId });
    await verifyWalletSignature(auth, { message: cn.message, signature: await next.signMessage({ message: cn.message }) }, { clientIp: "203.0.113.7" });
    const audit = await db.auditLog.findMany({ where: { businessId: w.a.businessId, action: "portal.wallet.verify" }, orderBy: { seq: "asc" } });
    expect(audit.map((a) => [a.target, JSON.parse(a.before!).walletAddress, JSON.parse(a.after!).walletAddress])).toEqual([
      [`participantId:${auth.participantId}`, null, account.address],
      [`participantId:${auth.participantId}`, account.address, next.address],
    ]);
    expect(JSON.parse(audit[1].before!)).toMatchObject({ walletVerified: true });
    expect(audit[1]).toMatchObject({ environment: "TEST", actorUserId: null, ipHash: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(audit[1].after).not.toContain("203.0.113.7");
    const back = await createWalletChallenge(auth, account.address, { chainId });
    await verifyWalletSignature(auth, { message: back.message, signature: await account.signMessage({ message: back.message }) });

    // Another participant of the same business and environment cannot verify it too.
    const other = await authOf((await session(w.a.scope, { userId: "atwo-user" })).token);
    const c2 = await createWalletChallenge(other, account.address, { chainId });
    await expect(verifyWalletSignature(other, { message: c2.message, signature: await account.signMessage({ message: c2.message }) })).rejects.toMatchObject({ code: "WALLET_IN_USE" });
    expect((await db.participant.findUniqueOrThrow({ where: { id: other.participantId } })).walletAddress).toBeNull();

    // A change through the SDK or the dashboard leaves the wallet unverified (database trigger).
    const fresh = privateKeyToAccount(generatePrivateKey()).address;
    await upsertParticipant(w.a.scope, { userId: "aone-user", walletAddress: fresh });
    expect((await portalMe(auth)).wallet).toMatchObject({ address: fresh, verified: false, verifiedAt: null });
    await updateParticipantWallet(w.a.businessId, updateParticipantInput.parse({ participantId: auth.participantId, walletAddress: account.address }));
    expect((await portalMe(auth)).wallet).toMatchObject({ address: account.address, verified: false });
  });

  it("refuses expired, foreign, tampered and cross-participant messages, wallet unchanged", async () => {
    const { w, auth } = await setup();
    const account = privateKeyToAccount(generatePrivateKey());
    const sign = (message: string) => account.signMessage({ message });
    const unchanged = async () => expect((await db.participant.findUniqueOrThrow({ where: { id: auth.participantId } })).walletAddress).toBeNull();

    const old = await createWalletChallenge(auth, account.address, { chainId, now: new Date(Date.now() - 11 * 60_000) });
    await expect(verifyWalletSignature(auth, { message: old.message, signature: await sign(old.message) })).rejects.toMatchObject({ code: "INVALID_CHALLENGE" });

    const c = await createWalletChallenge(auth, account.address, { chainId });
    const rewrite = (from: string, to: string) => c.message.replace(from, to);
    const host = c.message.split(" ")[0];
    for (const message of [rewrite(host, "evil.example"), rewrite(`Chain ID: ${chainId}`, "Chain ID: 1")]) {
      await expect(verifyWalletSignature(auth, { message, signature: await sign(message) })).rejects.toMatchObject({ code: "INVALID_CHALLENGE" });
    }
    // The challenge's own nonce in a message valid only later, or dated far from when it was issued.
    const fields = parseSiweMessage(c.message) as Parameters<typeof createSiweMessage>[0];
    const hour = 60 * 60_000;
    for (const changed of [{ notBefore: new Date(Date.now() + hour) }, { issuedAt: new Date(Date.now() - 24 * hour) }, { issuedAt: new Date(Date.now() + hour) }]) {
      const message = createSiweMessage({ ...fields, ...changed });
      await expect(verifyWalletSignature(auth, { message, signature: await sign(message) })).rejects.toMatchObject({ code: "INVALID_CHALLENGE" });
    }
    // Someone else's session cannot use this participant's nonce.
    const other = await authOf((await session(w.a.scope, { userId: "atwo-user" })).token);
    await expect(verifyWalletSignature(other, { message: c.message, signature: await sign(c.message) })).rejects.toMatchObject({ code: "INVALID_CHALLENGE" });
    // A message this portal never issued.
    const forged = createSiweMessage({ domain: host, address: account.address, uri: "https://x.example", version: "1", chainId, nonce: "abcdefgh12345678" });
    await expect(verifyWalletSignature(auth, { message: forged, signature: await sign(forged) })).rejects.toMatchObject({ code: "INVALID_CHALLENGE" });
    await unchanged();
    // A staff preview is read-only.
    await expect(createWalletChallenge({ ...auth, readOnly: true }, account.address, { chainId })).rejects.toMatchObject({ code: "FORBIDDEN" });
    // The nonce, unused by every refusal above, still works.
    expect(await verifyWalletSignature(auth, { message: c.message, signature: await sign(c.message) })).toMatchObject({ walletVerified: true });
  });
});

describe("share link, clicks and leaderboard", () => {
  it("the share link is the service's /r/ link once the environment has a link destination; the portal counts the participant's clicks", async () => {
    const b = await domainBusiness({ fundEth: "1" });
    await db.business.update({ where: { id: b.businessId }, data: { website: "https://shop.example/" } });
    const ann = await upsertParticipant(b.scope, { userId: "ann", email: uniqueEmail("ann") });
    const auth = await authOf((await session(b.scope, { participantId: ann.participantId })).token);
    const before = await portalMe(auth);
    expect(before.shareUrl).toBe(`https://shop.example/?ref=${ann.referralCode}`);
    expect(before.clicks).toEqual({ clicks: 0, uniqueClicks: 0, last30Days: 0 });

    await updateGeneralConfig(b.businessId, updateGeneralInput.parse({ environment: "TEST", linkDestinationUrl: "http://localhost:4000/" }));
    const visit = (ip: string, userAgent = "Mozilla/5.0 Firefox/133.0") =>
      followLink({ code: ann.referralCode, method: "GET", query: new URLSearchParams(), userAgent, ip, referer: null });
    await visit("10.1.0.1");
    await visit("10.1.0.1"); // same visitor, same hour: not counted
    await visit("10.1.0.2");
    await visit("10.1.0.3", "Twitterbot/1.0"); // a link preview: never counted
    await flushClicks();
    const after = await portalMe(auth);
    expect(after.shareUrl).toBe(`${env.appUrl}/r/${ann.referralCode}`);
    expect(after.clicks).toEqual({ clicks: 2, uniqueClicks: 2, last30Days: 2 });
  });

  it("the leaderboard is opt-in per environment, shows handles or masked names only, and the participant's own rank", async () => {
    const b = await domainBusiness({ fundEth: "1" });
    const tag = Math.random().toString(36).slice(2, 8);
    const alice = await upsertParticipant(b.scope, { userId: `alice-${tag}`, email: uniqueEmail("alice"), name: "Alice Winter", handle: `alice-${tag}` });
    const bob = await upsertParticipant(b.scope, { userId: `bob-${tag}`, email: uniqueEmail("bob"), name: "Bobby Stone" });
    const carol = await upsertParticipant(b.scope, { userId: `carol-${tag}`, email: uniqueEmail("carol"), name: "Carol Lake" });
    for (const code of [alice.referralCode, alice.referralCode, bob.referralCode]) expect((await trackReferral(b.scope, code)).status).toBe(200);
    const authFor = async (p: { participantId: string }) => authOf((await session(b.scope, { participantId: p.participantId })).token);
    const [aAuth, bAuth, cAuth] = [await authFor(alice), await authFor(bob), await authFor(carol)];

    expect((await portalMe(bAuth)).leaderboard).toBeNull(); // off by default
    await updateGeneralConfig(b.businessId, updateGeneralInput.parse({ environment: "LIVE", leaderboardEnabled: true }));
    expect((await portalMe(bAuth)).leaderboard).toBeNull(); // on for LIVE only
    await updateGeneralConfig(b.businessId, updateGeneralInput.parse({ environment: "TEST", leaderboardEnabled: true }));

    const board = (await portalMe(bAuth)).leaderboard!;
    expect(board.month).toBe(new Date().toISOString().slice(0, 7));
    expect(board.top).toEqual([
      { rank: 1, displayName: `alice-${tag}`, qualifiedReferrals: 2, you: false },
      { rank: 2, displayName: "B••• S.", qualifiedReferrals: 1, you: true },
    ]);
    expect(board.yourRank).toBe(2);
    expect((await portalMe(aAuth)).leaderboard).toMatchObject({ yourRank: 1 });
    expect((await portalMe(cAuth)).leaderboard).toMatchObject({ yourRank: null });
    // Nobody's name, email or id appears on anybody else's board.
    const seenByCarol = JSON.stringify((await portalMe(cAuth)).leaderboard);
    for (const p of [alice, bob]) {
      expect(seenByCarol).not.toContain(p.participantId);
      expect(seenByCarol).not.toContain(p.email!);
    }
    for (const word of ["Winter", "Bobby", "Stone", "Alice"]) expect(seenByCarol).not.toContain(word);
  });
});

describe("rewards after a partial refund", () => {
  it("the portal's reward says what the refund took back, as the business's reward does", async () => {
    const { createRule } = await import("../commissions/service");
    const { createRuleInput, updatePricingInput } = await import("../commissions/schemas");
    const { updatePricing } = await import("../commissions/pricing");
    const { acceptEvent } = await import("../tracking/service");
    const { reverseRewards } = await import("../reversals/reversals");
    const { reverseRewardsInput } = await import("../reversals/reversal-schemas");
    const b = await domainBusiness({ fundEth: "1", general: { qualifyingEvents: ["signup"] } });
    await updatePricing(b.businessId, updatePricingInput.parse({ environment: "TEST", source: "FIXED", rates: { USD: "3000" } }));
    await createRule(b.businessId, createRuleInput.parse({ environment: "TEST", name: "10 %", eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "10" }));
    const p = await upsertParticipant(b.scope, { userId: "refunds-user", email: uniqueEmail("refunds") });
    const email = uniqueEmail("buyer");
    await trackReferral(b.scope, p.referralCode, { referredUserEmail: email, eventName: "signup" });
    expect((await acceptEvent(b.scope, { eventName: "purchase", amount: "300.00", currency: "USD", metadata: { referredUserEmail: email } }, { mode: "SYNC" })).status).toBe(200);
    const event = await db.trackedEvent.findFirstOrThrow({ where: { businessId: b.businessId, eventName: "purchase", currency: "USD" } });
    expect((await reverseRewards(b.scope, reverseRewardsInput.parse({ eventId: event.id, amount: "90.00", reason: "partial refund" }))).status).toBe(200);

    const auth = await authOf((await session(b.scope, { userId: "refunds-user" })).token);
    const commission = (await portalRewards(auth, list)).data.find((r) => r.kind === "COMMISSION")!;
    expect([commission.amountEth, commission.reversedEth, commission.reversedAt]).toEqual(["0.01", "0.003", null]);
    const stored = await db.reward.findUniqueOrThrow({ where: { id: commission.rewardId } });
    expect(stored.reversedWei.toFixed()).toBe("3000000000000000");
  });
});
