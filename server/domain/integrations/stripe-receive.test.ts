// The Stripe connection's domain against the real database (PGlite or PostgreSQL), with bodies
// signed by the `stripe` package's test helper: refunds reported out of order or beyond the
// purchase reverse only what is new and never more than the purchase; a delivery refused by the
// rules is recorded FAILED and processed again when Stripe sends it again; a customer linked to
// one business is unknown to another.
import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness, participant, uniqueEmail } from "../../../tests/support/domain";
import { createRuleInput, updatePricingInput } from "../commissions/schemas";
import { createRule } from "../commissions/service";
import { updatePricing } from "../commissions/pricing";
import { connectStripe } from "./stripe-connection";
import { receiveStripeEvent, verifyStripeEvent } from "./stripe-receive";

const hex = () => randomBytes(6).toString("hex");

async function connected() {
  const { businessId, scope } = await domainBusiness({ referralRewardEth: "0", fundEth: "1" });
  await updatePricing(businessId, updatePricingInput.parse({ environment: "TEST", source: "FIXED", rates: { USD: "3000" } }));
  await createRule(businessId, createRuleInput.parse({ environment: "TEST", name: "10 %", eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "10" }));
  const secret = `whsec_${randomBytes(24).toString("base64url")}`;
  await connectStripe(businessId, { environment: "TEST", webhookSecret: secret });
  const integration = await db.stripeIntegration.findUniqueOrThrow({ where: { businessId_environment: { businessId, environment: "TEST" } } });
  const send = (type: string, object: Record<string, unknown>, id = `evt_${hex()}`) => {
    const raw = JSON.stringify({ id, object: "event", type, livemode: false, data: { object } });
    return receiveStripeEvent(integration, verifyStripeEvent(integration, raw, Stripe.webhooks.generateTestHeaderString({ payload: raw, secret })));
  };
  return { businessId, scope, integration, secret, send };
}

const reversedWei = async (businessId: string) => (await db.rewardReversal.findMany({ where: { businessId }, orderBy: { createdAt: "asc" } })).map((r) => r.amountWei.toFixed());

describe("Stripe deliveries", () => {
  it("refunds out of order and beyond the purchase reverse only what is new, never more than the purchase", async () => {
    const { businessId, scope, send } = await connected();
    const referrer = await participant(scope);
    const customer = `cus_${hex()}`;
    expect(await send("checkout.session.completed", { client_reference_id: referrer.referralCode, customer, customer_details: { email: uniqueEmail("buyer") } })).toMatchObject({ outcome: "PROCESSED" });
    const pi = `pi_${hex()}`;
    expect(await send("invoice.paid", { id: `in_${hex()}`, customer, amount_paid: 3000, currency: "usd", payment_intent: pi })).toMatchObject({ outcome: "PROCESSED", reason: null });
    const charge = { id: `ch_${hex()}`, payment_intent: pi, currency: "usd" };
    expect(await send("charge.refunded", { ...charge, amount_refunded: 2500 })).toMatchObject({ outcome: "PROCESSED" });
    expect(await send("charge.refunded", { ...charge, amount_refunded: 1000 })).toMatchObject({ outcome: "IGNORED", reason: "NOTHING_NEW_TO_REVERSE" });
    expect(await reversedWei(businessId)).toEqual(["833333333333333"]);
    expect(await send("charge.refunded", { ...charge, amount_refunded: 9000 })).toMatchObject({ outcome: "PROCESSED" });
    expect(await reversedWei(businessId)).toEqual(["833333333333333", "166666666666667"]);
    const event = await db.trackedEvent.findFirstOrThrow({ where: { businessId, eventName: "purchase" } });
    expect(event.refundedAmount.toFixed()).toBe("30");
    expect(event.idempotencyKey).toMatch(/^stripe:in_/);
    // A dispute naming only the charge finds the invoice through the refund that named both.
    expect(await send("charge.dispute.created", { id: `dp_${hex()}`, charge: charge.id })).toMatchObject({ outcome: "IGNORED", reason: "NOTHING_NEW_TO_REVERSE" });
  });

  it("newer API versions: invoice_payment.paid names the payment (before or after invoice.paid), and refunds find the invoice through it", async () => {
    const { businessId, scope, send } = await connected();
    const referrer = await participant(scope);
    const customer = `cus_${hex()}`;
    await send("customer.created", { id: customer, email: uniqueEmail("buyer"), metadata: { referralCode: referrer.referralCode } });
    const [first, second] = [`in_${hex()}`, `in_${hex()}`];
    const [pi1, pi2] = [`pi_${hex()}`, `pi_${hex()}`];
    // The payment first, then the invoice; and the other way round.
    expect(await send("invoice_payment.paid", { id: `inpay_${hex()}`, invoice: first, payment: { type: "payment_intent", payment_intent: pi1 } })).toMatchObject({ outcome: "PROCESSED", reason: "PAYMENT_LINKED" });
    expect(await send("invoice.paid", { id: first, customer, amount_paid: 3000, currency: "usd" })).toMatchObject({ outcome: "PROCESSED", reason: null });
    expect(await send("invoice.paid", { id: second, customer, amount_paid: 6000, currency: "usd" })).toMatchObject({ outcome: "PROCESSED", reason: null });
    expect(await send("invoice_payment.paid", { id: `inpay_${hex()}`, invoice: second, payment: { type: "payment_intent", payment_intent: pi2 } })).toMatchObject({ outcome: "PROCESSED" });
    expect(await send("invoice.paid", { id: first, customer, amount_paid: 3000, currency: "usd" })).toMatchObject({ outcome: "IGNORED", reason: "INVOICE_ALREADY_EARNED" });
    expect(await send("charge.refunded", { id: `ch_${hex()}`, payment_intent: pi1, amount_refunded: 1500, currency: "usd" })).toMatchObject({ outcome: "PROCESSED" });
    expect(await send("charge.refunded", { id: `ch_${hex()}`, payment_intent: pi2, amount_refunded: 6000, currency: "usd" })).toMatchObject({ outcome: "PROCESSED" });
    expect(await reversedWei(businessId)).toEqual(["500000000000000", "2000000000000000"]);
  });

  it("a delivery the rules refuse is FAILED (staff get one STRIPE_FAILED email), and processed again when Stripe sends it again", async () => {
    const { businessId, scope, send } = await connected();
    const userId = `u-stripe-${hex()}`;
    const staffEmail = uniqueEmail("staff");
    await db.user.create({ data: { id: userId, name: "Staff", email: staffEmail } });
    await db.member.create({ data: { businessId, userId, email: staffEmail, role: "ADMIN", notificationsOff: [] } });
    const handle = `later${hex()}`;
    const id = `evt_${hex()}`;
    const session = { client_reference_id: handle, customer: `cus_${hex()}`, customer_details: { email: uniqueEmail("buyer") } };
    const failed = await send("checkout.session.completed", session, id);
    expect(failed).toMatchObject({ outcome: "FAILED", duplicate: false });
    expect(await send("checkout.session.completed", session, id)).toMatchObject({ outcome: "FAILED" });
    const mails = await db.email.findMany({ where: { businessId, kind: "STRIPE_FAILED" } });
    expect(mails.map((m) => m.to)).toEqual([staffEmail]);
    expect(JSON.stringify(mails[0].data)).toContain(id);
    expect(await db.referral.count({ where: { businessId } })).toBe(0);
    await participant(scope, { handle });
    expect(await send("checkout.session.completed", session, id)).toMatchObject({ outcome: "PROCESSED", duplicate: false });
    expect(await send("checkout.session.completed", session, id)).toMatchObject({ duplicate: true });
    const rows = await db.stripeEvent.findMany({ where: { stripeEventId: id } });
    expect(rows.map((r) => [r.outcome, r.referralId !== null])).toEqual([["PROCESSED", true]]);
  });

  it("a signed body without object or livemode is read as a test-mode event", async () => {
    const { integration, secret } = await connected();
    const raw = JSON.stringify({ id: `evt_${hex()}`, type: "invoice.paid", data: { object: {} } });
    expect(verifyStripeEvent(integration, raw, Stripe.webhooks.generateTestHeaderString({ payload: raw, secret }))).toMatchObject({ livemode: false, type: "invoice.paid" });
  });

  it("a customer linked to one business is unknown to another", async () => {
    const a = await connected();
    const b = await connected();
    const referrer = await participant(a.scope);
    const customer = `cus_${hex()}`;
    const email = uniqueEmail("buyer");
    await a.send("customer.created", { id: customer, email, metadata: { referral: referrer.referralCode } });
    expect(await db.participant.findFirst({ where: { businessId: a.businessId, stripeCustomerId: customer } })).not.toBeNull();
    expect(await b.send("invoice.paid", { id: `in_${hex()}`, customer, customer_email: email, amount_paid: 100, currency: "usd" })).toMatchObject({ outcome: "IGNORED", reason: "UNKNOWN_CUSTOMER" });
    expect(await db.trackedEvent.count({ where: { businessId: { in: [a.businessId, b.businessId] } } })).toBe(0);
    expect(await db.participant.count({ where: { businessId: b.businessId, stripeCustomerId: customer } })).toBe(0);
  });
});
