// Commissions through the real write path (PGlite or PostgreSQL, TEST_DB): synchronous /track and
// the worker's set-based batches write the same commission rewards with their basis; a retried
// event never earns twice (the unique index); an event without a usable price waits and is
// rewarded once a price is set; simulate writes nothing.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { fastPathStats } from "../tracking/event-batch";
import { acceptEvent } from "../tracking/service";
import { runJobs } from "../../jobs/lanes";
import { domainBusiness, uniqueEmail } from "../../../tests/support/domain";
import { toBigInt } from "../../shared/money";
import { createRuleInput, simulateInput, updatePricingInput } from "./schemas";
import { createRule } from "./service";
import { displayPrice, getPricing, updatePricing } from "./pricing";
import { updateGeneralConfig } from "../config/service";
import { updateGeneralInput } from "../config/schemas";
import { simulateRule } from "./simulate";
import { getBalanceWei } from "../ledger/service";
import type { Scope } from "../../shared/scope";
import { changeEventStatus } from "../events/service";
import { updateReferralSettings } from "../referral-settings/service";
import { updateReferralSettingsInput } from "../referral-settings/schemas";
import { reverseRewards } from "../reversals/reversals";
import { reverseRewardsInput } from "../reversals/reversal-schemas";

async function setup(general: Record<string, unknown> = {}) {
  const b = await domainBusiness({ referralRewardEth: "0.01", fundEth: "10", general });
  await updatePricing(b.businessId, updatePricingInput.parse({ environment: "TEST", source: "FIXED", rates: { USD: "3000" } }));
  const p10 = await createRule(b.businessId, createRuleInput.parse({ environment: "TEST", name: "10 % of purchases", eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "10" }));
  const fixed = await createRule(b.businessId, createRuleInput.parse({ environment: "TEST", name: "5 USD bonus", eventName: "purchase", recipient: "REFERRED", type: "FIXED", amount: "5", currency: "USD", maxRewardsPerReferral: 2 }));
  return { ...b, p10, fixed };
}

/** A referral of a new referred user, qualified by a signup (sync). */
async function referredUser(scope: Scope) {
  const referrer = await db.participant.create({ data: { businessId: scope.businessId, environment: "TEST", referralCode: `R${Date.now()}${Math.floor(Math.random() * 1e6)}`, email: uniqueEmail("referrer") } });
  const email = uniqueEmail("bob");
  const r = await acceptEvent(scope, { eventName: "signup", referrer: referrer.referralCode, metadata: { referredUserEmail: email } }, { mode: "SYNC" });
  expect(r.status).toBe(200);
  return { referrer, email };
}

const purchase = (scope: Scope, email: string, amount?: string, currency?: string, mode?: "ASYNC" | "SYNC") =>
  acceptEvent(scope, { eventName: "purchase", metadata: { referredUserEmail: email }, ...(amount ? { amount } : {}), ...(currency ? { currency } : {}) }, mode ? { mode } : {});

describe("commissions: the write path", () => {
  it("synchronous /track writes commission rewards with their rule, base amount and rate, debiting the pool", async () => {
    const { scope, businessId, p10, fixed } = await setup();
    const { referrer, email } = await referredUser(scope);
    const before = await getBalanceWei(db, businessId, "TEST");
    const r = await purchase(scope, email, "30.00", "USD");
    expect(r.status).toBe(200);
    const rewards = await db.reward.findMany({ where: { businessId, kind: "COMMISSION" }, orderBy: { createdAt: "asc" } });
    expect(rewards.map((w) => [w.ruleId, w.participantId === referrer.id, w.amountWei.toFixed(), w.baseAmount?.toFixed(), w.baseCurrency, w.rate?.toFixed(), w.rateSource])).toEqual(
      expect.arrayContaining([
        [p10.ruleId, true, "1000000000000000", "30", "USD", "3000", "FIXED"],
        [fixed.ruleId, false, "1666666666666666", "5", "USD", "3000", "FIXED"],
      ]),
    );
    expect(before - (await getBalanceWei(db, businessId, "TEST"))).toBe(1000000000000000n + 1666666666666666n);
    const e = await db.trackedEvent.findFirstOrThrow({ where: { businessId, eventName: "purchase" } });
    expect([e.amount?.toFixed(), e.currency]).toEqual(["30", "USD"]);
  });

  it("a referral whose one-time rewards were reversed earns no more commissions, in a batch and synchronously", async () => {
    const { scope, businessId } = await setup({ eventProcessing: "ASYNC" });
    const reversed = await referredUser(scope);
    const kept = await referredUser(scope);
    const r = await reverseRewards(scope, reverseRewardsInput.parse({ referredUserEmail: reversed.email, reason: "fraud" }));
    expect(r.status).toBe(200);
    const referralOf = async (email: string) => (await db.referral.findFirstOrThrow({ where: { businessId, referred: { email } } })).id;
    const jobs: string[] = [];
    for (const u of [reversed, kept, reversed]) jobs.push(((await purchase(scope, u.email, "20.00", "USD")).body as { jobId: string }).jobId);
    const out = await runJobs(jobs);
    expect([...out.values()].every((o) => o.status === "SUCCEEDED")).toBe(true);
    expect((await purchase(scope, reversed.email, "20.00", "USD", "SYNC")).status).toBe(200);
    const w = await db.reward.findMany({ where: { businessId, kind: "COMMISSION" } });
    expect(w.length).toBe(2); // the kept referral's purchase: 10 % and the fixed bonus
    expect(new Set(w.map((x) => x.referralId))).toEqual(new Set([await referralOf(kept.email)]));
  });

  it("later purchases of existing referred users take the set-based batch path, as many as rules allow, never twice", async () => {
    const { scope, businessId, fixed } = await setup({ eventProcessing: "ASYNC" });
    const users = [await referredUser(scope), await referredUser(scope)];
    const jobs: string[] = [];
    for (let i = 0; i < 3; i++) for (const u of users) jobs.push(((await purchase(scope, u.email, "0.01", "ETH")).body as { jobId: string }).jobId);
    const slow = fastPathStats.slow;
    const out = await runJobs(jobs);
    expect([...out.values()].every((o) => o.status === "SUCCEEDED")).toBe(true);
    expect(fastPathStats.slow).toBe(slow); // no event fell back to the per-event path
    const w = await db.reward.findMany({ where: { businessId, kind: "COMMISSION" } });
    expect(w.filter((x) => x.ruleId === fixed.ruleId)).toHaveLength(4); // maxRewardsPerReferral 2, two referrals
    expect(w.filter((x) => x.ruleId !== fixed.ruleId).map((x) => x.amountWei.toFixed())).toEqual(Array(6).fill("1000000000000000"));

    // A retried event (its outcome lost, e.g. a crash after the rewards were written) never earns twice:
    // the unique (eventId, ruleId, participantId) index refuses the second reward.
    const one = w[0];
    await db.trackedEvent.update({ where: { id: one.eventId! }, data: { status: "QUEUED", reason: null } });
    const balance = await getBalanceWei(db, businessId, "TEST");
    const job = await db.job.findFirstOrThrow({ where: { businessId, payload: { equals: { eventId: one.eventId } } } });
    await db.job.update({ where: { id: job.id }, data: { status: "QUEUED", runAt: new Date(), maxAttempts: 1, attempts: 0 } });
    await runJobs([job.id]);
    expect(await db.reward.count({ where: { eventId: one.eventId!, ruleId: one.ruleId } })).toBe(1);
    expect(await getBalanceWei(db, businessId, "TEST")).toBe(balance);
  });

  it("an event without a usable price waits (QUEUED, PRICE_UNAVAILABLE) and is rewarded once a price is set", async () => {
    const { scope, businessId, p10 } = await setup({ eventProcessing: "ASYNC" });
    const { email } = await referredUser(scope);
    const r = await purchase(scope, email, "27.50", "EUR");
    const jobId = (r.body as { jobId: string }).jobId;
    const first = await runJobs([jobId]);
    expect(first.get(jobId)?.status).toBe("RETRY");
    const waiting = await db.trackedEvent.findFirstOrThrow({ where: { businessId, eventName: "purchase" } });
    expect([waiting.status, waiting.reason]).toEqual(["QUEUED", "PRICE_UNAVAILABLE"]);
    expect(await db.reward.count({ where: { businessId, kind: "COMMISSION" } })).toBe(0);
    const job = await db.job.findUniqueOrThrow({ where: { id: jobId } });
    expect(job.status).toBe("QUEUED");
    expect(job.runAt.getTime()).toBeGreaterThan(Date.now());

    await updatePricing(businessId, updatePricingInput.parse({ environment: "TEST", rates: { USD: "3000", EUR: "2750" } }));
    expect((await db.job.findUniqueOrThrow({ where: { id: jobId } })).runAt.getTime()).toBeLessThanOrEqual(Date.now());
    const second = await runJobs([jobId]);
    expect(second.get(jobId)?.status).toBe("SUCCEEDED");
    const w = await db.reward.findFirstOrThrow({ where: { businessId, ruleId: p10.ruleId } });
    expect([w.baseAmount?.toFixed(), w.baseCurrency, w.rate?.toFixed(), toBigInt(w.amountWei)]).toEqual(["27.5", "EUR", "2750", 1000000000000000n]);
    expect((await db.trackedEvent.findUniqueOrThrow({ where: { id: waiting.id } })).status).toBe("PROCESSED");
  });

  it("without a usable price only events that can earn wait: one naming no referred user is processed at once", async () => {
    const { scope, businessId } = await setup({ eventProcessing: "ASYNC" });
    const { email } = await referredUser(scope);
    const anonymous = await acceptEvent(scope, { eventName: "purchase", amount: "27.50", currency: "EUR" });
    const named = await purchase(scope, email, "27.50", "EUR");
    const [a, n] = [anonymous, named].map((r) => (r.body as { jobId: string }).jobId);
    const out = await runJobs([a, n]);
    expect([out.get(a)?.status, out.get(n)?.status]).toEqual(["SUCCEEDED", "RETRY"]);
    const events = await db.trackedEvent.findMany({ where: { businessId, eventName: "purchase" }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    expect(events.map((e) => [e.status, e.reason])).toEqual([
      ["PROCESSED", null],
      ["QUEUED", "PRICE_UNAVAILABLE"],
    ]);
  });

  it("review holds: with holdForReview a commission of a rewarded referral is HELD, and paid when a reviewer approves the event", async () => {
    const { scope, businessId, p10 } = await setup();
    const { email } = await referredUser(scope); // REWARDED: its one-time reward is paid
    await updateReferralSettings(businessId, updateReferralSettingsInput.parse({ holdForReview: true }));
    const r = await purchase(scope, email, "30.00", "USD");
    expect(r.body).toMatchObject({ status: "FLAGGED", reason: "HELD_FOR_REVIEW" });
    const held = await db.reward.findFirstOrThrow({ where: { businessId, ruleId: p10.ruleId } });
    expect(held.status).toBe("HELD");
    await changeEventStatus(businessId, { eventId: held.eventId!, status: "PROCESSED" });
    const paid = await db.reward.findUniqueOrThrow({ where: { id: held.id } });
    expect([paid.status, paid.amountWei.toFixed()]).toEqual(["PAID", "1000000000000000"]);
  });

  it("simulate decides a rule over stored events without writing anything", async () => {
    const { scope, businessId } = await setup();
    const { referrer, email } = await referredUser(scope);
    await purchase(scope, email, "300", "USD");
    await purchase(scope, email, "150", "USD");
    const rewards = await db.reward.count({ where: { businessId } });
    const sim = await simulateRule(
      businessId,
      simulateInput.parse({ environment: "TEST", rule: { eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "20" }, from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() }),
    );
    expect(sim).toMatchObject({ events: 2, rewards: 2, totalEth: "0.03", topParticipants: [{ participantId: referrer.id, totalEth: "0.03" }] });
    expect(await db.reward.count({ where: { businessId } })).toBe(rewards);
  });

  it("a simulation over many pages lets the process's event loop turn between pages (on PGlite, whose queries never yield, nothing else ran until it ended)", async () => {
    const { scope, businessId } = await setup();
    const { email } = await referredUser(scope);
    const referral = await db.referral.findFirstOrThrow({ where: { businessId, referred: { email } } });
    await db.$executeRawUnsafe(
      `INSERT INTO "TrackedEvent" (id, "businessId", environment, "eventName", status, "referralId", amount, currency, "createdAt", "processedAt", "updatedAt")
       SELECT 'sim-' || g, $1, 'TEST', 'purchase', 'PROCESSED', $2, 10, 'USD', now() - interval '1 minute', now(), now() FROM generate_series(1, 12001) g`,
      businessId,
      referral.id,
    );
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(Date.now()), 1);
    try {
      const sim = await simulateRule(
        businessId,
        simulateInput.parse({ environment: "TEST", rule: { eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "1" }, from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() }),
      );
      expect(sim.events).toBe(12001);
      expect(ticks.length).toBeGreaterThan(0);
    } finally {
      clearInterval(timer);
    }
  });

  it("simulate pays a referrer in a tier the rule's tierPercents for that tier", async () => {
    const { createTier } = await import("../tiers/service");
    const { scope, businessId } = await setup();
    const gold = await createTier(businessId, { name: "Gold", minReferrals: 1, referralRewardEth: "0.01", bonusEth: "0" });
    const { referrer, email } = await referredUser(scope);
    await purchase(scope, email, "300", "USD");
    const sim = await simulateRule(
      businessId,
      simulateInput.parse({ environment: "TEST", rule: { eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "20", tierPercents: { [gold.tierId]: "50" } }, from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() }),
    );
    expect(sim).toMatchObject({ events: 1, rewards: 1, totalEth: "0.05", topParticipants: [{ participantId: referrer.id, totalEth: "0.05" }] });
  });

  it("simulate leaves out referrals reversed by a chargeback, as the core pays them nothing", async () => {
    const { scope, businessId } = await setup();
    const kept = await referredUser(scope);
    const charged = await referredUser(scope);
    await purchase(scope, kept.email, "300", "USD");
    await purchase(scope, charged.email, "600", "USD");
    expect((await reverseRewards(scope, reverseRewardsInput.parse({ referredUserEmail: charged.email, reason: "chargeback" }))).status).toBe(200);
    const sim = await simulateRule(
      businessId,
      simulateInput.parse({ environment: "TEST", rule: { eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "20" }, from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() }),
    );
    expect(sim).toMatchObject({ events: 1, rewards: 1, totalEth: "0.02", topParticipants: [{ participantId: kept.referrer.id, totalEth: "0.02" }] });
  });
});

describe("the price amounts are shown at", () => {
  it("is the environment's defaultCurrency at its price in force, and none when that currency has no price", async () => {
    const { businessId } = await setup();
    expect(await displayPrice(businessId, "TEST")).toEqual({ currency: "USD", rate: "3000" });
    expect((await getPricing(businessId, "TEST")).display).toEqual({ currency: "USD", rate: "3000" });
    expect(await displayPrice(businessId, "LIVE")).toBeNull();
    await updateGeneralConfig(businessId, updateGeneralInput.parse({ environment: "TEST", defaultCurrency: "EUR" }));
    expect(await displayPrice(businessId, "TEST")).toBeNull();
    await updatePricing(businessId, updatePricingInput.parse({ environment: "TEST", rates: { USD: "3000", EUR: "2750.5" } }));
    expect(await displayPrice(businessId, "TEST")).toEqual({ currency: "EUR", rate: "2750.5" });
  });
});
