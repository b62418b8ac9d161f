// The rules core's decisions, one rule at a time, with no database (vitest project "pure"):
// each test builds a store (tests/support/rules-model.ts), decides items over it and reads the
// outcomes and rows. Dates are fixed: ages are in days before `NOW`, which is shortly before a
// UTC midnight so that "today" and "yesterday" are both one step away.
import { describe, expect, it } from "vitest";
import { apply, baseConfig, baseSettings, DAY, event, ids, milli, NOW, person, referral, stateOf, store, type Store } from "../../../tests/support/rules-model";
import { decide, type ClickFact, type Decisions, type RuleItem } from "./decide";

const E = 10n ** 18n;

const gen = ids();
function run(s: Store, items: RuleItem[], now = NOW): Decisions {
  const d = decide(stateOf(s, items, now), items, now, gen);
  apply(s, d);
  return d;
}
const only = (d: Decisions) => {
  const o = d.outcomes[0];
  if (o.kind !== "event") throw new Error(`not an event outcome: ${o.kind}`);
  return o;
};

describe("rules core: referral and referred user", () => {
  it("creates the referred user and a PENDING referral, and pays REFERRAL and BONUS at the first qualifying event", () => {
    const s = store();
    const o = only(run(s, [event({ referrer: "ANN", email: "bob@example.com" })]));
    expect(o).toMatchObject({ status: "PROCESSED", reason: null });
    expect(o.rewards.map((r) => [r.kind, r.status, r.amountWei])).toEqual([["REFERRAL", "PAID", milli(10)], ["BONUS", "PAID", milli(4)]]);
    expect(s.referrals[0]).toMatchObject({ status: "REWARDED", referrerId: "ann" });
    expect(s.balanceWei).toBe(E - milli(14));
    // A later purchase of the same user: the referral is settled.
    expect(only(run(s, [event({ email: "bob@example.com" })]))).toMatchObject({ status: "PROCESSED", reason: "REFERRAL_ALREADY_SETTLED", rewards: [] });
  });

  it("answers an unknown referrer code with UNKNOWN_REFERRAL_CODE and malformed metadata with an internal error, writing nothing", () => {
    const s = store();
    const d = run(s, [event({ referrer: "NOSUCH", email: "x@example.com" }), event({ referrer: "ANN", email: 12345 })]);
    expect(d.outcomes.map((o) => (o.kind === "error" ? o.error.code : o.kind))).toEqual(["UNKNOWN_REFERRAL_CODE", "INTERNAL"]);
    expect(d.participants).toEqual([]);
    expect(d.events).toEqual([]);
  });

  it("rejects self-referrals, blocked and disposable domains, a second referrer and the referrer's daily limit", () => {
    const s = store({ settings: baseSettings({ blockedEmailDomains: ["blocked.test"], blockDisposableEmails: true, maxReferralsPerReferrerPerDay: 2 }) });
    s.participants.push(person("cat", { email: "cat@example.com" }));
    const d = run(s, [
      event({ referrer: "ANN", email: "ann@example.com" }),
      event({ referrer: "ANN", email: "x@blocked.test" }),
      event({ referrer: "ANN", email: "y@mailinator.com" }),
      event({ referrer: "ANN", email: "dan@example.com" }),
      event({ referrer: "CAT", email: "dan@example.com" }),
      event({ referrer: "ANN", email: "eve@example.com" }),
      event({ referrer: "ANN", email: "fay@example.com" }),
    ]);
    expect(d.outcomes.map((o) => (o.kind === "event" ? o.reason : null))).toEqual(["SELF_REFERRAL", "BLOCKED_EMAIL_DOMAIN", "DISPOSABLE_EMAIL", null, "ALREADY_REFERRED", null, "REFERRER_DAILY_LIMIT"]);
  });

  it("counts the referrer's referrals of the UTC day only: yesterday's do not count against today's limit", () => {
    const s = store({ settings: baseSettings({ maxReferralsPerReferrerPerDay: 1 }) });
    s.participants.push(person("old", { email: "old@example.com" }));
    // One made a day before NOW: yesterday (UTC), so it does not count today.
    s.referrals.push(referral("r-old", "ann", "old", { createdAt: new Date(NOW.getTime() - DAY) }));
    expect(only(run(s, [event({ referrer: "ANN", email: "new@example.com" })])).reason).toBeNull();
    expect(only(run(s, [event({ referrer: "ANN", email: "new2@example.com" })])).reason).toBe("REFERRER_DAILY_LIMIT");
    // After midnight the day starts again.
    const tomorrow = new Date(NOW.getTime() + 60_000);
    expect(only(run(s, [event({ referrer: "ANN", email: "new3@example.com" })], tomorrow)).reason).toBeNull();
  });
});

describe("rules core: settlement", () => {
  it("pays only qualifying event names", () => {
    const s = store({ cfg: baseConfig({ qualifyingEvents: ["purchase"] }) });
    expect(only(run(s, [event({ name: "signup", referrer: "ANN", email: "bob@example.com" })])).reason).toBe("NOT_A_QUALIFYING_EVENT");
    expect(only(run(s, [event({ name: "purchase", email: "bob@example.com" })])).rewards).toHaveLength(2);
  });

  it("refuses events past the attribution window, measured from the referral's creation (days old)", () => {
    const s = store({ settings: baseSettings({ attributionWindowDays: 30 }) });
    s.participants.push(person("bob", { email: "bob@example.com" }), person("cy", { email: "cy@example.com" }));
    s.referrals.push(referral("r1", "ann", "bob", { createdAt: new Date(NOW.getTime() - 31 * DAY) }), referral("r2", "ann", "cy", { createdAt: new Date(NOW.getTime() - 29 * DAY) }));
    expect(only(run(s, [event({ email: "bob@example.com" })]))).toMatchObject({ reason: "ATTRIBUTION_WINDOW_EXPIRED", rewards: [] });
    // Exactly on the boundary: 30 days after the referral is still inside.
    expect(only(run(s, [event({ email: "bob@example.com", ageDays: 1 })])).reason).toBeNull();
    expect(only(run(s, [event({ email: "cy@example.com" })])).rewards).toHaveLength(2);
  });

  it("never qualifies with an untrusted event; a trusted one then pays once", () => {
    const s = store();
    const first = only(run(s, [event({ referrer: "ANN", email: "bob@example.com", untrusted: true })]));
    expect(first).toMatchObject({ status: "PROCESSED", reason: "UNTRUSTED_EVENT", rewards: [] });
    expect(only(run(s, [event({ referrer: "ANN", email: "bob@example.com" })])).rewards).toHaveLength(2);
  });

  it("an untrusted event holds nothing on a flagged referral either", () => {
    const s = store();
    s.participants.push(person("bob", { email: "bob@example.com" }));
    s.referrals.push(referral("r1", "ann", "bob", { status: "FLAGGED", reason: "HELD_FOR_REVIEW" }));
    expect(only(run(s, [event({ email: "bob@example.com", untrusted: true })]))).toMatchObject({ status: "FLAGGED", rewards: [] });
    expect(only(run(s, [event({ email: "bob@example.com" })])).rewards.map((r) => r.status)).toEqual(["HELD", "HELD"]);
  });

  it("TIERED: the referrer's tier by qualified referrals, this one included; amounts below every tier from config", () => {
    const tiers = [
      { id: "silver", minReferrals: 2, referralWei: milli(20), bonusWei: milli(1) },
      { id: "gold", minReferrals: 3, referralWei: milli(30), bonusWei: 0n },
    ];
    const s = store({ cfg: baseConfig({ rewardStrategy: "TIERED" }), tiers });
    const d = run(s, ["a", "b", "c", "d"].map((x) => event({ referrer: "ANN", email: `${x}@example.com` })));
    expect(d.outcomes.map((o) => (o.kind === "event" ? o.rewards.map((r) => `${r.kind}:${r.amountWei / 10n ** 15n}`).join(",") : ""))).toEqual([
      "REFERRAL:10,BONUS:4",
      "REFERRAL:20,BONUS:1",
      "REFERRAL:30",
      "REFERRAL:30",
    ]);
  });

  it("applies the per-event caps, the daily cap per participant (UTC day) and the pool, with reasons", () => {
    const s = store({ cfg: baseConfig({ maxReferralPerEventWei: milli(8), maxBonusPerEventWei: milli(3), maxPerDayWei: milli(12) }), balanceWei: milli(20) });
    const d = run(s, ["a", "b", "c"].map((x) => event({ referrer: "ANN", email: `${x}@example.com` })));
    const got = d.outcomes.map((o) => (o.kind === "event" ? o.rewards.map((r) => `${r.kind}:${r.status}:${r.amountWei / 10n ** 15n}:${r.reason}`) : []));
    expect(got).toEqual([
      ["REFERRAL:PAID:8:PER_EVENT_CAP", "BONUS:PAID:3:PER_EVENT_CAP"],
      ["REFERRAL:PAID:4:PER_EVENT_CAP,DAILY_CAP", "BONUS:PAID:3:PER_EVENT_CAP"],
      ["REFERRAL:REFUSED:0:PER_EVENT_CAP,DAILY_CAP", "BONUS:REFUSED:0:PER_EVENT_CAP,INSUFFICIENT_POOL"],
    ]);
    expect(s.balanceWei).toBe(milli(2));
    // The next UTC day the daily cap starts again.
    s.balanceWei = E;
    const later = run(s, [event({ referrer: "ANN", email: "d@example.com" })], new Date(NOW.getTime() + 60_000));
    expect(only(later).rewards[0]).toMatchObject({ status: "PAID", amountWei: milli(8) });
  });

  it("raises one LOW_POOL alert per crossing, with a REFILL_REQUEST when auto-refill is on", () => {
    const s = store({ cfg: baseConfig({ lowPoolWei: milli(25), autoRefill: true, autoRefillWei: milli(100) }), balanceWei: milli(40) });
    const d = run(s, ["a", "b"].map((x) => event({ referrer: "ANN", email: `${x}@example.com` })));
    expect(d.alerts.map((a) => [a.kind, a.message])).toEqual([
      ["LOW_POOL", "Pool balance 0.016 ETH fell below the alert threshold of 0.025 ETH"],
      ["REFILL_REQUEST", "Auto-refill: please deposit 0.1 ETH to the TEST pool (balance 0.016 ETH)"],
    ]);
    expect(d.belowThreshold).toBe(true);
    expect(d.webhooks.filter((w) => w.type === "pool.low")).toHaveLength(1);
    expect(run(s, [event({ referrer: "ANN", email: "c@example.com" })]).alerts).toEqual([]);
  });

  it("a balance landing exactly on the low-pool threshold is not below it: no alert until a debit takes it under", () => {
    const s = store({ cfg: baseConfig({ lowPoolWei: milli(25) }), balanceWei: milli(39) });
    const on = run(s, [event({ referrer: "ANN", email: "a@example.com" })]);
    expect(s.balanceWei).toBe(milli(25));
    expect(on.alerts).toEqual([]);
    expect(on.belowThreshold).toBeNull();
    expect(on.webhooks.filter((w) => w.type === "pool.low")).toEqual([]);
    const under = run(s, [event({ referrer: "ANN", email: "b@example.com" })]);
    expect(under.alerts.map((a) => [a.kind, a.message])).toEqual([["LOW_POOL", "Pool balance 0.015 ETH fell below the alert threshold of 0.025 ETH"]]);
    expect(under.belowThreshold).toBe(true);
  });

  it("holds rewards for review: FLAGGED event with HELD rewards and an event.flagged message; later events carry none", () => {
    const s = store({ settings: baseSettings({ holdForReview: true }) });
    const d = run(s, [event({ referrer: "ANN", email: "bob@example.com" })]);
    expect(only(d)).toMatchObject({ status: "FLAGGED", reason: "HELD_FOR_REVIEW" });
    expect(only(d).rewards.map((r) => [r.status, r.amountWei])).toEqual([["HELD", 0n], ["HELD", 0n]]);
    expect(d.webhooks.map((w) => w.type)).toEqual(["referral.created", "referral.flagged", "reward.created", "reward.created", "event.flagged"]);
    const again = run(s, [event({ email: "bob@example.com" })]);
    expect(only(again)).toMatchObject({ status: "FLAGGED", rewards: [] });
    expect(again.webhooks.map((w) => w.type)).toEqual(["event.flagged"]);
  });

  it("a rejected referral makes its event REJECTED with the referral's reason", () => {
    const s = store();
    expect(only(run(s, [event({ referrer: "ANN", email: "ann@example.com" })]))).toMatchObject({ status: "REJECTED", reason: "SELF_REFERRAL" });
  });

  it("a reversal event is decided first in a run of its own, linked to the user's referral", () => {
    const s = store({ cfg: baseConfig({ reversalEvents: ["refund"] }) });
    run(s, [event({ referrer: "ANN", email: "bob@example.com" })]);
    const d = run(s, [event({ email: "bob@example.com" }), event({ name: "refund", email: "bob@example.com" })]);
    expect(d.next).toBe(1);
    const r = run(s, [event({ name: "refund", email: "bob@example.com" }), event({ email: "bob@example.com" })]);
    expect(r.next).toBe(1);
    expect(only(r)).toMatchObject({ reversal: { referredId: s.referrals[0].referredId }, referral: { id: s.referrals[0].id } });
  });
});

describe("rules core: provisional referrals and the active referral", () => {
  it("an event without a referrer belongs to the user's active referral, not a newer rejected one", () => {
    const s = store();
    s.participants.push(person("bob", { email: "bob@example.com" }), person("cat", { email: "cat@example.com" }));
    s.referrals.push(referral("r-active", "ann", "bob", { createdAt: new Date(NOW.getTime() - 2 * DAY) }), referral("r-rejected", "cat", "bob", { status: "REJECTED", reason: "ALREADY_REFERRED" }));
    const o = only(run(s, [event({ email: "bob@example.com" })]));
    expect(o.referral?.id).toBe("r-active");
    expect(o.rewards.map((r) => r.participantId)).toEqual(["ann", "bob"]);
  });

  it("a publishable key's referral is provisional: never paid, superseded by a secret key's referral of another referrer", () => {
    const s = store();
    s.participants.push(person("mal", { email: "mal@example.com" }));
    const browser = only(run(s, [event({ referrer: "MAL", email: "bob@example.com", untrusted: true })]));
    expect(browser.referral).toMatchObject({ provisional: true, status: "PENDING" });
    // A trusted event without a referrer does not pay the provisional referrer.
    expect(only(run(s, [event({ email: "bob@example.com" })]))).toMatchObject({ reason: "PROVISIONAL_REFERRAL", rewards: [] });
    // The honest referrer's referral is not ALREADY_REFERRED, and it supersedes the provisional one.
    const honest = only(run(s, [event({ referrer: "ANN", email: "bob@example.com" })]));
    expect(honest).toMatchObject({ reason: null, referral: { referrerId: "ann", status: "REWARDED", provisional: false } });
    expect(s.referrals.find((r) => r.referrerId === "mal")).toMatchObject({ status: "REJECTED", reason: "SUPERSEDED" });
  });

  it("a publishable key's referrals count toward its own daily limit, never toward a secret key's", () => {
    const s = store({ settings: baseSettings({ maxReferralsPerReferrerPerDay: 2 }) });
    // Anyone with the browser key fills Ann's day with made-up customers.
    const spam = run(s, ["a", "b", "c"].map((x) => event({ referrer: "ANN", email: `${x}@example.com`, untrusted: true })));
    expect(spam.outcomes.map((o) => (o.kind === "event" ? o.referral?.reason : null))).toEqual([null, null, "REFERRER_DAILY_LIMIT"]);
    // The business's server still records Ann's real referrals of the day, up to the limit.
    const real = run(s, ["d", "e", "f"].map((x) => event({ referrer: "ANN", email: `${x}@example.com` })));
    expect(real.outcomes.map((o) => (o.kind === "event" ? o.referral?.reason : null))).toEqual([null, null, "REFERRER_DAILY_LIMIT"]);
  });

  it("confirming a provisional referral counts it toward the secret key's daily limit: past it, rejected", () => {
    const s = store({ settings: baseSettings({ maxReferralsPerReferrerPerDay: 1 }) });
    run(s, [event({ name: "signup", referrer: "ANN", email: "a@example.com", untrusted: true })]);
    expect(only(run(s, [event({ name: "signup", referrer: "ANN", email: "b@example.com" })])).referral?.reason).toBeNull();
    const confirmed = only(run(s, [event({ name: "signup", referrer: "ANN", email: "a@example.com" })]));
    expect(confirmed.referral).toMatchObject({ provisional: false, status: "REJECTED", reason: "REFERRER_DAILY_LIMIT" });
  });

  it("a pair rejected while provisional (another provisional referral came first) is screened again when a secret key confirms it", () => {
    const s = store();
    s.participants.push(person("mal", { email: "mal@example.com" }));
    // Mallory's browser apply comes first; Ann's own browser apply for the same customer is then ALREADY_REFERRED.
    run(s, [event({ referrer: "MAL", email: "bob@example.com", untrusted: true })]);
    const ann = only(run(s, [event({ name: "signup", referrer: "ANN", email: "bob@example.com", untrusted: true })]));
    expect(ann.referral).toMatchObject({ status: "REJECTED", reason: "ALREADY_REFERRED", provisional: true });
    // The business's server confirms Ann's pair: it is screened as the secret key's (only a provisional one stands in its way) and pays.
    const confirmedRun = run(s, [event({ referrer: "ANN", email: "bob@example.com" })]);
    const confirmed = only(confirmedRun);
    expect(confirmed).toMatchObject({ reason: null, referral: { referrerId: "ann", provisional: false, status: "REWARDED" } });
    expect(s.referrals.find((r) => r.referrerId === "mal")).toMatchObject({ status: "REJECTED", reason: "SUPERSEDED" });
    // The integration hears that Ann's pair is back (referral.confirmed, PENDING again), then the rest.
    expect(confirmedRun.webhooks.map((w) => [w.type, (w.data as { status: string }).status])).toEqual([
      ["referral.rejected", "REJECTED"],
      ["referral.confirmed", "PENDING"],
      ["referral.qualified", "QUALIFIED"],
      ["reward.created", "PAID"],
      ["reward.created", "PAID"],
    ]);
    // A pair a reviewer (or a signal) rejected stays rejected when confirmed.
    s.participants.push(person("cy", { email: "cy@example.com" }));
    run(s, [event({ referrer: "CY", email: "dee@example.com", untrusted: true })]);
    const reviewed = s.referrals.find((r) => r.referrerId === "cy")!;
    reviewed.status = "REJECTED";
    reviewed.reason = "Looks fake";
    expect(only(run(s, [event({ referrer: "CY", email: "dee@example.com" })])).referral).toMatchObject({ status: "REJECTED", reason: "Looks fake", provisional: false });
    // A pair a secret key's referral superseded stays rejected when confirmed.
    const mal = only(run(s, [event({ referrer: "MAL", email: "bob@example.com" })]));
    expect(mal.referral).toMatchObject({ referrerId: "mal", status: "REJECTED", reason: "SUPERSEDED" });
  });

  it("a publishable key changes nothing of an existing participant: no user id, email or name of theirs", () => {
    const s = store();
    s.participants.push(person("bob", { email: "bob@example.com" }));
    run(s, [event({ referrer: "ANN", email: "bob@example.com", userId: "taken-id", userName: "Mallory", untrusted: true })]);
    expect(s.participants.find((p) => p.id === "bob")).toMatchObject({ email: "bob@example.com", externalId: null, name: null });
    // The business's own key still fills what is missing.
    run(s, [event({ referrer: "ANN", email: "bob@example.com", userId: "bob-1", userName: "Bob" })]);
    expect(s.participants.find((p) => p.id === "bob")).toMatchObject({ externalId: "bob-1", name: "Bob" });
  });

  it("a provisional referral is confirmed when the same pair comes with a secret key", () => {
    const s = store();
    run(s, [event({ referrer: "ANN", email: "bob@example.com", untrusted: true })]);
    const d = run(s, [event({ referrer: "ANN", email: "bob@example.com" })]);
    expect(only(d)).toMatchObject({ reason: null, referral: { provisional: false, status: "REWARDED" } });
    expect(s.referrals).toHaveLength(1);
    expect(d.webhooks.map((w) => w.type).filter((t) => t.startsWith("referral."))).toEqual(["referral.confirmed", "referral.qualified"]);
    // Once confirmed, the pair is not confirmed again.
    expect(run(s, [event({ referrer: "ANN", email: "bob@example.com" })]).webhooks.map((w) => w.type)).not.toContain("referral.confirmed");
  });

  it("a provisional referral still blocks another provisional one", () => {
    const s = store();
    s.participants.push(person("mal", { email: "mal@example.com" }));
    run(s, [event({ referrer: "MAL", email: "bob@example.com", untrusted: true })]);
    expect(only(run(s, [event({ referrer: "ANN", email: "bob@example.com", untrusted: true })])).reason).toBe("ALREADY_REFERRED");
  });
});

describe("rules core: a click names its referrer", () => {
  /** Ann's link was clicked (click c-ann); bo is another referrer of the business. */
  function withClick(items: RuleItem[]) {
    const s = store();
    s.participants.push(person("bo", { email: "bo@example.com" }));
    const st = stateOf(s, items, NOW);
    const click: ClickFact = { id: "c-ann", participantId: "ann", visitorHash: "v", visitorClicksThisHour: 1 };
    st.clicks = new Map([[click.id, click]]);
    // The loader reads the named clicks' participants too (rules/state.ts).
    st.participants = [...st.participants.filter((p) => p.id !== "ann"), { ...s.participants[0] }];
    return decide(st, items, NOW, gen);
  }
  /** A referral apply as rules/state.ts applyItem makes it. */
  const applyOf = (referralCode: string, email: string, clickId: string): RuleItem => ({ key: email, apiKeyId: null, untrusted: false, referrer: referralCode, identity: { email }, source: null, campaign: null, clickId });
  const referrerOf = (d: Decisions, i: number) => {
    const o = d.outcomes[i];
    return o.kind === "apply" ? o.referral.referrerId : o.kind === "event" ? (o.referral?.referrerId ?? null) : o.error.code;
  };

  it("an apply and an event naming the same click credit its link, whatever code they send", () => {
    const viaApply = applyOf("BO", "x@example.com", "c-ann");
    const viaEvent = { ...event({ referrer: "BO", email: "y@example.com" }), clickId: "c-ann" };
    const d = withClick([viaApply, viaEvent]);
    expect([referrerOf(d, 0), referrerOf(d, 1)]).toEqual(["ann", "ann"]);
    expect(d.referralClicks.map((c) => c.clickId)).toEqual(["c-ann", "c-ann"]);
  });

  it("an unknown click leaves the code to decide; an event naming no referrer is credited by its click only when its customer has no referral", () => {
    const unknown = applyOf("BO", "x@example.com", "c-other");
    const noCode = { ...event({ email: "z@example.com" }), clickId: "c-ann" };
    const referredByBo = applyOf("BO", "w@example.com", "c-other");
    const keepsBo = { ...event({ email: "w@example.com" }), clickId: "c-ann" };
    const d = withClick([unknown, noCode, referredByBo, keepsBo]);
    expect([0, 1, 2, 3].map((i) => referrerOf(d, i))).toEqual(["bo", "ann", "bo", "bo"]);
  });
});
