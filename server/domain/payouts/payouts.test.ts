// Payout logic that needs no chain, against the real database (PGlite or PostgreSQL): the
// reward payout state (trigger), holds, reversals before and after payout, clawback offsets,
// totals, the database guards, and a chain that is down or not configured.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { ethToWei, weiToDb } from "../../shared/money";
import { loadConfig } from "../effective-config/load";
import { creditLedger, getBalanceWei, lockPool } from "../ledger/service";
import { payReward } from "../rewards/payout";
import { walletAddress } from "../participants/schemas";
import { updateParticipantWallet } from "./wallet";
import { updateSpendInput } from "../config/schemas";
import { upsertParticipant } from "../participants/service";
import { depositAddressFor } from "../../chain/deposit-address";
import { schedulePayoutJobs, SHORTAGE_BACKOFF_MS } from "./schedule";
import { payoutQueue } from "./queue";
import { reverseRewards } from "../reversals/reversals";
import { createNextPayout, participantDebtWei } from "./create";
import { releaseHolds, runPayouts } from "./run";
import { senderFor } from "./sender";
import { participantTotals, poolFigures } from "./totals";

const hex = () => randomBytes(5).toString("hex");
const ENV = "TEST" as const;
const WALLET = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

async function business(config: Record<string, unknown> = {}) {
  const b = await db.business.create({ data: { name: "Payout Co", ownerId: `owner-${hex()}` } });
  await db.businessConfig.create({ data: { businessId: b.id, ...config } });
  await db.$transaction((tx) => creditLedger(tx, { businessId: b.id, environment: ENV, amountWei: ethToWei("1"), kind: "FUNDING", memo: "fixture" }));
  return b;
}

async function referral(businessId: string, wallet: string | null = WALLET) {
  const referrer = await db.participant.create({ data: { businessId, environment: ENV, referralCode: `R${hex()}`, externalId: `ref-${hex()}`, walletAddress: wallet } });
  const referred = await db.participant.create({ data: { businessId, environment: ENV, referralCode: `D${hex()}`, externalId: `usr-${hex()}`, email: `${hex()}@example.com` } });
  const r = await db.referral.create({ data: { businessId, environment: ENV, referrerId: referrer.id, referredId: referred.id, status: "QUALIFIED" } });
  return { referrer, referred, referralId: r.id };
}

/** A reward through the engine's own payReward (pool debit, caps), as the engine grants it. */
function grant(businessId: string, participantId: string, eth: string, referralId: string | null = null, now = new Date()) {
  return db.$transaction(async (tx) => {
    const cfg = await loadConfig(tx, businessId, ENV);
    const pool = await lockPool(tx, businessId, ENV);
    return payReward(tx, pool, cfg, { businessId, environment: ENV, participantId, kind: "REFERRAL", requestedWei: ethToWei(eth), referralId, now });
  });
}

describe("reward payout state", () => {
  it("a granted reward is PAYABLE at once without a hold, ON_HOLD until payableAt with one", async () => {
    const b = await business();
    const { referrer, referralId } = await referral(b.id);
    const r0 = await grant(b.id, referrer.id, "0.01", referralId);
    expect(r0).toMatchObject({ status: "PAID", payoutStatus: "PAYABLE", payoutId: null });
    expect(r0.payableAt!.getTime()).toBe(r0.paidAt!.getTime());

    await db.businessConfig.update({ where: { businessId: b.id }, data: { payoutHoldDays: 3 } });
    // A second referral: at most one paid REFERRAL reward per referral (a database constraint).
    const second = await referral(b.id);
    const r1 = await grant(b.id, second.referrer.id, "0.02", second.referralId);
    expect(r1.payoutStatus).toBe("ON_HOLD");
    expect(r1.payableAt!.getTime() - r1.paidAt!.getTime()).toBe(3 * 86_400_000);
    expect(await releaseHolds(b.id, ENV)).toBe(0);
    expect(await releaseHolds(b.id, ENV, new Date(Date.now() + 3 * 86_400_000 + 1000))).toBe(1);
    expect((await db.reward.findUniqueOrThrow({ where: { id: r1.id } })).payoutStatus).toBe("PAYABLE");
  });

  it("a refused reward has no payout state; a held one gets it when released", async () => {
    const b = await business();
    const { referrer } = await referral(b.id);
    const refused = await grant(b.id, referrer.id, "5"); // more than the pool
    expect(refused).toMatchObject({ status: "REFUSED", payoutStatus: null });
    const held = await db.reward.create({ data: { businessId: b.id, environment: ENV, participantId: referrer.id, kind: "REFERRAL", requestedWei: "1", amountWei: "0", status: "HELD" } });
    expect(held.payoutStatus).toBeNull();
    const paid = await db.reward.update({ where: { id: held.id }, data: { status: "PAID", amountWei: "1", paidAt: new Date() } });
    expect(paid.payoutStatus).toBe("PAYABLE");
  });

  it("the database refuses a reward IN_PAYOUT without a payout, or PAYABLE inside one", async () => {
    const b = await business();
    const { referrer } = await referral(b.id);
    const r = await grant(b.id, referrer.id, "0.01");
    await expect(db.reward.update({ where: { id: r.id }, data: { payoutStatus: "IN_PAYOUT" } })).rejects.toThrow();
    expect((await db.reward.findUniqueOrThrow({ where: { id: r.id } })).payoutStatus).toBe("PAYABLE");
  });
});

describe("wallets", () => {
  it("validates and checksums addresses", () => {
    expect(walletAddress.parse(WALLET.toLowerCase())).toBe(WALLET);
    expect(walletAddress.safeParse("0x70997970c51812dc3a010c7d01b50e0d17dc79C8").success).toBe(false); // bad checksum
    expect(walletAddress.safeParse("0x1234").success).toBe(false);
    expect(walletAddress.safeParse("not an address").success).toBe(false);
  });

  it("PATCH sets and clears a wallet; another business's participant is not found", async () => {
    const b = await business();
    const other = await business();
    const { referrer } = await referral(b.id, null);
    const set = await updateParticipantWallet(b.id, { participantId: referrer.id, walletAddress: WALLET });
    expect(set).toMatchObject({ walletAddress: WALLET, earnedEth: "0", owedEth: "0", paidOutEth: "0" });
    expect((await updateParticipantWallet(b.id, { participantId: referrer.id, walletAddress: null })).walletAddress).toBeNull();
    await expect(updateParticipantWallet(other.id, { participantId: referrer.id, walletAddress: WALLET })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("config spend caps payoutHoldDays at 0–90", () => {
    expect(updateSpendInput.safeParse({ payoutHoldDays: 91 }).success).toBe(false);
    expect(updateSpendInput.safeParse({ payoutHoldDays: -1 }).success).toBe(false);
    expect(updateSpendInput.safeParse({ payoutHoldDays: 1.5 }).success).toBe(false);
    expect(updateSpendInput.safeParse({ payoutHoldDays: 90, minPayoutEth: "0.05", autoPayoutEnabled: true }).success).toBe(true);
  });
});

describe("payout wallets that cannot be one", () => {
  const low = (hex: string) => `0x${hex.padStart(40, "0")}`;

  it("the zero address, precompiles and the reserved low range (up to 0x…ffff) are refused; 0x…010000 is a wallet", () => {
    for (const a of ["0", "1", "a", "11", "100", "ffff"]) {
      const r = walletAddress.safeParse(low(a));
      expect(r.success, a).toBe(false);
    }
    expect(walletAddress.safeParse(low("0")).error?.issues[0]?.message).toBe("The zero address cannot receive payouts");
    expect(walletAddress.safeParse(low("9")).error?.issues[0]?.message).toMatch(/precompiled contract/);
    expect(walletAddress.safeParse(low("10000")).success).toBe(true);
  });

  it("the business's deposit address is refused (400 on walletAddress) by the SDK upsert and the dashboard's PATCH alike", async () => {
    const b = await business();
    const deposit = depositAddressFor(ENV, b.depositIndex)!;
    const { referrer } = await referral(b.id, null);
    const refused = { code: "VALIDATION_ERROR", details: [{ path: "walletAddress", message: expect.stringMatching(/deposit address/) }] };
    await expect(updateParticipantWallet(b.id, { participantId: referrer.id, walletAddress: deposit })).rejects.toMatchObject(refused);
    const scope = { businessId: b.id, environment: ENV, apiKeyId: null };
    await expect(upsertParticipant(scope, { userId: referrer.externalId!, walletAddress: deposit })).rejects.toMatchObject(refused);
    await expect(upsertParticipant(scope, { userId: `new-${hex()}`, walletAddress: deposit })).rejects.toMatchObject(refused);
    expect((await db.participant.findUniqueOrThrow({ where: { id: referrer.id } })).walletAddress).toBeNull();
    expect(await db.participant.count({ where: { businessId: b.id } })).toBe(2);
  });

  it("the database refuses a wallet in the reserved low range", async () => {
    const b = await business();
    const { referrer } = await referral(b.id, null);
    await expect(db.participant.update({ where: { id: referrer.id }, data: { walletAddress: low("1") } })).rejects.toThrow();
    await expect(db.participant.update({ where: { id: referrer.id }, data: { walletAddress: low("0") } })).rejects.toThrow();
  });

  it("a wallet that cannot be one fails its payout with the reason, is skipped by later runs and the schedule, until the wallet changes", async () => {
    const b = await business({ autoPayoutEnabled: true });
    const deposit = depositAddressFor(ENV, b.depositIndex)!;
    // Written before the rule existed (no route accepts it now).
    const { referrer } = await referral(b.id, deposit);
    await grant(b.id, referrer.id, "0.01");
    const s = await senderFor(b.id, ENV);
    const step = await createNextPayout(s, new Set());
    expect(step.kind).toBe("created");
    const failed = step.kind === "created" ? step.payout : null;
    expect(failed).toMatchObject({ status: "FAILED", nonce: null, txHash: null, error: expect.stringMatching(/^WALLET_REFUSED: .*deposit address/) });
    const marked = await db.participant.findUniqueOrThrow({ where: { id: referrer.id } });
    expect(marked.walletFailure).toBe(failed!.error);
    expect(marked.walletFailedAt).not.toBeNull();
    // Skipped from now on: nothing to create, nothing scheduled; the reward stays payable.
    expect((await createNextPayout(s, new Set())).kind).toBe("none");
    await schedulePayoutJobs();
    expect(await db.job.count({ where: { businessId: b.id, type: "REWARD_PAYOUT" } })).toBe(0);
    expect(await db.reward.count({ where: { participantId: referrer.id, payoutStatus: "PAYABLE" } })).toBe(1);
    // The same wallet sent again by the integration keeps the mark; a new wallet clears it (trigger).
    await upsertParticipant({ businessId: b.id, environment: ENV, apiKeyId: null }, { userId: referrer.externalId! });
    expect((await db.participant.findUniqueOrThrow({ where: { id: referrer.id } })).walletFailedAt).not.toBeNull();
    await db.participant.update({ where: { id: referrer.id }, data: { walletAddress: WALLET } });
    expect(await db.participant.findUniqueOrThrow({ where: { id: referrer.id } })).toMatchObject({ walletFailure: null, walletFailedAt: null });
    // Saving the same wallet on the dashboard is a deliberate retry: it clears the mark too.
    await db.participant.update({ where: { id: referrer.id }, data: { walletFailure: "TX_REVERTED: x", walletFailedAt: new Date() } });
    await updateParticipantWallet(b.id, { participantId: referrer.id, walletAddress: WALLET });
    expect(await db.participant.findUniqueOrThrow({ where: { id: referrer.id } })).toMatchObject({ walletFailure: null, walletFailedAt: null });
  });

  it("after a run found too little ETH the schedule waits instead of recording the same refusal every interval; a credited deposit or the wait's end schedules again", async () => {
    const b = await business({ autoPayoutEnabled: true });
    const { referrer } = await referral(b.id);
    await grant(b.id, referrer.id, "0.01");
    const scheduled = () => db.job.count({ where: { businessId: b.id, type: "REWARD_PAYOUT" } });
    const refused = await db.payout.create({
      data: { businessId: b.id, environment: ENV, participantId: referrer.id, walletAddress: WALLET, fromAddress: "0x0", amountWei: weiToDb(ethToWei("0.01")), rewardsWei: weiToDb(ethToWei("0.01")), status: "FAILED", error: "INSUFFICIENT_FUNDS: the deposit address holds 0 ETH", failedAt: new Date(), rewardIds: [] },
    });
    await schedulePayoutJobs();
    expect(await scheduled()).toBe(0);
    // The wait ends.
    await schedulePayoutJobs(new Date(refused.createdAt.getTime() + SHORTAGE_BACKOFF_MS));
    expect(await scheduled()).toBe(1);
    await db.job.deleteMany({ where: { businessId: b.id, type: "REWARD_PAYOUT" } });
    // Or a deposit is credited.
    await db.$transaction((tx) => creditLedger(tx, { businessId: b.id, environment: ENV, amountWei: ethToWei("0.5"), kind: "FUNDING", memo: "deposit" }));
    await schedulePayoutJobs();
    expect(await scheduled()).toBe(1);
  });

  it("below minPayoutEth a participant is passed over with the reason, before any chain call", async () => {
    const b = await business({ minPayoutWei: weiToDb(ethToWei("0.05")) });
    const { referrer } = await referral(b.id);
    await grant(b.id, referrer.id, "0.01");
    const step = await createNextPayout(await senderFor(b.id, ENV), new Set());
    expect(step).toMatchObject({ kind: "skipped", skipped: { participantId: referrer.id, code: "BELOW_MINIMUM", message: "0.01 ETH is below the minimum payout of 0.05 ETH" } });
  });
});

describe("payout queue", () => {
  it("names each participant owed ETH with its state and reason: ready, below the minimum, on hold until a date, no wallet, wallet failed", async () => {
    const b = await business({ minPayoutWei: weiToDb(ethToWei("0.02")) });
    const named = async (name: string, wallet: string | null) => {
      const { referrer } = await referral(b.id, wallet);
      return db.participant.update({ where: { id: referrer.id }, data: { name } });
    };
    const ready = await named("Ready Rita", WALLET);
    const small = await named("Small Sam", "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC");
    const held = await named("Held Hana", "0x90F79bf6EB2c4f870365E785982E1f161e8D8bC1");
    const none = await named("No-wallet Nora", null);
    const failed = await named("Failed Fred", "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65");
    await grant(b.id, ready.id, "0.03");
    await grant(b.id, small.id, "0.01");
    await grant(b.id, none.id, "0.05");
    await grant(b.id, failed.id, "0.04");
    await db.participant.update({ where: { id: failed.id }, data: { walletFailure: "TX_REVERTED: the wallet refused the transfer", walletFailedAt: new Date() } });
    await db.businessConfig.update({ where: { businessId: b.id }, data: { payoutHoldDays: 3 } });
    const h = await grant(b.id, held.id, "0.06");

    const q = await payoutQueue(b.id, ENV);
    expect(q).toMatchObject({ minPayoutEth: "0.02", payoutHoldDays: 3, autoPayoutEnabled: false, truncated: false });
    expect(q.items.map((i) => [i.participant.name, i.state])).toEqual([
      ["Ready Rita", "READY"],
      ["Small Sam", "BELOW_MINIMUM"],
      ["Held Hana", "ON_HOLD"],
      ["Failed Fred", "WALLET_FAILED"],
      ["No-wallet Nora", "NO_WALLET"],
    ]);
    expect(q.items[0]).toMatchObject({ amountEth: "0.03", reason: "Paid when payouts run" });
    expect(q.items[1]).toMatchObject({ amountEth: "0.01", reason: "0.01 ETH is below the minimum payout of 0.02 ETH" });
    expect(q.items[2]).toMatchObject({ payableEth: "0", onHoldEth: "0.06", nextPayableAt: h.payableAt!.toISOString() });
    expect(q.items[3].reason).toBe("TX_REVERTED: the wallet refused the transfer");
    expect(q.items[4].reason).toMatch(/^No payout wallet/);
    expect(q.totals).toEqual({
      READY: { count: 1, eth: "0.03" },
      BELOW_MINIMUM: { count: 1, eth: "0.01" },
      ON_HOLD: { count: 1, eth: "0.06" },
      WALLET_FAILED: { count: 1, eth: "0.04" },
      NO_WALLET: { count: 1, eth: "0.05" },
    });
    // Once the hold has ended, the held reward counts as payable.
    const later = await payoutQueue(b.id, ENV, new Date(Date.now() + 4 * 86_400_000));
    expect(later.items.find((i) => i.participant.participantId === held.id)).toMatchObject({ state: "READY", payableEth: "0.06" });
  });
});

describe("reversals", () => {
  it("before payout: REVERSED and the ETH back in the pool, once; totals follow", async () => {
    const b = await business();
    const { referrer, referred, referralId } = await referral(b.id);
    const r = await grant(b.id, referrer.id, "0.1", referralId);
    expect(await getBalanceWei(db, b.id, ENV)).toBe(ethToWei("0.9"));
    const scope = { businessId: b.id, environment: ENV, apiKeyId: null };
    const out = await reverseRewards(scope, { referredUserId: referred.externalId!, reason: "refund #1", eventName: "refund" });
    expect(out.body).toMatchObject({ returnedToPoolEth: "0.1", clawbackEth: "0", balanceEth: "1", reversals: [{ rewardId: r.id, outcome: "RETURNED_TO_POOL", reason: "refund #1", eventName: "refund" }] });
    const again = await reverseRewards(scope, { referredUserEmail: referred.email!, reason: "refund #1" });
    expect(again.body).toMatchObject({ reversals: [], returnedToPoolEth: "0" });
    expect(await getBalanceWei(db, b.id, ENV)).toBe(ethToWei("1"));
    const reward = await db.reward.findUniqueOrThrow({ where: { id: r.id } });
    expect(reward).toMatchObject({ status: "PAID", payoutStatus: "REVERSED", reversalReason: "refund #1" });
    const t = (await participantTotals(b.id, [referrer.id])).get(referrer.id)!;
    expect(t).toMatchObject({ earnedEth: "0", owedEth: "0", paidOutEth: "0", balanceEth: "0" });
    await expect(reverseRewards(scope, { referredUserId: "nobody", reason: "x" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("after payout: a clawback that the next payout offsets first (a fully offset payout settles without a transaction)", async () => {
    const b = await business();
    const { referrer, referred, referralId } = await referral(b.id);
    const r = await grant(b.id, referrer.id, "0.1", referralId);
    // Fixture: the reward was paid out by a confirmed payout.
    const paid = await db.payout.create({
      data: { businessId: b.id, environment: ENV, participantId: referrer.id, walletAddress: WALLET, fromAddress: "0x0", amountWei: weiToDb(ethToWei("0.1")), rewardsWei: weiToDb(ethToWei("0.1")), status: "CONFIRMED", rewardIds: [r.id], nonce: 0, txHash: "0xabc", rawTx: "0x01" },
    });
    await db.reward.update({ where: { id: r.id }, data: { payoutStatus: "PAID_OUT", payoutId: paid.id } });
    const scope = { businessId: b.id, environment: ENV, apiKeyId: null };
    const out = await reverseRewards(scope, { referredUserId: referred.externalId!, reason: "chargeback" });
    expect(out.body).toMatchObject({ clawbackEth: "0.1", returnedToPoolEth: "0", balanceEth: "0.9" });
    expect(await participantDebtWei(db, referrer.id)).toBe(ethToWei("0.1"));
    expect((await participantTotals(b.id, [referrer.id])).get(referrer.id)).toMatchObject({ clawbackOwedEth: "0.1", balanceEth: "-0.1", paidOutEth: "0.1", earnedEth: "0" });

    // The next rewards (0.04) are entirely offset: settled without a transaction, ETH kept in the pool.
    const next = await grant(b.id, referrer.id, "0.04");
    expect(await getBalanceWei(db, b.id, ENV)).toBe(ethToWei("0.86"));
    const s = await senderFor(b.id, ENV);
    const step = await createNextPayout(s, new Set());
    expect(step.kind).toBe("created");
    const p = step.kind === "created" ? step.payout : null;
    expect(p).toMatchObject({ status: "CONFIRMED", txHash: null, rewardIds: [next.id] });
    expect(p!.amountWei.toFixed()).toBe("0");
    expect(p!.offsetWei.toFixed()).toBe(ethToWei("0.04").toString());
    expect(await getBalanceWei(db, b.id, ENV)).toBe(ethToWei("0.9"));
    expect(await participantDebtWei(db, referrer.id)).toBe(ethToWei("0.06"));
    expect((await db.reward.findUniqueOrThrow({ where: { id: next.id } })).payoutStatus).toBe("PAID_OUT");
    expect((await createNextPayout(s, new Set())).kind).toBe("none");
  });

  it("a clawback is owed back only once its reward's payout is CONFIRMED: while it is SENT (it may still fail and return the ETH to the pool) no later payout offsets it", async () => {
    const b = await business();
    const { referrer, referred, referralId } = await referral(b.id);
    const r = await grant(b.id, referrer.id, "0.1", referralId);
    const sent = await db.payout.create({
      data: { businessId: b.id, environment: ENV, participantId: referrer.id, walletAddress: WALLET, fromAddress: `0x${hex()}`, amountWei: weiToDb(ethToWei("0.1")), rewardsWei: weiToDb(ethToWei("0.1")), status: "SENT", rewardIds: [r.id], nonce: 0, txHash: `0x${hex()}`, rawTx: "0x01" },
    });
    await db.reward.update({ where: { id: r.id }, data: { payoutStatus: "IN_PAYOUT", payoutId: sent.id } });
    const out = await reverseRewards({ businessId: b.id, environment: ENV, apiKeyId: null }, { referredUserId: referred.externalId!, reason: "chargeback" });
    expect(out.body).toMatchObject({ clawbackEth: "0.1" });
    expect(await participantDebtWei(db, referrer.id)).toBe(0n);
    expect((await participantTotals(b.id, [referrer.id])).get(referrer.id)).toMatchObject({ clawbackOwedEth: "0" });
    // A new reward is paid in full, not offset against a clawback that may yet return to the pool.
    await grant(b.id, referrer.id, "0.04");
    expect((await payoutQueue(b.id, ENV)).items[0]).toMatchObject({ amountEth: "0.04" });

    // Confirmed: now it is owed back.
    await db.payout.update({ where: { id: sent.id }, data: { status: "CONFIRMED" } });
    expect(await participantDebtWei(db, referrer.id)).toBe(ethToWei("0.1"));
    expect((await participantTotals(b.id, [referrer.id])).get(referrer.id)).toMatchObject({ clawbackOwedEth: "0.1" });
  });

  it("a reversal event named in reversalEvents reverses through the tracking pipeline", async () => {
    const { processEvent } = await import("../tracking/service");
    const b = await business({ reversalEvents: ["refund"] });
    const { referrer, referred, referralId } = await referral(b.id);
    await grant(b.id, referrer.id, "0.2", referralId);
    const scope = { businessId: b.id, environment: ENV, apiKeyId: null };
    const event = await db.trackedEvent.create({ data: { businessId: b.id, environment: ENV, eventName: "refund", metadata: { referredUserId: referred.externalId, reason: "order 7 refunded" } } });
    const o = await db.$transaction((tx) => processEvent(tx, scope, event), { timeout: 30_000 });
    expect(o).toMatchObject({ status: "PROCESSED", rewards: [] });
    const rev = await db.rewardReversal.findMany({ where: { businessId: b.id } });
    expect(rev).toMatchObject([{ outcome: "RETURNED_TO_POOL", reason: "order 7 refunded", eventName: "refund", eventId: event.id }]);
    expect(await getBalanceWei(db, b.id, ENV)).toBe(ethToWei("1"));
  });
});

describe("chain down or not configured", () => {
  it("a run answers 503 CHAIN_UNAVAILABLE and writes nothing; rewards stay payable; balance figures still answer", async () => {
    const b = await business();
    const { referrer } = await referral(b.id);
    const r = await grant(b.id, referrer.id, "0.01");
    // The unit layer points the TEST chain at a closed port; LIVE has no CHAIN_RPC_URL.
    await expect(runPayouts(b.id, "TEST")).rejects.toMatchObject({ code: "CHAIN_UNAVAILABLE" });
    await expect(runPayouts(b.id, "LIVE")).rejects.toMatchObject({ code: "CHAIN_UNAVAILABLE", message: expect.stringMatching(/CHAIN_RPC_URL/) });
    expect(await db.payout.count({ where: { businessId: b.id } })).toBe(0);
    expect((await db.reward.findUniqueOrThrow({ where: { id: r.id } })).payoutStatus).toBe("PAYABLE");
    const f = await poolFigures(b.id, ENV, b.depositIndex);
    expect(f).toMatchObject({ onChainBalanceEth: null, owedEth: "0.01", paidOutEth: "0", gasSpentEth: "0", availableEth: "0.99", reconciled: null });
  });
});
