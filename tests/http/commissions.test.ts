// Commissions over real HTTP: the commission-rules routes (201, 400s, 404 for another
// business's rule, 403 NOT_OWNER for a member), pricing and defaultCurrency in config, amounts on
// /track, and an event that waits for a price (PRICE_UNAVAILABLE) and is rewarded once one is set.
import { describe, expect, it } from "vitest";
import { signUp, uniqueEmail } from "../support/http";
import { addMember, participant, rewardsBusiness } from "./rewards-helpers";
import { sdkAt, waitForJob } from "./sdk-helpers";
import { baseUrl } from "../support/http";
import { deployFeed, setFeed } from "../support/aggregator-v3";

const percentRule = { environment: "TEST", name: "10 % of purchases", eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "10" };

describe("/business/commission-rules", () => {
  it("creates (201), lists, updates and deletes rules; members read; another business's rule is 404", async () => {
    const owner = await signUp();
    const c = await owner.call("POST", "/business/commission-rules", { ...percentRule, durationMonths: 12, maxRewardsPerReferral: 3 });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    expect(c.body).toMatchObject({ environment: "TEST", name: "10 % of purchases", eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "10", amount: null, currency: null, durationMonths: 12, maxRewardsPerReferral: 3, tierPercents: {}, enabled: true });
    expect(Object.keys(c.body).sort()).toEqual(["amount", "createdAt", "currency", "durationMonths", "enabled", "environment", "eventName", "maxRewardsPerReferral", "name", "percent", "recipient", "ruleId", "tierPercents", "type", "updatedAt"]);
    const id = c.body.ruleId;

    const member = await addMember(owner);
    const list = await member.call("GET", "/business/commission-rules?environment=TEST");
    expect(list.status).toBe(200);
    expect(list.body.data.map((r: { ruleId: string }) => r.ruleId)).toEqual([id]);
    expect((await owner.call("GET", "/business/commission-rules?environment=LIVE")).body.data).toEqual([]);
    for (const [m, p, b] of [["POST", "/business/commission-rules", percentRule], ["PATCH", `/business/commission-rules/${id}`, { enabled: false }], ["DELETE", `/business/commission-rules/${id}`, undefined]] as const) {
      const denied = await member.call(m, p, b);
      expect(denied.status).toBe(403);
      expect(denied.body.error.code).toBe("NOT_OWNER");
    }

    const u = await owner.call("PATCH", `/business/commission-rules/${id}`, { type: "FIXED", amount: "2.50", currency: "EUR", enabled: false });
    expect(u.status, JSON.stringify(u.body)).toBe(200);
    expect(u.body).toMatchObject({ type: "FIXED", percent: null, amount: "2.5", currency: "EUR", enabled: false });

    const other = await signUp();
    expect((await other.call("PATCH", `/business/commission-rules/${id}`, { enabled: true })).status).toBe(404);
    expect((await other.call("DELETE", `/business/commission-rules/${id}`)).status).toBe(404);

    const d = await owner.call("DELETE", `/business/commission-rules/${id}`);
    expect(d.status).toBe(200);
    expect((await owner.call("GET", "/business/commission-rules?environment=TEST")).body.data).toEqual([]);
    expect((await owner.call("PATCH", `/business/commission-rules/${id}`, { enabled: true })).status).toBe(404);
  });

  it("refuses invalid rules with 400 VALIDATION_ERROR, writing nothing", async () => {
    const owner = await signUp();
    for (const bad of [
      { ...percentRule, percent: "0" },
      { ...percentRule, percent: "100.01" },
      { ...percentRule, percent: "10.123" },
      { ...percentRule, percent: 10 },
      { ...percentRule, percent: undefined },
      { ...percentRule, amount: "5", currency: "USD" },
      { ...percentRule, type: "FIXED", percent: undefined },
      { ...percentRule, type: "FIXED", percent: undefined, amount: "19.999", currency: "USD" },
      { ...percentRule, type: "FIXED", percent: undefined, amount: "5", currency: "XYZ" },
      { ...percentRule, durationMonths: 0 },
      { ...percentRule, durationMonths: 121 },
      { ...percentRule, maxRewardsPerReferral: 0 },
      { ...percentRule, recipient: "SOMEONE" },
      { ...percentRule, tierPercents: { nosuchtier: "5" } },
      { ...percentRule, nope: true },
    ]) {
      const r = await owner.call("POST", "/business/commission-rules", bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
    const id = (await owner.call("POST", "/business/commission-rules", percentRule)).body.ruleId;
    const r = await owner.call("PATCH", `/business/commission-rules/${id}`, { type: "FIXED" });
    expect(r.status).toBe(400);
    expect((await owner.call("GET", "/business/commission-rules?environment=TEST")).body.data).toHaveLength(1);
  });
});

describe("pricing, defaultCurrency and amounts on /track", () => {
  it("pricing is per environment (owner or admin writes, members read); defaultCurrency is config", async () => {
    const owner = await signUp();
    const member = await addMember(owner);
    expect((await member.call("PATCH", "/business/config/pricing", { environment: "TEST", rates: { USD: "3000" } })).status).toBe(403);
    const p = await owner.call("PATCH", "/business/config/pricing", { environment: "TEST", source: "FIXED", rates: { USD: "3000.00", EUR: "2750" } });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect(p.body).toMatchObject({ environment: "TEST", source: "FIXED", rates: { USD: "3000", EUR: "2750" }, maxAgeSeconds: 3600, prices: { USD: { rate: "3000", source: "FIXED", problem: null } } });
    expect((await member.call("GET", "/business/config/pricing?environment=TEST")).body.rates).toEqual({ USD: "3000", EUR: "2750" });
    expect((await owner.call("GET", "/business/config/pricing?environment=LIVE")).body.rates).toEqual({});
    for (const bad of [{ environment: "TEST", rates: { USD: "-1" } }, { environment: "TEST", rates: { XYZ: "1" } }, { environment: "TEST", feeds: { USD: "0x12" } }, { environment: "TEST", source: "ORACLE" }, { rates: { USD: "1" } }]) {
      expect((await owner.call("PATCH", "/business/config/pricing", bad)).status, JSON.stringify(bad)).toBe(400);
    }
    expect((await owner.call("GET", "/business/config?environment=TEST")).body.general.defaultCurrency).toBe("USD");
    const g = await owner.call("PATCH", "/business/config/general", { environment: "TEST", defaultCurrency: "JPY" });
    expect(g.status, JSON.stringify(g.body)).toBe(200);
    expect(g.body.general.defaultCurrency).toBe("JPY");
    expect((await owner.call("GET", "/business/config?environment=LIVE")).body.general.defaultCurrency).toBe("USD");
  });

  it("/track takes amount and currency: exact, in each currency's decimals; bad amounts are 400", async () => {
    const { owner, secret } = await rewardsBusiness();
    const sdk = sdkAt(baseUrl(), secret);
    const ok = await sdk("POST", "/track", { eventName: "purchase", amount: "19.99", currency: "USD" });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const e = await owner.call("GET", `/business/events/${ok.body.eventId}`);
    expect([e.body.amount, e.body.currency]).toEqual(["19.99", "USD"]);
    const eth = await sdk("POST", "/track", { eventName: "purchase", amount: "0.000000000000000001", currency: "ETH" });
    expect(eth.status).toBe(200);
    const dflt = await sdk("POST", "/track", { eventName: "purchase", amount: "5" });
    expect((await owner.call("GET", `/business/events/${dflt.body.eventId}`)).body).toMatchObject({ amount: "5", currency: "USD" });
    for (const bad of [{ amount: "19.999", currency: "USD" }, { amount: "-5", currency: "USD" }, { amount: "0", currency: "USD" }, { amount: "1.5", currency: "JPY" }, { amount: 5, currency: "USD" }, { amount: "1e3" }, { currency: "USD" }, { amount: "19.999" }, { amount: "1", currency: "XYZ" }]) {
      const r = await sdk("POST", "/track", { eventName: "purchase", ...bad });
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
    const batch = await sdk("POST", "/track/batch", { events: [{ eventName: "purchase", amount: "10.00", currency: "EUR" }, { eventName: "purchase", amount: "19.999", currency: "USD" }] });
    expect(batch.status).toBeLessThan(300);
    expect(batch.body.results.map((r: { success: boolean }) => r.success)).toEqual([true, false]);
  });
});

describe("commissions end to end", () => {
  it("an event without a usable price waits (PRICE_UNAVAILABLE on the event) and is rewarded once a price is set", async () => {
    const { owner, secret } = await rewardsBusiness({ fundEth: "1" });
    const sdk = sdkAt(baseUrl(), secret);
    const rule = await owner.call("POST", "/business/commission-rules", percentRule);
    expect(rule.status).toBe(201);
    const referrer = await participant(secret);
    const email = uniqueEmail("buyer");
    expect((await sdk("POST", "/track", { eventName: "signup", referrer: referrer.referralCode, metadata: { referredUserEmail: email } })).status).toBe(200);
    const t = await sdk("POST", "/track", { eventName: "purchase", amount: "30.00", currency: "USD", metadata: { referredUserEmail: email } });
    expect(t.status, JSON.stringify(t.body)).toBe(202);
    const waiting = await owner.call("GET", `/business/events/${t.body.eventId}`);
    expect(waiting.body).toMatchObject({ status: "QUEUED", reason: "PRICE_UNAVAILABLE", rewards: [] });

    expect((await owner.call("PATCH", "/business/config/pricing", { environment: "TEST", rates: { USD: "3000" } })).status).toBe(200);
    const job = await waitForJob(secret, t.body.jobId);
    expect(job.status).toBe("SUCCEEDED");
    const done = await owner.call("GET", `/business/events/${t.body.eventId}`);
    expect(done.body.status).toBe("PROCESSED");
    const w = done.body.rewards.find((r: { kind: string }) => r.kind === "COMMISSION");
    expect(w).toMatchObject({ participantId: referrer.participantId, amountEth: "0.001", status: "PAID", ruleId: rule.body.ruleId, baseAmount: "30", baseCurrency: "USD", rate: "3000", rateSource: "FIXED" });
    const listed = await owner.call("GET", `/business/rewards?environment=TEST&kind=COMMISSION`);
    expect(listed.body.data[0]).toMatchObject({ ruleId: rule.body.ruleId, baseAmount: "30", baseCurrency: "USD", rate: "3000", rateSource: "FIXED" });
    expect(listed.body.data[0].rateAt).toEqual(expect.any(String));

    const sim = await owner.call("POST", "/business/commission-rules/simulate", { environment: "TEST", rule: { eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "50" }, from: new Date(Date.now() - 86_400_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() });
    expect(sim.status, JSON.stringify(sim.body)).toBe(200);
    expect(sim.body).toMatchObject({ events: 1, rewards: 1, totalEth: "0.005", topParticipants: [{ participantId: referrer.participantId, totalEth: "0.005" }] });
  });
});

describe("CHAINLINK prices on the local chain", () => {
  it("reads latestRoundData and decimals from an AggregatorV3 feed, refuses stale, future or non-positive answers, and pays at the feed's price", async () => {
    const feed = await deployFeed();
    const now = () => Math.floor(Date.now() / 1000);
    await setFeed(feed, 3000n * 10n ** 8n, now());
    const { owner, secret } = await rewardsBusiness({ fundEth: "1" });
    const p = await owner.call("PATCH", "/business/config/pricing", { environment: "TEST", source: "CHAINLINK", feeds: { USD: feed }, maxAgeSeconds: 600 });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect(p.body.prices.USD).toMatchObject({ rate: "3000", source: "CHAINLINK", problem: null });

    await setFeed(feed, 3000n * 10n ** 8n, now() - 3600);
    const stale = await owner.call("PATCH", "/business/config/pricing", { environment: "TEST", maxAgeSeconds: 600 });
    expect(stale.body.prices.USD).toMatchObject({ rate: null, problem: expect.stringMatching(/old/) });
    // A time ahead of ours, or past any date: a broken feed, not a fresh answer (it was a 500 on the pricing page).
    for (const at of [now() + 3600, 10 ** 13]) {
      await setFeed(feed, 3000n * 10n ** 8n, at);
      const future = await owner.call("PATCH", "/business/config/pricing", { environment: "TEST", maxAgeSeconds: 600 });
      expect(future.status, JSON.stringify(future.body)).toBe(200);
      expect(future.body.prices.USD).toMatchObject({ rate: null, problem: expect.stringMatching(/impossible time/) });
    }
    await setFeed(feed, 0n, now());
    const zero = await owner.call("PATCH", "/business/config/pricing", { environment: "TEST", maxAgeSeconds: 600 });
    expect(zero.body.prices.USD).toMatchObject({ rate: null, problem: expect.stringMatching(/not positive/) });

    await setFeed(feed, 2500n * 10n ** 8n + 5n * 10n ** 7n, now()); // 2500.5
    await owner.call("PATCH", "/business/config/pricing", { environment: "TEST", maxAgeSeconds: 600 });
    const rule = await owner.call("POST", "/business/commission-rules", { ...percentRule, type: "FIXED", percent: undefined, amount: "25.01", currency: "USD", recipient: "REFERRED" });
    expect(rule.status).toBe(201);
    const sdk = sdkAt(baseUrl(), secret);
    const referrer = await participant(secret);
    const email = uniqueEmail("buyer");
    const t = await sdk("POST", "/track", { eventName: "purchase", referrer: referrer.referralCode, amount: "99.99", metadata: { referredUserEmail: email } });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    const w = t.body.rewards.find((r: { kind: string }) => r.kind === "COMMISSION");
    // 25.01 USD at 2500.5 USD/ETH = 0.010001999600079984… ETH, rounded down to the wei.
    expect(w).toMatchObject({ amountEth: "0.010001999600079984", ruleId: rule.body.ruleId, baseAmount: "25.01", baseCurrency: "USD", rate: "2500.5", rateSource: "CHAINLINK" });
  });
});
