// Paid invoices earn, refunds and disputes reverse. invoice.paid of a referred customer becomes
// one tracked event (the integration's purchaseEventName, amount_paid converted exactly from the
// currency's minor units) through /track's own code, once per invoice (a StripeInvoice row
// claimed first, in the same transaction). charge.refunded reverses the share newly refunded
// (Stripe's amount_refunded is cumulative) through the reversal code; charge.dispute.created
// reverses all that is left. invoice_payment.paid (newer API versions) names the invoice's payment.
import type { Tx } from "../../db/client";
import { CURRENCY_DECIMALS, decimalOfUnits, type Currency } from "../../shared/money";
import { newId } from "../../shared/ids";
import type { Scope } from "../../shared/scope";
import { refundEventToTotal } from "../reversals/reversals";
import { trackInTransaction } from "../tracking/service";
import { emailOf, findCustomer, idOf, obj, str, type StripeResult } from "./stripe-customers";

type Obj = Record<string, unknown>;

/** Stripe's currency (lower case) as a supported fiat currency, or null. */
function currencyOf(v: unknown): Exclude<Currency, "ETH"> | null {
  const c = typeof v === "string" ? v.toUpperCase() : "";
  return c !== "ETH" && c in CURRENCY_DECIMALS ? (c as Exclude<Currency, "ETH">) : null;
}

/** A non-negative integer amount in minor units, or null. */
const minorUnits = (v: unknown): bigint | null => (typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : null);

/** The payment intent and charge of an invoice, in the field names of older and newer Stripe API versions. */
function paymentOf(invoice: Obj): { paymentIntentId: string | null; chargeId: string | null } {
  let paymentIntentId = idOf(invoice.payment_intent);
  let chargeId = idOf(invoice.charge);
  const payments = obj(invoice.payments).data;
  if (Array.isArray(payments)) {
    for (const p of payments.slice(0, 20)) {
      const payment = obj(obj(p).payment);
      paymentIntentId ??= idOf(payment.payment_intent);
      chargeId ??= idOf(payment.charge);
    }
  }
  return { paymentIntentId, chargeId };
}

export async function onInvoicePaid(tx: Tx, scope: Scope, purchaseEventName: string, invoice: Obj): Promise<StripeResult> {
  const invoiceId = str(invoice.id);
  const paid = minorUnits(invoice.amount_paid);
  if (!invoiceId || paid === null) return { outcome: "IGNORED", reason: "NOT_AN_INVOICE" };
  if (paid === 0n) return { outcome: "IGNORED", reason: "ZERO_AMOUNT" };
  const currency = currencyOf(invoice.currency);
  if (!currency) return { outcome: "IGNORED", reason: "UNSUPPORTED_CURRENCY" };
  const customer = await findCustomer(tx, scope, idOf(invoice.customer), emailOf(invoice.customer_email));
  if (!customer) return { outcome: "IGNORED", reason: "UNKNOWN_CUSTOMER" };
  const referral = await tx.referral.findFirst({ where: { referredId: customer.id, businessId: scope.businessId, environment: scope.environment }, select: { id: true } });
  if (!referral) return { outcome: "IGNORED", reason: "NOT_REFERRED" };
  // The invoice is claimed first: a second delivery for it (another event id, or concurrently) finds it.
  const { paymentIntentId, chargeId } = paymentOf(invoice);
  // A row without an event is only the invoice's payment, named by invoice_payment.paid: it is claimed too.
  const [claim] = await tx.$queryRaw<Array<{ id: string }>>`
    INSERT INTO "StripeInvoice" ("id", "businessId", "environment", "invoiceId", "paymentIntentId", "chargeId")
    VALUES (${newId()}, ${scope.businessId}, ${scope.environment}::"Environment", ${invoiceId}, ${paymentIntentId}, ${chargeId})
    ON CONFLICT ("businessId", "environment", "invoiceId") DO UPDATE
      SET "paymentIntentId" = COALESCE("StripeInvoice"."paymentIntentId", EXCLUDED."paymentIntentId"), "chargeId" = COALESCE("StripeInvoice"."chargeId", EXCLUDED."chargeId")
      WHERE "StripeInvoice"."eventId" IS NULL
    RETURNING "id"`;
  if (!claim) {
    const earned = await tx.stripeInvoice.findFirst({ where: { businessId: scope.businessId, environment: scope.environment, invoiceId }, select: { eventId: true } });
    return { outcome: "IGNORED", reason: "INVOICE_ALREADY_EARNED", eventId: earned?.eventId ?? null };
  }
  const metadata: Record<string, string> = { stripeInvoiceId: invoiceId };
  if (customer.externalId) metadata.referredUserId = customer.externalId;
  if (customer.email) metadata.referredUserEmail = customer.email;
  const answer = await trackInTransaction(tx, scope, {
    eventName: purchaseEventName,
    amount: decimalOfUnits(paid, CURRENCY_DECIMALS[currency]),
    currency,
    source: "stripe",
    idempotencyKey: `stripe:${invoiceId}`,
    metadata,
  });
  const body = answer.body;
  await tx.stripeInvoice.update({ where: { id: claim.id }, data: { eventId: body.eventId } });
  const status = "status" in body ? body.status : "QUEUED";
  return { outcome: "PROCESSED", reason: status === "PROCESSED" ? null : status, eventId: body.eventId, referralId: "referralId" in body ? body.referralId : referral.id };
}

/**
 * invoice_payment.paid (Stripe API versions from 2025-03-31, where an invoice no longer names its
 * payment intent nor a charge its invoice): remembers which payment intent and charge paid the
 * invoice, before or after its invoice.paid, so that its refunds find it.
 */
export async function onInvoicePaymentPaid(tx: Tx, scope: Scope, invoicePayment: Obj): Promise<StripeResult> {
  const invoiceId = idOf(invoicePayment.invoice);
  const payment = obj(invoicePayment.payment);
  const paymentIntentId = idOf(payment.payment_intent);
  const chargeId = idOf(payment.charge);
  if (!invoiceId || (!paymentIntentId && !chargeId)) return { outcome: "IGNORED", reason: "NO_PAYMENT" };
  const [row] = await tx.$queryRaw<Array<{ eventId: string | null }>>`
    INSERT INTO "StripeInvoice" ("id", "businessId", "environment", "invoiceId", "paymentIntentId", "chargeId")
    VALUES (${newId()}, ${scope.businessId}, ${scope.environment}::"Environment", ${invoiceId}, ${paymentIntentId}, ${chargeId})
    ON CONFLICT ("businessId", "environment", "invoiceId") DO UPDATE
      SET "paymentIntentId" = COALESCE("StripeInvoice"."paymentIntentId", EXCLUDED."paymentIntentId"), "chargeId" = COALESCE("StripeInvoice"."chargeId", EXCLUDED."chargeId")
    RETURNING "eventId"`;
  return { outcome: "PROCESSED", reason: "PAYMENT_LINKED", eventId: row?.eventId ?? null };
}

/** The invoice's earned event: by invoice id, else by payment intent, else by charge. */
async function earnedEvent(tx: Tx, scope: Scope, ids: { invoiceId: string | null; paymentIntentId: string | null; chargeId: string | null }) {
  const base = { businessId: scope.businessId, environment: scope.environment, eventId: { not: null } };
  const or = [
    ...(ids.invoiceId ? [{ invoiceId: ids.invoiceId }] : []),
    ...(ids.paymentIntentId ? [{ paymentIntentId: ids.paymentIntentId }] : []),
    ...(ids.chargeId ? [{ chargeId: ids.chargeId }] : []),
  ];
  if (!or.length) return null;
  const row = await tx.stripeInvoice.findFirst({ where: { ...base, OR: or }, select: { id: true, chargeId: true, event: { select: { id: true, currency: true, referralId: true } } } });
  // Found by invoice or payment intent: the charge is remembered, for a dispute that names only it.
  if (row && !row.chargeId && ids.chargeId) await tx.stripeInvoice.update({ where: { id: row.id }, data: { chargeId: ids.chargeId } });
  return row?.event ?? null;
}

async function reverse(tx: Tx, scope: Scope, event: { id: string; referralId: string | null }, refundedTotal: string | null, reason: string, eventName: string): Promise<StripeResult> {
  const r = await refundEventToTotal(tx, scope, event.id, refundedTotal, { reason, eventName });
  if (!r) return { outcome: "IGNORED", reason: "NOTHING_NEW_TO_REVERSE", eventId: event.id, referralId: event.referralId };
  return { outcome: "PROCESSED", reason: null, eventId: event.id, referralId: event.referralId };
}

/** charge.refunded: reverses what amount_refunded (cumulative) adds to what the event has reversed. */
export async function onChargeRefunded(tx: Tx, scope: Scope, charge: Obj): Promise<StripeResult> {
  const event = await earnedEvent(tx, scope, { invoiceId: idOf(charge.invoice), paymentIntentId: idOf(charge.payment_intent), chargeId: idOf(charge.id) });
  if (!event) return { outcome: "IGNORED", reason: "UNKNOWN_INVOICE" };
  const refunded = minorUnits(charge.amount_refunded);
  const currency = currencyOf(charge.currency);
  if (refunded === null || !currency) return { outcome: "IGNORED", reason: "UNSUPPORTED_CURRENCY", eventId: event.id };
  if (currency !== event.currency) return { outcome: "IGNORED", reason: "CURRENCY_MISMATCH", eventId: event.id };
  if (refunded === 0n) return { outcome: "IGNORED", reason: "ZERO_AMOUNT", eventId: event.id };
  const refunds = obj(charge.refunds).data;
  const refundIds = Array.isArray(refunds) ? refunds.slice(0, 5).map((r) => idOf(r)).filter((id): id is string => id !== null) : [];
  const reason = `Stripe refund of charge ${idOf(charge.id) ?? "?"}${refundIds.length ? ` (${refundIds.join(", ")})` : ""}`;
  return reverse(tx, scope, event, decimalOfUnits(refunded, CURRENCY_DECIMALS[currency]), reason.slice(0, 500), "refund");
}

/** charge.dispute.created: a chargeback reverses all that is left of the invoice's commission. */
export async function onDisputeCreated(tx: Tx, scope: Scope, dispute: Obj): Promise<StripeResult> {
  const event = await earnedEvent(tx, scope, { invoiceId: null, paymentIntentId: idOf(dispute.payment_intent), chargeId: idOf(dispute.charge) });
  if (!event) return { outcome: "IGNORED", reason: "UNKNOWN_INVOICE" };
  return reverse(tx, scope, event, null, `Stripe dispute ${idOf(dispute.id) ?? "?"} of charge ${idOf(dispute.charge) ?? "?"}`.slice(0, 500), "dispute");
}
