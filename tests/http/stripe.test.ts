// The Stripe connection over real HTTP against the production build: deliveries signed by the
// `stripe` package's own test helper (webhooks.generateTestHeaderString), as Stripe's docs say to
// test offline. A checkout → invoice.paid → partial refund → second refund → dispute scenario
// with amounts exact to the wei; duplicate and concurrent deliveries; forged, foreign, expired
// and oversized bodies; livemode; members read-only; another business's customer; the rate limit
// per connection (on an app started with a tiny limit).
import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app";
import { signUp, uniqueEmail, type Owner } from "../support/http";
import { addMember, participant, rewardsBusiness } from "./rewards-helpers";

const hex = () => randomBytes(6).toString("hex");
const newSecret = () => `whsec_${randomBytes(24).toString("base64url")}`;

interface Connection {
  webhookUrl: string;
  secret: string;
}

async function connect(owner: Owner, environment: "TEST" | "LIVE" = "TEST", extra: Record<string, unknown> = {}): Promise<Connection> {
  const secret = newSecret();
  const r = await owner.call("PUT", "/business/integrations/stripe", { environment, webhookSecret: secret, ...extra });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { webhookUrl: r.body.webhookUrl, secret };
}

function stripeEvent(type: string, object: Record<string, unknown>, livemode = false) {
  return { id: `evt_${hex()}`, object: "event", api_version: "2025-09-30.clover", created: Math.floor(Date.now() / 1000), livemode, type, data: { object } };
}

async function post(url: string, payload: string, headers: Record<string, string>) {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: payload });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body, headers: res.headers };
}

/** Posts `event` signed with `secret` (at `timestamp`, seconds), as Stripe does. */
function deliver(c: Connection, event: object, opts: { secret?: string; timestamp?: number } = {}) {
  const payload = JSON.stringify(event);
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? c.secret, timestamp: opts.timestamp });
  return post(c.webhookUrl, payload, { "stripe-signature": signature });
}

async function deliveries(owner: Owner, environment = "TEST") {
  const r = await owner.call("GET", `/business/integrations/stripe/events?environment=${environment}&limit=200`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data as Array<{ stripeEventId: string; type: string; outcome: string; reason: string | null; eventId: string | null; referralId: string | null; receivedAt: string }>;
}

async function outcomeOf(owner: Owner, stripeEventId: string) {
  return (await deliveries(owner)).find((d) => d.stripeEventId === stripeEventId);
}

/** A business paying 10 % of purchases in USD at 3,000 USD per ETH, with a funded TEST pool and no referral reward. */
async function commissionBusiness() {
  const { owner, secret } = await rewardsBusiness({ referralRewardEth: "0", fundEth: "1" });
  expect((await owner.call("PATCH", "/business/config/pricing", { environment: "TEST", rates: { USD: "3000" } })).status).toBe(200);
  const rule = await owner.call("POST", "/business/commission-rules", { environment: "TEST", name: "10 %", eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "10" });
  expect(rule.status, JSON.stringify(rule.body)).toBe(201);
  const referrer = await participant(secret);
  return { owner, secret, referrer };
}

const invoice = (id: string, customer: string, amountPaid: number, extra: Record<string, unknown> = {}) => ({ id, object: "invoice", customer, customer_email: null, amount_paid: amountPaid, currency: "usd", ...extra });

describe("PUT/GET/DELETE /business/integrations/stripe", () => {
  it("connects per environment (owner or admin), members read, the secret is never returned, DELETE makes the URL 404", async () => {
    const owner = await signUp();
    const missing = await owner.call("GET", "/business/integrations/stripe?environment=TEST");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("NOT_FOUND");
    const secret = newSecret();
    const r = await owner.call("PUT", "/business/integrations/stripe", { environment: "TEST", webhookSecret: secret });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["createdAt", "enabled", "environment", "lastEventAt", "purchaseEventName", "secretLast4", "updatedAt", "webhookUrl"]);
    expect(r.body).toMatchObject({ environment: "TEST", enabled: true, purchaseEventName: "purchase", secretLast4: secret.slice(-4), lastEventAt: null });
    expect(JSON.stringify(r.body)).not.toContain(secret);
    const url = new URL(r.body.webhookUrl);
    const token = url.pathname.split("/").pop()!;
    expect(token.length).toBeGreaterThanOrEqual(22); // ≥ 128 bits of base64url
    const me = (await owner.call("GET", "/business/me")).body;
    expect(me.business.businessId).toEqual(expect.any(String));
    expect(r.body.webhookUrl).not.toContain(me.business.businessId);

    // A change keeps the URL; LIVE is a connection of its own.
    const changed = await owner.call("PUT", "/business/integrations/stripe", { environment: "TEST", webhookSecret: newSecret(), purchaseEventName: "sale", enabled: false });
    expect(changed.body).toMatchObject({ webhookUrl: r.body.webhookUrl, purchaseEventName: "sale", enabled: false });
    const live = await connect(owner, "LIVE");
    expect(live.webhookUrl).not.toBe(r.body.webhookUrl);

    const member = await addMember(owner);
    expect((await member.call("GET", "/business/integrations/stripe?environment=TEST")).body.webhookUrl).toBe(r.body.webhookUrl);
    expect((await member.call("GET", "/business/integrations/stripe/events?environment=TEST")).status).toBe(200);
    for (const [m, p, b] of [["PUT", "/business/integrations/stripe", { environment: "TEST", webhookSecret: newSecret() }], ["DELETE", "/business/integrations/stripe?environment=TEST", undefined]] as const) {
      const denied = await member.call(m, p, b);
      expect(denied.status, `${m} ${JSON.stringify(denied.body)}`).toBe(403);
    }
    const admin = await addMember(owner, "ADMIN");
    expect((await admin.call("PUT", "/business/integrations/stripe", { environment: "TEST", webhookSecret: secret, enabled: true })).status).toBe(200);

    for (const bad of [{ environment: "TEST", webhookSecret: "nope" }, { environment: "TEST" }, { environment: "PROD", webhookSecret: newSecret() }, { environment: "TEST", webhookSecret: newSecret(), purchaseEventName: "" }, { environment: "TEST", webhookSecret: newSecret(), extra: 1 }]) {
      const refused = await owner.call("PUT", "/business/integrations/stripe", bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.body.error.code).toBe("VALIDATION_ERROR");
    }

    const c = { webhookUrl: r.body.webhookUrl, secret };
    expect((await deliver(c, stripeEvent("ping.unknown", {}))).status).toBe(200);
    const gone = await owner.call("DELETE", "/business/integrations/stripe?environment=TEST");
    expect(gone.status).toBe(200);
    expect(gone.body.webhookUrl).toBe(r.body.webhookUrl);
    const after = await deliver(c, stripeEvent("ping.unknown", {}));
    expect(after.status).toBe(404);
    expect(after.body.error.code).toBe("NOT_FOUND");
    expect((await owner.call("GET", "/business/integrations/stripe?environment=TEST")).status).toBe(404);
    expect((await owner.call("GET", "/business/integrations/stripe?environment=LIVE")).status).toBe(200);
  });
});

describe("POST {webhookUrl}", () => {
  it("checkout → invoice.paid → partial refund → second refund → dispute: earns once and reverses exactly to the wei", async () => {
    const { owner, referrer } = await commissionBusiness();
    const c = await connect(owner);
    const email = uniqueEmail("buyer");
    const customer = `cus_${hex()}`;

    const checkout = stripeEvent("checkout.session.completed", { id: `cs_${hex()}`, object: "checkout.session", client_reference_id: referrer.referralCode, customer, customer_details: { email } });
    const r1 = await deliver(c, checkout);
    expect(r1.status, JSON.stringify(r1.body)).toBe(200);
    const applied = await outcomeOf(owner, checkout.id);
    expect(applied, JSON.stringify(await deliveries(owner))).toMatchObject({ type: "checkout.session.completed", outcome: "PROCESSED", referralId: expect.any(String) });

    // The customer is linked: the invoice names no email, only the Stripe customer id.
    const inv = `in_${hex()}`;
    const pi = `pi_${hex()}`;
    const paid = stripeEvent("invoice.paid", invoice(inv, customer, 3000, { payment_intent: pi }));
    const r2 = await deliver(c, paid);
    expect(r2.status, JSON.stringify(r2.body)).toBe(200);
    const earned = await outcomeOf(owner, paid.id);
    expect(earned).toMatchObject({ outcome: "PROCESSED", eventId: expect.any(String), referralId: applied!.referralId });
    const event = await owner.call("GET", `/business/events/${earned!.eventId}`);
    expect(event.body).toMatchObject({ eventName: "purchase", status: "PROCESSED", amount: "30", currency: "USD" });
    const commission = event.body.rewards.find((w: { kind: string }) => w.kind === "COMMISSION");
    expect(commission).toMatchObject({ participantId: referrer.participantId, amountEth: "0.001", baseAmount: "30", baseCurrency: "USD" });

    // The same event again, and another event id for the same invoice: earned once.
    const again = await deliver(c, paid);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ duplicate: true });
    const other = stripeEvent("invoice.paid", invoice(inv, customer, 3000, { payment_intent: pi }));
    expect((await deliver(c, other)).status).toBe(200);
    expect(await outcomeOf(owner, other.id)).toMatchObject({ outcome: "IGNORED", reason: "INVOICE_ALREADY_EARNED", eventId: earned!.eventId });
    const purchases = await owner.call("GET", "/business/events?environment=TEST&eventName=purchase&limit=200");
    expect(purchases.body.data.filter((e: { eventId: string }) => e.eventId === earned!.eventId)).toHaveLength(1);

    // The participant shows its Stripe customer.
    const referred = await owner.call("GET", `/business/participants?environment=TEST&search=${encodeURIComponent(email)}`);
    const buyer = referred.body.data.find((p: { email: string }) => p.email === email);
    expect(buyer.stripeCustomerId).toBe(customer);
    const detail = await owner.call("GET", `/business/participants/${buyer.participantId}`);
    expect(detail.body.stripeCustomerId).toBe(customer);
    const exported = await owner.call("GET", `/business/participants/${buyer.participantId}/export`);
    expect(exported.body.participant.stripeCustomerId).toBe(customer);

    const charge = `ch_${hex()}`;
    const refund = (refunded: number, ids: string[]) => stripeEvent("charge.refunded", { id: charge, object: "charge", payment_intent: pi, amount: 3000, amount_refunded: refunded, currency: "usd", refunds: { data: ids.map((id) => ({ id })) } });
    const reversals = async () => (await owner.call("GET", "/business/reversals?environment=TEST&limit=200")).body.data.map((x: { amountEth: string }) => x.amountEth).sort();

    const first = refund(1000, ["re_1"]);
    expect((await deliver(c, first)).status).toBe(200);
    expect(await outcomeOf(owner, first.id)).toMatchObject({ outcome: "PROCESSED", eventId: earned!.eventId });
    expect(await reversals()).toEqual(["0.000333333333333333"]);

    const second = refund(2500, ["re_2", "re_1"]);
    expect((await deliver(c, second)).status).toBe(200);
    expect(await reversals()).toEqual(["0.000333333333333333", "0.0005"]);

    // A late copy of the first refund (another event id, smaller cumulative amount): nothing more.
    const late = refund(1000, ["re_1"]);
    expect((await deliver(c, late)).status).toBe(200);
    expect(await outcomeOf(owner, late.id)).toMatchObject({ outcome: "IGNORED", reason: "NOTHING_NEW_TO_REVERSE" });

    const dispute = stripeEvent("charge.dispute.created", { id: `dp_${hex()}`, object: "dispute", charge, payment_intent: pi, amount: 3000, currency: "usd" });
    expect((await deliver(c, dispute)).status).toBe(200);
    expect(await outcomeOf(owner, dispute.id)).toMatchObject({ outcome: "PROCESSED", eventId: earned!.eventId });
    expect(await reversals()).toEqual(["0.000166666666666667", "0.000333333333333333", "0.0005"]);
    const afterAll = await owner.call("GET", `/business/events/${earned!.eventId}`);
    expect(afterAll.body.refundedAmount).toBe("30");
    // All of it went back to the pool: 1 ETH again.
    expect((await owner.call("GET", "/business/balance?environment=TEST")).body.balanceEth).toBe("1");

    // A second dispute finds nothing left.
    const more = stripeEvent("charge.dispute.created", { id: `dp_${hex()}`, object: "dispute", charge, payment_intent: pi });
    expect((await deliver(c, more)).status).toBe(200);
    expect(await reversals()).toHaveLength(3);

    const conn = await owner.call("GET", "/business/integrations/stripe?environment=TEST");
    expect(conn.body.lastEventAt).toEqual(expect.any(String));
  });

  it("concurrent copies of one event, and concurrent events of one invoice, earn once", async () => {
    const { owner, secret, referrer } = await commissionBusiness();
    const c = await connect(owner);
    const email = uniqueEmail("buyer");
    // The customer applies through metadata on customer.created (by email).
    const customer = `cus_${hex()}`;
    const created = stripeEvent("customer.created", { id: customer, object: "customer", email, metadata: { referralCode: referrer.referralCode } });
    const copies = await Promise.all(Array.from({ length: 6 }, () => deliver(c, created)));
    expect(copies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(copies.filter((r) => r.body.duplicate === false)).toHaveLength(1);
    expect((await deliveries(owner)).filter((d) => d.stripeEventId === created.id)).toHaveLength(1);

    const inv = `in_${hex()}`;
    const paid = stripeEvent("invoice.paid", invoice(inv, customer, 4500, { customer_email: email }));
    const others = Array.from({ length: 3 }, () => stripeEvent("invoice.paid", invoice(inv, customer, 4500, { customer_email: email })));
    const all = await Promise.all([...Array.from({ length: 4 }, () => deliver(c, paid)), ...others.map((e) => deliver(c, e))]);
    expect(all.map((r) => r.status)).toEqual(Array(7).fill(200));
    const log = await deliveries(owner);
    const invoiceEvents = log.filter((d) => d.type === "invoice.paid");
    expect(invoiceEvents).toHaveLength(4);
    expect(invoiceEvents.filter((d) => d.outcome === "PROCESSED")).toHaveLength(1);
    expect(invoiceEvents.filter((d) => d.reason === "INVOICE_ALREADY_EARNED")).toHaveLength(3);
    const rewards = await owner.call("GET", "/business/rewards?environment=TEST&kind=COMMISSION&limit=200");
    expect(rewards.body.data.map((w: { amountEth: string }) => w.amountEth)).toEqual(["0.0015"]);
    expect(secret).toBeTruthy();
  });

  it("refuses forged, foreign, expired, non-event and oversized bodies with nothing written; livemode and unknown types are IGNORED", async () => {
    const { owner, referrer } = await commissionBusiness();
    const c = await connect(owner);
    const otherOwner = await signUp();
    const foreign = await connect(otherOwner);
    const ev = () => stripeEvent("checkout.session.completed", { id: `cs_${hex()}`, client_reference_id: referrer.referralCode, customer: `cus_${hex()}`, customer_details: { email: uniqueEmail("x") } });

    const payload = JSON.stringify(ev());
    for (const [what, r] of [
      ["no signature", await post(c.webhookUrl, payload, {})],
      ["a made-up signature", await post(c.webhookUrl, payload, { "stripe-signature": `t=${Math.floor(Date.now() / 1000)},v1=${"ab".repeat(32)}` })],
      ["another business's secret", await deliver(c, ev(), { secret: foreign.secret })],
      ["a wrong secret", await deliver(c, ev(), { secret: newSecret() })],
      ["a replay past the 300 s tolerance", await deliver(c, ev(), { timestamp: Math.floor(Date.now() / 1000) - 301 })],
      ["a signed body that is not an event", await post(c.webhookUrl, '{"hello":"world"}', { "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload: '{"hello":"world"}', secret: c.secret }) })],
      ["signed invalid JSON", await post(c.webhookUrl, "{nope", { "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload: "{nope", secret: c.secret }) })],
    ] as const) {
      expect(r.status, what).toBe(400);
      expect(r.body.error.code, what).toBe("INVALID_SIGNATURE");
    }
    const big = JSON.stringify({ ...ev(), padding: "x".repeat(300 * 1024) });
    const tooBig = await post(c.webhookUrl, big, { "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload: big, secret: c.secret }) });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await deliveries(owner)).toEqual([]);
    expect((await owner.call("GET", "/business/integrations/stripe?environment=TEST")).body.lastEventAt).toBeNull();

    // Unknown or malformed tokens: 404, the same body; GET on a real URL says nothing more than on a fake one.
    const fake = c.webhookUrl.replace(/[^/]+$/, randomBytes(24).toString("base64url"));
    const nf = await post(fake, payload, { "stripe-signature": "t=1,v1=00" });
    expect(nf.status).toBe(404);
    expect((await post(c.webhookUrl.replace(/[^/]+$/, "x"), payload, {})).body).toEqual(nf.body);
    expect((await fetch(c.webhookUrl)).status).toBe((await fetch(fake)).status);

    const live = stripeEvent("checkout.session.completed", { id: `cs_${hex()}`, client_reference_id: referrer.referralCode, customer_details: { email: uniqueEmail("l") } }, true);
    expect((await deliver(c, live)).status).toBe(200);
    expect(await outcomeOf(owner, live.id)).toMatchObject({ outcome: "IGNORED", reason: "LIVEMODE_MISMATCH", referralId: null });
    const liveOwner = await signUp();
    const liveConn = await connect(liveOwner, "LIVE");
    const testOnLive = stripeEvent("customer.created", { id: `cus_${hex()}`, email: uniqueEmail("t") });
    expect((await deliver(liveConn, testOnLive)).status).toBe(200);
    expect((await deliveries(liveOwner, "LIVE"))[0]).toMatchObject({ outcome: "IGNORED", reason: "LIVEMODE_MISMATCH" });

    const unknown = stripeEvent("payment_method.attached", { id: `pm_${hex()}` });
    expect((await deliver(c, unknown)).status).toBe(200);
    expect(await outcomeOf(owner, unknown.id)).toMatchObject({ outcome: "IGNORED", reason: "UNHANDLED_EVENT_TYPE" });

    // An unknown referral code: recorded FAILED with the core's refusal, nothing applied.
    const badCode = stripeEvent("checkout.session.completed", { id: `cs_${hex()}`, client_reference_id: "NO-SUCH-CODE", customer_details: { email: uniqueEmail("n") } });
    expect((await deliver(c, badCode)).status).toBe(200);
    expect(await outcomeOf(owner, badCode.id)).toMatchObject({ outcome: "FAILED", referralId: null });
  });

  it("an invoice of another business's customer, zero, unsupported and zero-decimal currencies", async () => {
    const a = await commissionBusiness();
    const ca = await connect(a.owner);
    const email = uniqueEmail("buyer");
    const customer = `cus_${hex()}`;
    await deliver(ca, stripeEvent("checkout.session.completed", { id: `cs_${hex()}`, metadata: { referralCode: a.referrer.referralCode }, customer, customer_details: { email } }));

    const b = await commissionBusiness();
    const cb = await connect(b.owner);
    const foreignInvoice = stripeEvent("invoice.paid", invoice(`in_${hex()}`, customer, 3000, { customer_email: email }));
    expect((await deliver(cb, foreignInvoice)).status).toBe(200);
    expect((await deliveries(b.owner))[0]).toMatchObject({ outcome: "IGNORED", reason: "UNKNOWN_CUSTOMER", eventId: null });
    expect((await b.owner.call("GET", "/business/events?environment=TEST")).body.data).toEqual([]);
    expect((await a.owner.call("GET", "/business/events?environment=TEST&eventName=purchase")).body.data).toEqual([]);

    const zero = stripeEvent("invoice.paid", invoice(`in_${hex()}`, customer, 0));
    const xyz = stripeEvent("invoice.paid", invoice(`in_${hex()}`, customer, 100, { currency: "xyz" }));
    for (const e of [zero, xyz]) expect((await deliver(ca, e)).status).toBe(200);
    expect(await outcomeOf(a.owner, zero.id)).toMatchObject({ outcome: "IGNORED", reason: "ZERO_AMOUNT", eventId: null });
    expect(await outcomeOf(a.owner, xyz.id)).toMatchObject({ outcome: "IGNORED", reason: "UNSUPPORTED_CURRENCY", eventId: null });
    expect((await a.owner.call("GET", "/business/events?environment=TEST&eventName=purchase")).body.data).toEqual([]);

    // JPY has no minor unit: 4500 is ¥4,500.
    expect((await a.owner.call("PATCH", "/business/config/pricing", { environment: "TEST", rates: { USD: "3000", JPY: "450000" } })).status).toBe(200);
    const yen = stripeEvent("invoice.paid", invoice(`in_${hex()}`, customer, 4500, { currency: "jpy" }));
    expect((await deliver(ca, yen)).status).toBe(200);
    const done = await outcomeOf(a.owner, yen.id);
    expect(done).toMatchObject({ outcome: "PROCESSED" });
    const event = await a.owner.call("GET", `/business/events/${done!.eventId}`);
    expect(event.body).toMatchObject({ amount: "4500", currency: "JPY" });
    expect(event.body.rewards.find((w: { kind: string }) => w.kind === "COMMISSION")).toMatchObject({ amountEth: "0.001" });
  });
});

describe("rate limit per connection", () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ STRIPE_WEBHOOK_PER_MINUTE: "3" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("answers 429 RATE_LIMITED with Retry-After beyond STRIPE_WEBHOOK_PER_MINUTE; another connection keeps its own budget", async () => {
    const a = await connect(await signUp({ url: app.url }));
    const b = await connect(await signUp({ url: app.url }));
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await deliver(a, stripeEvent("customer.created", { id: `cus_${hex()}` })));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
    expect(answers[3].body).toEqual({ error: { code: "RATE_LIMITED", message: expect.any(String) } });
    expect(Number(answers[3].headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await deliver(b, stripeEvent("customer.created", { id: `cus_${hex()}` }))).status).toBe(200);
  });
});
