// Property tests of the rules core, pure (no database): random businesses (rules, caps, pool,
// tiers, review holds, windows), random histories with an age dimension (referrals days old,
// paid rewards of today and yesterday, `now` around a UTC midnight, events of the last days) and
// random runs of events of every shape. Replay a failure with PROPS_SEED=<seed> (fast-check
// prints it); CI pins the seed and runs 250 cases per property, as `npm run test:props` does
// (PROPS_RUNS sets the count; 60 by default, for a quick local run).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Referral } from "../../db/generated";
import { apply, baseConfig, baseSettings, event, ids, person, referral, stateOf, store, type Store } from "../../../tests/support/rules-model";
import { decide, decideInSteps, type Decisions, type RewardRow, type RuleItem } from "./decide";
import { utcDayStart } from "./screen";

const DAY = 86_400_000;
const E = 10n ** 18n;
const milli = (n: number) => (BigInt(n) * E) / 1000n;
const MIDNIGHT = Date.parse("2026-03-11T00:00:00.000Z");

const ci = process.env.CI === "true" || process.env.CI === "1";
const params = {
  numRuns: Number(process.env.PROPS_RUNS ?? (ci ? 250 : 60)),
  ...(process.env.PROPS_SEED ? { seed: Number(process.env.PROPS_SEED) } : ci ? { seed: 20261125 } : {}),
};

const cfgArb = fc.record({
  rewardStrategy: fc.constantFrom("FIXED" as const, "TIERED" as const),
  referralWei: fc.constantFrom(milli(10), milli(6), 0n),
  bonusWei: fc.constantFrom(milli(4), 0n),
  qualifyingEvents: fc.constantFrom<string[]>([], ["purchase"]),
  maxPerDayWei: fc.constantFrom(null, milli(25)),
  maxReferralPerEventWei: fc.constantFrom(null, milli(8)),
  maxBonusPerEventWei: fc.constantFrom(null, milli(3)),
  lowPoolWei: fc.constantFrom(0n, milli(30)),
  autoRefill: fc.boolean(),
  autoRefillWei: fc.constant(milli(100)),
});
const settingsArb = fc.record({
  holdForReview: fc.constant(false),
  blockSelfReferral: fc.boolean(),
  oneReferralPerReferredUser: fc.boolean(),
  maxReferralsPerReferrerPerDay: fc.constantFrom(null, 1, 3),
  blockedEmailDomains: fc.constantFrom<string[]>([], ["blocked.test"]),
  blockDisposableEmails: fc.boolean(),
  attributionWindowDays: fc.constantFrom(null, 1, 30),
});
const holdArb = fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });

/** An existing referred user: their referral's referrer, status and age, and rewards paid to them today or yesterday. */
const historyArb = fc.record({
  referrer: fc.constantFrom("r1", "r2", "r3"),
  status: fc.constantFrom("PENDING" as const, "PENDING" as const, "QUALIFIED" as const, "REWARDED" as const, "REJECTED" as const, "FLAGGED" as const),
  ageDays: fc.integer({ min: 0, max: 40 }),
  paidMinutesAgo: fc.option(fc.integer({ min: 0, max: 2 * 24 * 60 }), { nil: null }),
});

const itemArb = fc.record({
  name: fc.oneof({ weight: 4, arbitrary: fc.constant("purchase") }, { weight: 1, arbitrary: fc.constant("signup") }),
  referrer: fc.oneof({ weight: 8, arbitrary: fc.constantFrom("R1", "R2", " r3 ", "star") }, { weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constant("NOSUCH") }),
  who: fc.oneof(
    { weight: 5, arbitrary: fc.constant("new") },
    { weight: 5, arbitrary: fc.constant("old") },
    { weight: 2, arbitrary: fc.constant("again") },
    { weight: 1, arbitrary: fc.constantFrom("none", "self", "blocked", "disposable", "malformed", "byUserId") },
  ),
  untrusted: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  ageMinutes: fc.integer({ min: 0, max: 3 * 24 * 60 }),
  // The referred user's name as sent: a later event may rename a user an earlier one of the run created.
  userName: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom("Ann", "Bo") }),
});

const scenarioArb = fc.record({
  cfg: cfgArb,
  settings: settingsArb,
  hold: holdArb,
  provisionalHistory: fc.boolean(),
  balance: fc.constantFrom(0n, milli(30), milli(100), E),
  history: fc.array(historyArb, { maxLength: 6 }),
  // `now` within an hour of a UTC midnight, either side.
  nowOffsetSeconds: fc.integer({ min: -3600, max: 3600 }),
  items: fc.array(itemArb, { minLength: 1, maxLength: 25 }),
});
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

const TIERS = [
  { id: "silver", minReferrals: 2, referralWei: milli(20), bonusWei: milli(1) },
  { id: "gold", minReferrals: 4, referralWei: milli(30), bonusWei: 0n },
];

function build(sc: Scenario): { s: Store; items: RuleItem[]; now: Date } {
  const now = new Date(MIDNIGHT + sc.nowOffsetSeconds * 1000);
  const s = store({ cfg: baseConfig(sc.cfg), settings: baseSettings({ ...sc.settings, holdForReview: sc.hold }), tiers: TIERS, balanceWei: sc.balance, participants: [] });
  s.participants.push(person("r1", { email: "r1@example.com", externalId: "R1" }), person("r2", { email: "r2@example.com" }), person("r3", { email: "r3@example.com", handle: "star" }));
  sc.history.forEach((h, i) => {
    const id = `old${i}`;
    s.participants.push(person(id, { email: `${id}@example.com`, externalId: i % 2 ? `user-${id}` : null }));
    const status = h.status;
    s.referrals.push(
      referral(`ref-${id}`, h.referrer, id, {
        status,
        reason: status === "REJECTED" ? "SELF_REFERRAL" : status === "FLAGGED" ? "HELD_FOR_REVIEW" : null,
        createdAt: new Date(now.getTime() - h.ageDays * DAY - 1000),
        qualifiedAt: status === "QUALIFIED" || status === "REWARDED" ? now : null,
        provisional: sc.provisionalHistory && i === 0 && status === "PENDING",
      }),
    );
    if (h.paidMinutesAgo !== null && status === "REWARDED") {
      const paidAt = new Date(now.getTime() - h.paidMinutesAgo * 60_000);
      s.rewards.push({ id: `w-${id}`, businessId: "b", environment: "TEST", participantId: h.referrer, eventId: null, referralId: `ref-${id}`, kind: "REFERRAL", requestedWei: milli(10), amountWei: milli(5), status: "PAID", reason: null, note: null, createdAt: paidAt, paidAt });
    }
  });
  let fresh = 0;
  const olds = sc.history.map((_, i) => `old${i}`);
  const items = sc.items.map((it, i) => {
    let email: unknown;
    let userId: unknown;
    if (it.who === "new") email = `new${++fresh}@example.com`;
    else if (it.who === "again") email = fresh ? `new${fresh}@example.com` : "first@example.com";
    else if (it.who === "old") email = olds.length ? `${olds[i % olds.length]}@example.com` : "nobody@example.com";
    else if (it.who === "byUserId") userId = olds.length > 1 ? `user-old1` : "R1";
    else if (it.who === "self") email = "r2@example.com";
    else if (it.who === "blocked") email = `b${i}@blocked.test`;
    else if (it.who === "disposable") email = `d${i}@mailinator.com`;
    else if (it.who === "malformed") email = 7;
    const e = event({ name: it.name, referrer: it.referrer, email, userId, userName: it.userName, untrusted: it.untrusted });
    e.event!.createdAt = new Date(now.getTime() - it.ageMinutes * 60_000);
    return e;
  });
  return { s, items, now };
}

const clone = (s: Store): Store => structuredClone(s);
const view = (d: Decisions) =>
  d.outcomes.map((o) =>
    o.kind === "error"
      ? { error: o.error.code }
      : o.kind === "event"
        ? { status: o.status, reason: o.reason, referral: o.referral?.id ?? null, referred: o.referred?.id ?? null, rewards: o.rewards }
        : { apply: o.referral.id },
  );

describe("rules core properties", () => {
  it("a run decided at once equals the same events decided one by one (one event is a batch of one)", () => {
    fc.assert(
      fc.property(scenarioArb, (sc) => {
        const { s, items, now } = build(sc);
        const batch = clone(s);
        const single = clone(s);
        const gen = ids();
        const d = decide(stateOf(batch, items, now), items, now, gen);
        apply(batch, d);
        const gen1 = ids();
        const singles: ReturnType<typeof view> = [];
        for (const it of items) {
          const one = decide(stateOf(single, [it], now), [it], now, gen1);
          apply(single, one);
          singles.push(...view(one));
        }
        expect(view(d)).toEqual(singles);
        expect(batch).toEqual(single);
      }),
      params,
    );
  });

  it("decided a stretch at a time (as the writer sends chunks), each stretch's rows are final when it is decided and the whole equals one decide", () => {
    fc.assert(
      fc.property(scenarioArb, fc.integer({ min: 1, max: 5 }), (sc, step) => {
        const { s, items, now } = build(sc);
        const whole = decide(stateOf(clone(s), items, now), items, now, ids());
        const run = decideInSteps(stateOf(clone(s), items, now), items, now, ids());
        // What the writer takes for a chunk: the rows of the items decided so far, copied when taken.
        const taken: Record<"participants" | "referrals" | "events" | "rewards" | "debits", unknown[]> = { participants: [], referrals: [], events: [], rewards: [], debits: [] };
        for (let from = 0; ; ) {
          run.to(from + step);
          const to = Math.min(run.out.next, from + step);
          if (to <= from) break;
          for (const k of Object.keys(taken) as (keyof typeof taken)[]) taken[k].push(...structuredClone((run.out[k] as { at: number }[]).filter((r) => r.at >= from && r.at < to)));
          from = to;
        }
        expect(run.out.next).toBe(whole.next);
        for (const k of Object.keys(taken) as (keyof typeof taken)[]) expect(taken[k]).toEqual(whole[k]);
        expect([...run.out.participantUpdates.values()]).toEqual([...whole.participantUpdates.values()]);
        expect([...run.out.referralUpdates.values()]).toEqual([...whole.referralUpdates.values()]);
        expect(view(run.out)).toEqual(view(whole));
      }),
      params,
    );
  });

  it("money: the pool never goes negative and moves by the debits; caps per event and per UTC day hold; each referral settles once", () => {
    fc.assert(
      fc.property(scenarioArb, (sc) => {
        const { s, items, now } = build(sc);
        const before = clone(s);
        const d = decide(stateOf(s, items, now), items, now, ids());
        apply(s, d);
        const debited = d.debits.reduce((a, x) => a + x.amountWei, 0n);
        expect(s.balanceWei).toBe(before.balanceWei - debited);
        expect(s.balanceWei >= 0n).toBe(true);
        const paid = d.rewards.map((r) => r.row).filter((r) => r.status === "PAID");
        expect(paid.reduce((a, r) => a + r.amountWei, 0n)).toBe(debited);
        for (const r of d.rewards.map((x) => x.row)) {
          expect(r.amountWei <= r.requestedWei).toBe(true);
          const cap = r.kind === "REFERRAL" ? sc.cfg.maxReferralPerEventWei : sc.cfg.maxBonusPerEventWei;
          if (cap !== null) expect(r.amountWei <= cap).toBe(true);
          if (r.status !== "PAID") expect(r.amountWei).toBe(0n);
        }
        if (sc.cfg.maxPerDayWei !== null) {
          const day = utcDayStart(now);
          const perDay = new Map<string, bigint>();
          for (const r of s.rewards) if (r.status === "PAID" && r.paidAt! >= day) perDay.set(r.participantId, (perDay.get(r.participantId) ?? 0n) + r.amountWei);
          const earlier = new Map<string, bigint>();
          for (const r of before.rewards) if (r.status === "PAID" && r.paidAt! >= day) earlier.set(r.participantId, (earlier.get(r.participantId) ?? 0n) + r.amountWei);
          for (const [who, total] of perDay) {
            const before = earlier.get(who) ?? 0n;
            expect(total <= (before > sc.cfg.maxPerDayWei ? before : sc.cfg.maxPerDayWei)).toBe(true);
          }
        }
        const settledBy = new Map<string, Set<string | null>>();
        for (const r of s.rewards) if (r.referralId) settledBy.set(r.referralId, (settledBy.get(r.referralId) ?? new Set()).add(r.eventId));
        for (const events of settledBy.values()) expect(events.size).toBe(1);
      }),
      params,
    );
  });

  it("nothing pays for an untrusted event, a provisional or rejected referral, an event past the window or a name that does not qualify", () => {
    fc.assert(
      fc.property(scenarioArb, (sc) => {
        const { s, items, now } = build(sc);
        const d = decide(stateOf(s, items, now), items, now, ids());
        items.forEach((it, i) => {
          const o = d.outcomes[i];
          if (o.kind !== "event" || !o.rewards.length) return;
          const e = it.event!;
          const r = o.referral as Referral;
          expect(e.untrusted).toBe(false);
          expect(r.provisional).toBe(false);
          expect(r.status).not.toBe("REJECTED");
          if (sc.cfg.qualifyingEvents.length) expect(sc.cfg.qualifyingEvents).toContain(e.eventName);
          if (sc.settings.attributionWindowDays !== null) expect(e.createdAt.getTime() - r.createdAt.getTime() <= sc.settings.attributionWindowDays * DAY).toBe(true);
          const who = new Set(o.rewards.map((w: RewardRow) => w.participantId));
          expect([...who].every((p) => p === r.referrerId || p === r.referredId)).toBe(true);
        });
      }),
      params,
    );
  });

  it("one low-pool alert per crossing (with the refill request when auto-refill is on), none otherwise", () => {
    fc.assert(
      fc.property(scenarioArb, (sc) => {
        const { s, items, now } = build(sc);
        const start = s.balanceWei;
        const d = decide(stateOf(s, items, now), items, now, ids());
        const end = start - d.debits.reduce((x, y) => x + y.amountWei, 0n);
        // The pool's flag starts clear: the first debit that leaves the balance below the threshold alerts, once.
        const expected = d.debits.length > 0 && end < sc.cfg.lowPoolWei ? 1 : 0;
        expect(d.alerts.filter((a) => a.kind === "LOW_POOL")).toHaveLength(expected);
        expect(d.alerts.filter((a) => a.kind === "REFILL_REQUEST")).toHaveLength(sc.cfg.autoRefill ? expected : 0);
        expect(d.webhooks.filter((w) => w.type === "pool.low")).toHaveLength(expected);
      }),
      params,
    );
  });

  it("tiers: a referrer's REFERRAL reward is the amount of the tier of its qualified count, this referral included", () => {
    fc.assert(
      fc.property(scenarioArb, (sc) => {
        const { s, items, now } = build({ ...sc, cfg: { ...sc.cfg, rewardStrategy: "TIERED", maxReferralPerEventWei: null, maxPerDayWei: null }, hold: false });
        s.balanceWei = 100n * E;
        const count = new Map<string, number>();
        for (const r of s.referrals) if (r.status === "QUALIFIED" || r.status === "REWARDED") count.set(r.referrerId, (count.get(r.referrerId) ?? 0) + 1);
        const d = decide(stateOf(s, items, now), items, now, ids());
        for (const o of d.outcomes) {
          // Qualified by this event (PROCESSED without a reason), or held with rewards (FLAGGED).
          const qualifiedNow = o.kind === "event" && !!o.referral && ((o.status === "PROCESSED" && o.reason === null) || (o.status === "FLAGGED" && o.rewards.length > 0));
          if (o.kind !== "event" || !qualifiedNow) continue;
          const referrer = o.referral!.referrerId;
          const n = (count.get(referrer) ?? 0) + 1;
          // A held referral (FLAGGED) is measured as if qualified, but counts only once approved.
          if (o.status !== "FLAGGED") count.set(referrer, n);
          const tier = [...TIERS].reverse().find((t) => t.minReferrals <= n);
          const want = tier ? tier.referralWei : sc.cfg.referralWei;
          const got = o.rewards.find((w) => w.kind === "REFERRAL");
          expect(got?.requestedWei ?? 0n).toBe(want);
        }
      }),
      params,
    );
  });
});
