// A delivery to a Stripe connection's webhook URL: the token names the connection (unknown → 404,
// the same answer whatever the reason), the signature is checked with the official package
// (webhooks.constructEvent, 300 s tolerance) against the connection's secret, and the event is
// recorded once per Stripe event id: its StripeEvent row is inserted first, in the transaction
// that makes its effect, so concurrent copies wait on the unique key and find it. A delivery
// whose effect was refused is recorded FAILED (a later copy of it is tried again).
import Stripe from "stripe";
import { z } from "zod";
import { db, txSql, type Tx } from "../../db/client";
import { transactionRetried } from "../../db/retry";
import type { StripeIntegration } from "../../db/generated";
import { AppError, toAppError } from "../../shared/errors";
import { newId } from "../../shared/ids";
import type { Scope } from "../../shared/scope";
import { decryptSecret } from "../webhooks/secrets";
import { queueEmails } from "../email/queue";

import { stripeTokenHash } from "./stripe-connection";
import { onCheckoutCompleted, onCustomer, type StripeResult } from "./stripe-customers";
import { onChargeRefunded, onDisputeCreated, onInvoicePaid, onInvoicePaymentPaid } from "./stripe-payments";

const STRIPE_TOLERANCE_S = 300;

// Stripe always sends object "event" and livemode; a signed body without them is read as a
// test-mode event (a LIVE connection then ignores it: LIVEMODE_MISMATCH).
const stripeEvent = z.object({
  id: z.string().min(1).max(255),
  object: z.literal("event").optional(),
  type: z.string().min(1).max(100),
  livemode: z.boolean().default(false),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});
type StripeEventBody = z.infer<typeof stripeEvent>;

const invalidSignature = (message: string) => new AppError("INVALID_SIGNATURE", message);

/** The connection a token names, or null (no such token, or an unusable one). */
export async function integrationOfToken(token: string): Promise<StripeIntegration | null> {
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) return null;
  return db.stripeIntegration.findUnique({ where: { tokenHash: stripeTokenHash(token) } });
}

/** The event, verified against the connection's secret; a refusal throws INVALID_SIGNATURE (answered 400). */
export function verifyStripeEvent(integration: StripeIntegration, raw: string, signature: string | null): StripeEventBody {
  if (!signature) throw invalidSignature("The Stripe-Signature header is missing");
  let parsed: unknown;
  try {
    parsed = Stripe.webhooks.constructEvent(raw, signature, decryptSecret(integration.secretCiphertext), STRIPE_TOLERANCE_S);
  } catch {
    throw invalidSignature("The Stripe-Signature does not verify with this connection's signing secret (or its timestamp is outside the 300 s tolerance)");
  }
  const event = stripeEvent.safeParse(parsed);
  if (!event.success) throw invalidSignature("The signed body is not a Stripe event");
  return event.data;
}

async function effectOf(tx: Tx, integration: StripeIntegration, scope: Scope, event: StripeEventBody): Promise<StripeResult> {
  if (!integration.enabled) return { outcome: "IGNORED", reason: "DISABLED" };
  if (event.livemode !== (integration.environment === "LIVE")) return { outcome: "IGNORED", reason: "LIVEMODE_MISMATCH" };
  const o = event.data.object;
  switch (event.type) {
    case "checkout.session.completed":
      return onCheckoutCompleted(tx, scope, o);
    case "customer.created":
    case "customer.updated":
      return onCustomer(tx, scope, o);
    case "invoice.paid":
      return onInvoicePaid(tx, scope, integration.purchaseEventName, o);
    case "invoice_payment.paid":
      return onInvoicePaymentPaid(tx, scope, o);
    case "charge.refunded":
      return onChargeRefunded(tx, scope, o);
    case "charge.dispute.created":
      return onDisputeCreated(tx, scope, o);
    default:
      return { outcome: "IGNORED", reason: "UNHANDLED_EVENT_TYPE" };
  }
}

/** Claims the event id (a FAILED record may be claimed again); false when it is already recorded. */
async function claim(tx: Tx, integration: StripeIntegration, event: StripeEventBody, r: StripeResult | null): Promise<boolean> {
  const rows = await tx.$queryRaw<Array<{ id: string }>>`
    INSERT INTO "StripeEvent" ("id", "integrationId", "businessId", "environment", "stripeEventId", "type", "outcome", "reason", "eventId", "referralId", "receivedAt")
    VALUES (${newId()}, ${integration.id}, ${integration.businessId}, ${integration.environment}::"Environment", ${event.id}, ${event.type},
            ${r?.outcome ?? "FAILED"}::"StripeEventOutcome", ${r?.reason ?? "IN_PROGRESS"}, ${r?.eventId ?? null}, ${r?.referralId ?? null}, now() AT TIME ZONE 'UTC')
    ON CONFLICT ("integrationId", "stripeEventId") DO UPDATE SET "outcome" = EXCLUDED."outcome", "reason" = EXCLUDED."reason", "receivedAt" = EXCLUDED."receivedAt"
      WHERE "StripeEvent"."outcome" = 'FAILED'
    RETURNING "id"`;
  return rows.length > 0;
}

async function settle(tx: Tx, integration: StripeIntegration, event: StripeEventBody, r: StripeResult) {
  await tx.stripeEvent.update({
    where: { integrationId_stripeEventId: { integrationId: integration.id, stripeEventId: event.id } },
    data: { outcome: r.outcome, reason: r.reason, eventId: r.eventId ?? null, referralId: r.referralId ?? null },
  });
  await tx.stripeIntegration.updateMany({ where: { id: integration.id }, data: { lastEventAt: new Date() } });
}

interface StripeReceipt {
  received: true;
  duplicate: boolean;
  outcome: StripeResult["outcome"] | null;
  reason: string | null;
}

/** Records a verified event and makes its effect, once per Stripe event id. */
export async function receiveStripeEvent(integration: StripeIntegration, event: StripeEventBody): Promise<StripeReceipt> {
  const scope: Scope = { businessId: integration.businessId, environment: integration.environment, apiKeyId: null };
  try {
    return await transactionRetried(
      async (tx) => {
        if (!(await claim(tx, integration, event, null))) return { received: true, duplicate: true, outcome: null, reason: null };
        const r = await effectOf(tx, integration, scope, event);
        await settle(tx, integration, event, r);
        return { received: true, duplicate: false, outcome: r.outcome, reason: r.reason };
      },
      { timeout: 30_000, maxWait: 30_000 },
    );
  } catch (e) {
    // The effect was refused (or failed): nothing of it is written; the delivery is recorded FAILED.
    const err = toAppError(e);
    const reason = `${err.code}: ${err.message}`.slice(0, 500);
    const failed: StripeResult = { outcome: "FAILED", reason };
    await transactionRetried(async (tx) => {
      const retried = await tx.stripeEvent.count({ where: { integrationId: integration.id, stripeEventId: event.id } });
      if (!(await claim(tx, integration, event, failed))) return;
      await tx.stripeIntegration.updateMany({ where: { id: integration.id }, data: { lastEventAt: new Date() } });
      // Staff who want it hear of a failed delivery once (not again on each of Stripe's retries).
      if (!retried) await queueEmails(await txSql(tx), scope, [{ kind: "STRIPE_FAILED", data: { message: `Stripe's ${event.type} (${event.id}) could not be processed: ${reason}` } }]);
    });
    if (err.status >= 500) throw err;
    return { received: true, duplicate: false, outcome: "FAILED", reason };
  }
}
