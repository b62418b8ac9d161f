// The reward engine against the real database (in-memory PGlite, or the suite's PostgreSQL):
// the pipeline's part (participants, event) is done here as fixtures, the referral is recorded
// through the rules core (recordReferral: its screen), then settleEvent runs as the SDK pipeline calls it.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db, type Tx } from "../../db/client";
import type { Participant } from "../../db/generated";
import { ethToWei, weiToDb } from "../../shared/money";
import { creditLedger, getBalanceWei } from "../ledger/service";
import { recordReferral } from "../referrals/service";
import { releaseEventRewards, rejectEventRewards, settleEvent } from "./engine";

const hex = () => randomBytes(5).toString("hex");
const ENV = "TEST" as const;
const TX = { timeout: 120_000, maxWait: 120_000 };

async function business(config: Record<string, unknown> = {}, settings: Record<string, unknown> = {}) {
  const b = await db.business.create({ data: { name: "Engine Co", ownerId: `owner-${hex()}` } });
  await db.businessConfig.create({ data: { businessId: b.id, referralRewardWei: weiToDb(ethToWei("0.01")), bonusWei: weiToDb(ethToWei("0.005")), ...config } });
  await db.referralSettings.create({ data: { businessId: b.id, ...settings } });
  return b.id;
}

const participant = (businessId: string, extra: Partial<Participant> = {}) =>
  db.participant.create({ data: { businessId, environment: ENV, referralCode: `C${hex().toUpperCase()}`, email: `${hex()}@example.com`, ...extra } });

const fund = (businessId: string, eth: string) =>
  db.$transaction((tx) => creditLedger(tx, { businessId, environment: ENV, amountWei: ethToWei(eth), kind: "FUNDING", memo: "test fixture" }));

/** What the SDK pipeline does: screen + record the referral, record the event, settle, store the outcome. */
async function track(businessId: string, referrer: Participant, referred: Participant, eventName = "purchase", existingReferralId?: string) {
  return db.$transaction(async (tx: Tx) => {
    let referral = existingReferralId ? await tx.referral.findUnique({ where: { id: existingReferralId } }) : null;
    if (!referral) {
      referral = (await recordReferral(tx, { businessId, environment: ENV, apiKeyId: null }, { referrer, referred })).referral;
    }
    const event = await tx.trackedEvent.create({ data: { businessId, environment: ENV, eventName, referrer: referrer.referralCode, referralId: referral.id } });
    const result = await settleEvent(tx, { event, referral });
    await tx.trackedEvent.update({ where: { id: event.id }, data: { status: result.status, reason: result.reason ?? null, processedAt: new Date() } });
    return { ...result, eventId: event.id, referralId: referral.id };
  }, TX);
}

describe("settleEvent", () => {
  it("pays the referral reward to the referrer and the bonus to the referred user, once per referral", async () => {
    const b = await business();
    await fund(b, "1");
    const [alice, bob] = [await participant(b), await participant(b)];
    const first = await track(b, alice, bob);
    expect(first.status).toBe("PROCESSED");
    expect(first.rewards.map((r) => [r.kind, r.participantId, r.amountEth, r.status])).toEqual([
      ["REFERRAL", alice.id, "0.01", "PAID"],
      ["BONUS", bob.id, "0.005", "PAID"],
    ]);
    const second = await track(b, alice, bob, "purchase", first.referralId);
    expect(second.rewards).toEqual([]);
    expect(second.reason).toBe("REFERRAL_ALREADY_SETTLED");
    expect(await getBalanceWei(db, b, ENV)).toBe(ethToWei("0.985"));
    expect((await db.referral.findUnique({ where: { id: first.referralId } }))!.status).toBe("REWARDED");
  });

  it("only qualifying events reward; outside the attribution window nothing is paid", async () => {
    const b = await business({ qualifyingEvents: ["purchase"] }, { attributionWindowDays: 7 });
    await fund(b, "1");
    const [alice, bob] = [await participant(b), await participant(b)];
    const signup = await track(b, alice, bob, "signup");
    expect(signup).toMatchObject({ status: "PROCESSED", reason: "NOT_A_QUALIFYING_EVENT", rewards: [] });
    await db.referral.update({ where: { id: signup.referralId }, data: { createdAt: new Date(Date.now() - 8 * 86_400_000) } });
    const late = await track(b, alice, bob, "purchase", signup.referralId);
    expect(late).toMatchObject({ status: "PROCESSED", reason: "ATTRIBUTION_WINDOW_EXPIRED", rewards: [] });
  });

  it("applies the per-event caps and the daily cap per participant, with reasons", async () => {
    const b = await business({
      referralRewardWei: weiToDb(ethToWei("0.5")),
      bonusWei: weiToDb(ethToWei("0.2")),
      maxReferralEthPerEventWei: weiToDb(ethToWei("0.3")),
      maxBonusEthPerEventWei: weiToDb(ethToWei("0.1")),
      maxEthPerDayPerUserWei: weiToDb(ethToWei("0.4")),
    });
    await fund(b, "10");
    const alice = await participant(b);
    const r1 = await track(b, alice, await participant(b));
    expect(r1.rewards.map((r) => [r.kind, r.requestedEth, r.amountEth, r.status, r.reason])).toEqual([
      ["REFERRAL", "0.5", "0.3", "PAID", "PER_EVENT_CAP"],
      ["BONUS", "0.2", "0.1", "PAID", "PER_EVENT_CAP"],
    ]);
    const r2 = await track(b, alice, await participant(b));
    expect(r2.rewards[0]).toMatchObject({ amountEth: "0.1", status: "PAID", reason: "PER_EVENT_CAP,DAILY_CAP" });
    const r3 = await track(b, alice, await participant(b));
    expect(r3.rewards[0]).toMatchObject({ amountEth: "0", status: "REFUSED", reason: "PER_EVENT_CAP,DAILY_CAP" });
  });

  it("TIERED: the referrer's tier by qualified referrals sets the amounts", async () => {
    const b = await business({ rewardStrategy: "TIERED", bonusWei: "0" });
    await db.tier.create({ data: { businessId: b, name: "Bronze", minReferrals: 1, referralRewardWei: weiToDb(ethToWei("0.01")) } });
    await db.tier.create({ data: { businessId: b, name: "Silver", minReferrals: 2, referralRewardWei: weiToDb(ethToWei("0.02")), bonusWei: weiToDb(ethToWei("0.001")) } });
    await fund(b, "1");
    const alice = await participant(b);
    const a = await track(b, alice, await participant(b));
    const c = await track(b, alice, await participant(b));
    expect(a.rewards.map((r) => r.amountEth)).toEqual(["0.01"]);
    expect(c.rewards.map((r) => r.amountEth)).toEqual(["0.02", "0.001"]);
  });

  it("refuses with INSUFFICIENT_POOL rather than overdrawing, and records it", async () => {
    const b = await business({ bonusWei: "0" });
    await fund(b, "0.015");
    const alice = await participant(b);
    const ok = await track(b, alice, await participant(b));
    const ko = await track(b, alice, await participant(b));
    expect(ok.rewards[0].status).toBe("PAID");
    expect(ko.rewards[0]).toMatchObject({ status: "REFUSED", reason: "INSUFFICIENT_POOL", amountEth: "0", requestedEth: "0.01" });
    expect(await getBalanceWei(db, b, ENV)).toBe(ethToWei("0.005"));
    expect((await db.referral.findUnique({ where: { id: ko.referralId } }))!.status).toBe("QUALIFIED");
  });

  it("100 concurrent qualifying events against a pool that covers 10: exactly 10 paid, balance exactly 0", async () => {
    const b = await business({ bonusWei: "0" });
    await fund(b, "0.1");
    const referrers = await Promise.all(Array.from({ length: 100 }, () => participant(b)));
    const referred = await Promise.all(Array.from({ length: 100 }, () => participant(b)));
    const results = await Promise.all(referrers.map((r, i) => track(b, r, referred[i])));
    const rewards = results.flatMap((r) => r.rewards);
    expect(rewards).toHaveLength(100);
    expect(rewards.filter((r) => r.status === "PAID")).toHaveLength(10);
    expect(rewards.filter((r) => r.status === "REFUSED" && r.reason === "INSUFFICIENT_POOL")).toHaveLength(90);
    expect(await getBalanceWei(db, b, ENV)).toBe(0n);
    expect(await db.reward.count({ where: { businessId: b } })).toBe(100);
  }, 120_000); // 100 transactions queue on one pool lock: correctness, not speed, on a busy machine
});

describe("review: flagged referrals and held rewards", () => {
  it("holdForReview → FLAGGED with HELD rewards; approval pays them exactly once", async () => {
    const b = await business({}, { holdForReview: true });
    await fund(b, "1");
    const [alice, bob] = [await participant(b), await participant(b)];
    const t = await track(b, alice, bob);
    expect(t.status).toBe("FLAGGED");
    expect(t.reason).toBe("HELD_FOR_REVIEW");
    expect(t.rewards.map((r) => [r.status, r.amountEth, r.requestedEth])).toEqual([
      ["HELD", "0", "0.01"],
      ["HELD", "0", "0.005"],
    ]);
    expect(await getBalanceWei(db, b, ENV)).toBe(ethToWei("1"));
    // A second qualifying event of the same flagged referral holds nothing more.
    const again = await track(b, alice, bob, "purchase", t.referralId);
    expect(again).toMatchObject({ status: "FLAGGED", rewards: [] });
    const event = (await db.trackedEvent.findUnique({ where: { id: t.eventId } }))!;
    const released = await db.$transaction((tx) => releaseEventRewards(tx, event), TX);
    expect(released.map((r) => r.status)).toEqual(["PAID", "PAID"]);
    const twice = await db.$transaction((tx) => releaseEventRewards(tx, event), TX);
    expect(twice).toEqual([]);
    expect(await getBalanceWei(db, b, ENV)).toBe(ethToWei("0.985"));
    expect((await db.referral.findUnique({ where: { id: t.referralId } }))!.status).toBe("REWARDED");
  });

  it("rejection refuses the held rewards and rejects the flagged referral", async () => {
    const b = await business({}, { holdForReview: true });
    await fund(b, "1");
    const t = await track(b, await participant(b), await participant(b));
    const event = (await db.trackedEvent.findUnique({ where: { id: t.eventId } }))!;
    const refused = await db.$transaction((tx) => rejectEventRewards(tx, event, "looks fake"), TX);
    expect(refused.map((r) => [r.status, r.reason])).toEqual([
      ["REFUSED", "REJECTED_BY_REVIEW"],
      ["REFUSED", "REJECTED_BY_REVIEW"],
    ]);
    expect((await db.referral.findUnique({ where: { id: t.referralId } }))!).toMatchObject({ status: "REJECTED", reason: "looks fake" });
  });
});

/** A new referral of the pair through the rules core (an apply): the status and reason its screen gave. */
async function screenThroughCore(businessId: string, referrer: Participant, referred: Participant) {
  const { referral } = await db.$transaction((tx) => recordReferral(tx, { businessId, environment: ENV, apiKeyId: null }, { referrer, referred }), TX);
  return referral.reason === null ? { status: referral.status } : { status: referral.status, reason: referral.reason };
}

describe("the rules core's referral screen", () => {
  it("rejects self-referral by email and by user id", async () => {
    const b = await business();
    const a = await participant(b, { email: "same@example.com", externalId: "u1" });
    const sameEmail = await participant(b, { email: "SAME@example.com" });
    const sameUser = await participant(b, { externalId: "u1-other" });
    const screen = (x: Participant, y: Participant) => screenThroughCore(b, x, y);
    expect(await screen(a, sameEmail)).toEqual({ status: "REJECTED", reason: "SELF_REFERRAL" });
    expect(await screen(a, a)).toEqual({ status: "REJECTED", reason: "SELF_REFERRAL" });
    expect(await screen(a, sameUser)).toEqual({ status: "PENDING" });
  });

  it("blocked and disposable domains, one referral per referred user, daily limit per referrer, hold for review", async () => {
    const b = await business({}, { blockedEmailDomains: ["spam.test"], blockDisposableEmails: true, maxReferralsPerReferrerPerDay: 1 });
    const alice = await participant(b);
    const screen = (x: Participant, y: Participant) => screenThroughCore(b, x, y);
    expect(await screen(alice, await participant(b, { email: `x@mail.spam.test` }))).toEqual({ status: "REJECTED", reason: "BLOCKED_EMAIL_DOMAIN" });
    expect(await screen(alice, await participant(b, { email: `x@mailinator.com` }))).toEqual({ status: "REJECTED", reason: "DISPOSABLE_EMAIL" });
    const bob = await participant(b);
    const t = await track(b, alice, bob, "signup");
    expect(t.status).toBe("PROCESSED");
    expect(await screen(await participant(b), bob)).toEqual({ status: "REJECTED", reason: "ALREADY_REFERRED" });
    expect(await screen(alice, await participant(b))).toEqual({ status: "REJECTED", reason: "REFERRER_DAILY_LIMIT" });
    await db.referralSettings.update({ where: { businessId: b }, data: { holdForReview: true, maxReferralsPerReferrerPerDay: null } });
    expect(await screen(alice, await participant(b))).toEqual({ status: "FLAGGED", reason: "HELD_FOR_REVIEW" });
  });

  it("a rejected referral makes its event REJECTED with the reason", async () => {
    const b = await business();
    const a = await participant(b, { email: "me@example.com" });
    const t = await track(b, a, await participant(b, { email: "ME@example.com" }));
    expect(t).toMatchObject({ status: "REJECTED", reason: "SELF_REFERRAL", rewards: [] });
  });
});
