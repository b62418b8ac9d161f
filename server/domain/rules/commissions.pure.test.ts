// Commission rules in the rules core, pure (vitest project "pure"): unit tests of what a rule
// pays, and a property test that a run decided at once equals the same events decided one by
// one. The store model (tests/support/rules-model.ts) is extended here with the commission state
// rules/state.ts loads: the rules, the prices and each rule's rewards per referral.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { apply, baseConfig, baseSettings, DAY, event, ids, milli, NOW, person, referral, stateOf, store, type Store } from "../../../tests/support/rules-model";
import { MAX_STORED_WEI, weiOf, type Currency } from "../../shared/money";
import type { Prices } from "./prices";
import { addMonthsUtc, countKey, type CommissionRuleFact } from "./commissions";
import { decide, type Decisions, type RewardRow, type RuleItem } from "./decide";

const E = 10n ** 18n;
const AT = new Date("2026-03-01T00:00:00.000Z");

const rule = (o: Partial<CommissionRuleFact> & { id: string }): CommissionRuleFact => ({
  eventName: "purchase",
  recipient: "REFERRER",
  type: "PERCENT",
  percent: "10",
  amount: null,
  currency: null,
  durationMonths: null,
  maxRewardsPerReferral: null,
  tierPercents: {},
  ...o,
});

const fixedPrices = (rates: Partial<Record<Currency, string>>): Prices => new Map(Object.entries(rates).map(([c, rate]) => [c as Currency, { rate: rate, source: "FIXED" as const, at: AT }]));

/** The state rules/state.ts loads, from the store: counts of each rule's rewards per referral that are not REFUSED. */
function stateWith(s: Store, items: readonly RuleItem[], now: Date, rules: CommissionRuleFact[], prices: Prices) {
  const st = stateOf(s, items, now);
  const counts = new Map<string, number>();
  for (const w of s.rewards) if (w.ruleId && w.referralId && w.status !== "REFUSED") counts.set(countKey(w.ruleId, w.referralId), (counts.get(countKey(w.ruleId, w.referralId)) ?? 0) + 1);
  st.commissions = { rules, prices, counts };
  return st;
}

const gen = ids("c");
function run(s: Store, items: RuleItem[], rules: CommissionRuleFact[], prices: Prices = fixedPrices({ USD: "3000" }), now = NOW): Decisions {
  const d = decide(stateWith(s, items, now, rules, prices), items, now, gen);
  apply(s, d);
  return d;
}

/** A store with ann who referred bob (REWARDED, qualified 10 days ago). */
function referred(o: Partial<Store> = {}): Store {
  const s = store(o);
  s.participants.push(person("bob", { email: "bob@example.com" }));
  s.referrals.push(referral("ref-bob", "ann", "bob", { status: "REWARDED", qualifiedAt: new Date(NOW.getTime() - 10 * DAY) }));
  return s;
}

const purchase = (amount: string | null, currency: Currency | null, o: { ageDays?: number; name?: string; email?: string } = {}) => {
  const it = event({ name: o.name ?? "purchase", email: o.email ?? "bob@example.com", ageDays: o.ageDays });
  it.event!.amount = amount as never;
  it.event!.currency = currency;
  return it;
};
const commissions = (d: Decisions) => d.rewards.map((r) => r.row).filter((r) => r.kind === "COMMISSION");

describe("commission rules in the rules core", () => {
  it("pays PERCENT of a later purchase to the referrer, converted at the price and rounded down, and records its basis", () => {
    const s = referred();
    const d = run(s, [purchase("100.00", "USD")], [rule({ id: "r10" })]);
    const [w] = commissions(d);
    // 10 % of 100 USD at 3000 USD/ETH = 1/300 ETH, rounded down to the wei.
    expect(w).toMatchObject({ participantId: "ann", status: "PAID", ruleId: "r10", baseAmount: "100", baseCurrency: "USD", rate: "3000", rateSource: "FIXED", rateAt: AT });
    expect(w.requestedWei).toBe(3333333333333333n);
    expect(w.amountWei).toBe(3333333333333333n);
    expect(d.debits.map((x) => x.amountWei)).toContain(3333333333333333n);
  });

  it("an event that paid a commission carries no reason that says it earned nothing (not qualifying, already settled)", () => {
    const s = referred({ cfg: baseConfig({ qualifyingEvents: ["signup"] }) });
    const outcome = (d: Decisions) => d.events[0];
    const paid = run(s, [purchase("100.00", "USD")], [rule({ id: "r10" })]);
    expect(commissions(paid)[0].status).toBe("PAID");
    expect(outcome(paid)).toMatchObject({ status: "PROCESSED", reason: null });
    // A purchase no rule pays keeps its reason.
    expect(outcome(run(s, [purchase("100.00", "USD", { name: "refund-request" })], [rule({ id: "r10" })]))).toMatchObject({ status: "PROCESSED", reason: "NOT_A_QUALIFYING_EVENT" });
  });

  it("a share worth more than a reward row holds (60 digits at a rate below 1) is asked for as the most it holds; the pool decides", () => {
    const s = referred();
    const d = run(s, [purchase("9".repeat(60), "USD")], [rule({ id: "r100", percent: "100" })], fixedPrices({ USD: "0.000000000000000001" }));
    const [w] = commissions(d);
    expect(w.requestedWei).toBe(MAX_STORED_WEI);
    // More than the pool holds: refused as any reward the pool cannot pay, nothing debited.
    expect(w).toMatchObject({ status: "REFUSED", amountWei: 0n });
    expect(s.balanceWei).toBe(E);
  });

  it("pays a FIXED rule to the referred user, in ETH without a price, and a PERCENT of an ETH amount exactly", () => {
    const s = referred();
    const d = run(s, [purchase("0.5", "ETH")], [rule({ id: "f", type: "FIXED", percent: null, amount: "0.001", currency: "ETH", recipient: "REFERRED" }), rule({ id: "p", percent: "2.5" })], new Map());
    expect(commissions(d).map((w) => [w.ruleId, w.participantId, w.amountWei, w.rateSource])).toEqual([
      ["f", "bob", milli(1), "ETH"],
      ["p", "ann", (E / 2n) * 25n / 1000n, "ETH"],
    ]);
  });

  it("a PERCENT rule on an event without an amount pays nothing: a REFUSED outcome with NO_AMOUNT", () => {
    const s = referred();
    const [w] = commissions(run(s, [purchase(null, null)], [rule({ id: "r" })]));
    expect(w).toMatchObject({ status: "REFUSED", reason: "NO_AMOUNT", amountWei: 0n, ruleId: "r" });
  });

  it("only events of the rule's name, of a qualified (not rejected or provisional) referral, earn; a flagged one's are held", () => {
    const s = referred();
    s.participants.push(person("cat", { email: "cat@example.com" }), person("dan", { email: "dan@example.com" }));
    s.referrals.push(referral("ref-cat", "ann", "cat", { status: "FLAGGED", reason: "NO_CLICK" }), referral("ref-dan", "ann", "dan", { status: "REJECTED", reason: "SELF_REFERRAL" }));
    const d = run(s, [purchase("10", "USD", { name: "renewal" }), purchase("10", "USD", { email: "cat@example.com" }), purchase("10", "USD", { email: "dan@example.com" })], [rule({ id: "r" })]);
    expect(commissions(d).map((w) => [w.referralId, w.status, w.reason, w.requestedWei])).toEqual([["ref-cat", "HELD", "NO_CLICK", weiOf("1", "USD", "3000")]]);
  });

  it("a flagged referral: its qualifying event holds what it would earn unflagged, and records qualifiedAt; its later events hold their commissions", () => {
    // Ann already has one qualified referral (bob); cat's flagged one would be her second: the gold tier's percent.
    const s = referred({ tiers: [{ id: "gold", minReferrals: 2, referralWei: milli(20), bonusWei: 0n }], cfg: baseConfig({ rewardStrategy: "TIERED", qualifyingEvents: ["purchase"] }) });
    s.participants.push(person("cat", { email: "cat@example.com" }));
    s.referrals.push(referral("ref-cat", "ann", "cat", { status: "FLAGGED", reason: "NO_CLICK" }));
    const rules = [rule({ id: "r", tierPercents: { gold: "50" } })];
    const signUp = run(s, [purchase("1", "ETH", { name: "signup", email: "cat@example.com" })], rules, new Map());
    expect(signUp.outcomes[0]).toMatchObject({ status: "FLAGGED", reason: "NO_CLICK", rewards: [] });
    expect(s.referrals[1].qualifiedAt).toBeNull();

    const first = run(s, [purchase("0.1", "ETH", { email: "cat@example.com" })], rules, new Map());
    expect(first.outcomes[0]).toMatchObject({ status: "FLAGGED", reason: "NO_CLICK" });
    expect(first.rewards.map((r) => [r.row.kind, r.row.status, r.row.reason, r.row.requestedWei])).toEqual([
      ["REFERRAL", "HELD", "NO_CLICK", milli(20)],
      ["COMMISSION", "HELD", "NO_CLICK", E / 20n],
    ]);
    expect(first.debits).toEqual([]);
    expect(s.referrals[1]).toMatchObject({ status: "FLAGGED", qualifiedAt: NOW });

    const later = run(s, [purchase("0.2", "ETH", { email: "cat@example.com" })], rules, new Map());
    expect(later.rewards.map((r) => [r.row.kind, r.row.status, r.row.requestedWei])).toEqual([["COMMISSION", "HELD", E / 10n]]);
    expect(s.balanceWei).toBe(E);
  });

  it("the qualifying event itself earns: a new referred user's first purchase pays REFERRAL, BONUS and the commission", () => {
    const s = store();
    const it = event({ referrer: "ANN", email: "new@example.com" });
    it.event!.amount = "30" as never;
    it.event!.currency = "USD";
    const d = run(s, [it], [rule({ id: "r" })]);
    expect(d.rewards.map((r) => r.row.kind)).toEqual(["REFERRAL", "BONUS", "COMMISSION"]);
    expect(commissions(d)[0].amountWei).toBe(E / 1000n);
  });

  it("durationMonths counts calendar months from the qualification; maxRewardsPerReferral stops the rule", () => {
    expect(addMonthsUtc(new Date("2026-01-31T10:00:00Z"), 1).toISOString()).toBe("2026-02-28T10:00:00.000Z");
    const s = referred();
    s.referrals[0].qualifiedAt = new Date("2026-02-10T23:59:30.000Z"); // NOW is 2026-03-10T23:59:30Z
    const d1 = run(s, [purchase("10", "USD")], [rule({ id: "m1", durationMonths: 1 })]);
    expect(commissions(d1)).toEqual([]); // exactly one calendar month later: over
    const d2 = run(s, [purchase("10", "USD"), purchase("10", "USD"), purchase("10", "USD")], [rule({ id: "max2", maxRewardsPerReferral: 2 })]);
    expect(commissions(d2)).toHaveLength(2);
    expect(commissions(run(s, [purchase("10", "USD")], [rule({ id: "max2", maxRewardsPerReferral: 2 })]))).toEqual([]);
  });

  it("tierPercents replace percent for referrers in that tier", () => {
    const s = referred({ tiers: [{ id: "gold", minReferrals: 1, referralWei: milli(10), bonusWei: 0n }] });
    const [w] = commissions(run(s, [purchase("0.1", "ETH")], [rule({ id: "r", tierPercents: { gold: "50" } })], new Map()));
    expect(w.requestedWei).toBe(E / 20n);
  });

  it("caps as the one-time rewards: the referrer's per-event cap over all of its rewards of the event, the daily cap, the pool", () => {
    const s = referred({ cfg: baseConfig({ maxReferralPerEventWei: milli(5), maxPerDayWei: milli(7) }) });
    const rules = [rule({ id: "a", type: "FIXED", percent: null, amount: "0.004", currency: "ETH" }), rule({ id: "b", type: "FIXED", percent: null, amount: "0.004", currency: "ETH" })];
    const d = run(s, [purchase("1", "USD")], rules);
    expect(commissions(d).map((w) => [w.amountWei, w.reason])).toEqual([[milli(4), null], [milli(1), "PER_EVENT_CAP"]]);
    const d2 = run(s, [purchase("1", "USD")], rules);
    expect(commissions(d2).map((w) => [w.status, w.amountWei, w.reason])).toEqual([["PAID", milli(2), "DAILY_CAP"], ["REFUSED", 0n, "PER_EVENT_CAP,DAILY_CAP"]]);
    const poor = referred({ balanceWei: milli(3) });
    expect(commissions(run(poor, [purchase("1", "USD")], rules)).map((w) => [w.status, w.reason])).toEqual([["REFUSED", "INSUFFICIENT_POOL"], ["REFUSED", "INSUFFICIENT_POOL"]]);
  });

  it("review holds: with holdForReview a commission is HELD and the event FLAGGED", () => {
    const s = referred({ settings: baseSettings({ holdForReview: true }) });
    const d = run(s, [purchase("10", "USD")], [rule({ id: "r" })]);
    expect(commissions(d)[0]).toMatchObject({ status: "HELD", reason: "HELD_FOR_REVIEW", amountWei: 0n });
    expect(d.outcomes[0]).toMatchObject({ status: "FLAGGED" });
  });

  it("no usable price: the event waits (QUEUED, PRICE_UNAVAILABLE), untouched, and is rewarded once a price exists", () => {
    const s = referred();
    const it = purchase("10", "EUR");
    const d = run(s, [it], [rule({ id: "r" })], fixedPrices({ USD: "3000" }));
    expect(d.outcomes[0]).toMatchObject({ status: "QUEUED", reason: "PRICE_UNAVAILABLE", wait: true, rewards: [] });
    expect(d.rewards).toEqual([]);
    const again = run(s, [it], [rule({ id: "r" })], fixedPrices({ EUR: "2500" }));
    expect(commissions(again)[0].amountWei).toBe(weiOf("1", "EUR", "2500"));
  });
});

// ── Property: set-based and single-event decisions of commissions agree; no wei lost or invented ──

const ci = process.env.CI === "true" || process.env.CI === "1";
const params = { numRuns: Number(process.env.PROPS_RUNS ?? (ci ? 250 : 60)), ...(process.env.PROPS_SEED ? { seed: Number(process.env.PROPS_SEED) } : ci ? { seed: 20261125 } : {}) };

const ruleArb = fc.record({
  type: fc.constantFrom("PERCENT" as const, "FIXED" as const),
  recipient: fc.constantFrom("REFERRER" as const, "REFERRED" as const),
  percent: fc.constantFrom("10", "2.5", "33.33", "100"),
  amount: fc.constantFrom(["0.001", "ETH"] as const, ["5", "USD"] as const, ["300", "JPY"] as const),
  durationMonths: fc.constantFrom(null, 1, 12),
  maxRewardsPerReferral: fc.constantFrom(null, 1, 3),
  eventName: fc.constantFrom("purchase", "renewal"),
});
const eventArb = fc.record({
  who: fc.integer({ min: 0, max: 4 }),
  name: fc.constantFrom("purchase", "renewal", "signup"),
  money: fc.oneof(
    fc.constant(null),
    fc.tuple(fc.integer({ min: 1, max: 1_000_000 }), fc.constantFrom("USD" as const, "EUR" as const)).map(([c, cur]) => [`${Math.floor(c / 100)}.${String(c % 100).padStart(2, "0")}`, cur] as const),
    fc.bigInt({ min: 1n, max: 10n ** 18n }).map((w) => [`0.${w.toString().padStart(18, "0")}`.replace(/\.?0+$/, "") || "1", "ETH"] as const),
  ),
  ageDays: fc.integer({ min: 0, max: 60 }),
});
const commissionScenario = fc.record({
  rules: fc.array(ruleArb, { minLength: 1, maxLength: 3 }),
  events: fc.array(eventArb, { minLength: 1, maxLength: 20 }),
  balance: fc.constantFrom(milli(5), milli(500), 100n * E),
  maxReferralPerEventWei: fc.constantFrom(null, milli(2)),
  maxBonusPerEventWei: fc.constantFrom(null, milli(1)),
  maxPerDayWei: fc.constantFrom(null, milli(10)),
  qualifiedDaysAgo: fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 5, maxLength: 5 }),
  statuses: fc.array(fc.constantFrom("REWARDED" as const, "QUALIFIED" as const, "PENDING" as const, "FLAGGED" as const), { minLength: 5, maxLength: 5 }),
});

const RATES = fixedPrices({ USD: "3000", EUR: "2750.5", JPY: "450000" });

function buildScenario(sc: typeof commissionScenario extends fc.Arbitrary<infer T> ? T : never) {
  const s = store({ cfg: baseConfig({ maxReferralPerEventWei: sc.maxReferralPerEventWei, maxBonusPerEventWei: sc.maxBonusPerEventWei, maxPerDayWei: sc.maxPerDayWei }), balanceWei: sc.balance });
  for (let i = 0; i < 5; i++) {
    s.participants.push(person(`u${i}`, { email: `u${i}@example.com` }));
    const st = sc.statuses[i];
    s.referrals.push(referral(`ref${i}`, "ann", `u${i}`, { status: st, reason: st === "FLAGGED" ? "HELD_FOR_REVIEW" : null, qualifiedAt: st === "QUALIFIED" || st === "REWARDED" ? new Date(NOW.getTime() - sc.qualifiedDaysAgo[i] * DAY) : null }));
  }
  const rules = sc.rules.map((r, i) => rule({ id: `rule${i}`, ...r, percent: r.type === "PERCENT" ? r.percent : null, amount: r.type === "FIXED" ? r.amount[0] : null, currency: r.type === "FIXED" ? r.amount[1] : null }));
  const items = sc.events.map((e) => purchase(e.money?.[0] ?? null, e.money?.[1] ?? null, { email: `u${e.who}@example.com`, name: e.name, ageDays: e.ageDays }));
  return { s, rules, items };
}

/** An independent oracle of a commission's requested wei: integer arithmetic over cents, hundredths of a percent and the rate. */
function oracle(w: RewardRow, rules: CommissionRuleFact[]): bigint {
  const r = rules.find((x) => x.id === w.ruleId)!;
  const base = r.type === "FIXED" ? r.amount! : w.baseAmount!;
  const cur = (r.type === "FIXED" ? r.currency : w.baseCurrency) as Currency;
  const [i, f = ""] = base.split(".");
  const units = BigInt(i + f.padEnd(18, "0")); // base × 10^18
  const pct = r.type === "PERCENT" ? BigInt(Math.round(Number(r.percent) * 100)) : 10000n; // hundredths of a percent
  const rate = cur === "ETH" ? [1n, 1n] : (() => { const [a, b = ""] = w.rate!.split("."); return [BigInt(a + b), 10n ** BigInt(b.length)]; })();
  // base × pct/10000 / (rateUnits/rateScale), in wei: units × pct × rateScale / (10000 × rateUnits)
  return (units * pct * rate[1]) / (10000n * rate[0]);
}

describe("commission properties", () => {
  it("a run of events decided at once equals the same events decided one by one; requested wei is the oracle's share, rounded down", () => {
    fc.assert(
      fc.property(commissionScenario, (sc) => {
        const a = buildScenario(sc);
        const batch = structuredClone(a.s);
        const single = structuredClone(a.s);
        const d = decide(stateWith(batch, a.items, NOW, a.rules, RATES), a.items, NOW, ids());
        apply(batch, d);
        const gen1 = ids();
        const singles: unknown[] = [];
        for (const it of a.items) {
          const one = decide(stateWith(single, [it], NOW, a.rules, RATES), [it], NOW, gen1);
          apply(single, one);
          singles.push(...one.outcomes.map((o) => (o.kind === "event" ? { status: o.status, reason: o.reason, rewards: o.rewards } : o.kind)));
        }
        expect(d.outcomes.map((o) => (o.kind === "event" ? { status: o.status, reason: o.reason, rewards: o.rewards } : o.kind))).toEqual(singles);
        expect(batch).toEqual(single);
        // No wei lost or invented: the pool moved by exactly the paid rewards, each ≤ its requested share, which is the oracle's.
        const rows = d.rewards.map((r) => r.row).filter((r) => r.kind === "COMMISSION");
        const paid = d.rewards.reduce((x, r) => x + (r.row.status === "PAID" ? r.row.amountWei : 0n), 0n);
        expect(batch.balanceWei).toBe(a.s.balanceWei - paid);
        expect(batch.balanceWei >= 0n).toBe(true);
        for (const w of rows) {
          if (w.reason === "NO_AMOUNT") continue;
          expect(w.requestedWei).toBe(oracle(w, a.rules));
          expect(w.amountWei <= w.requestedWei).toBe(true);
        }
        // Per event and recipient, the per-event cap holds over all of its rewards.
        const perEvent = new Map<string, bigint>();
        for (const w of d.rewards.map((r) => r.row)) perEvent.set(`${w.eventId} ${w.participantId}`, (perEvent.get(`${w.eventId} ${w.participantId}`) ?? 0n) + w.amountWei);
        for (const [k, v] of perEvent) {
          const cap = k.endsWith(" ann") ? sc.maxReferralPerEventWei : sc.maxBonusPerEventWei;
          if (cap !== null) expect(v <= cap).toBe(true);
        }
        // maxRewardsPerReferral holds.
        for (const r of a.rules) {
          if (r.maxRewardsPerReferral === null) continue;
          const per = new Map<string, number>();
          for (const w of batch.rewards) if (w.ruleId === r.id && w.status !== "REFUSED") per.set(w.referralId!, (per.get(w.referralId!) ?? 0) + 1);
          for (const n of per.values()) expect(n <= r.maxRewardsPerReferral).toBe(true);
        }
      }),
      params,
    );
  });
});
