// Who the Stripe customer is: a referral applied from a checkout session or a customer's
// metadata (through the same code as POST /sdk/referrals/apply, anti-abuse rules included), or a
// participant already linked to the Stripe customer id, or one with the customer's email. The
// customer id is stored on the participant, so later invoices find it without an email.
import type { Tx } from "../../db/client";
import type { Participant } from "../../db/generated";
import type { Scope } from "../../shared/scope";
import { performReferralApply } from "../referrals/service";
import { email as emailSchema } from "../participants/schemas";

export interface StripeResult {
  outcome: "PROCESSED" | "IGNORED" | "FAILED";
  reason: string | null;
  eventId?: string | null;
  referralId?: string | null;
}

type Obj = Record<string, unknown>;
export const str = (v: unknown, max = 255): string | null => (typeof v === "string" && v.trim() && v.length <= max ? v.trim() : null);
export const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
/** An expandable Stripe field: the id, or the expanded object's id. */
export const idOf = (v: unknown): string | null => str(v) ?? str(obj(v).id);

/** A customer's email as the service stores emails, or null when it is not one. */
export function emailOf(v: unknown): string | null {
  const parsed = emailSchema.safeParse(v);
  return parsed.success ? parsed.data : null;
}

/** Links a Stripe customer id to a participant that has none, unless another participant of the business already holds it. */
async function linkCustomer(tx: Tx, scope: Scope, participantId: string, customerId: string | null) {
  if (!customerId) return;
  const taken = await tx.participant.findFirst({ where: { businessId: scope.businessId, environment: scope.environment, stripeCustomerId: customerId }, select: { id: true } });
  if (taken) return;
  await tx.participant.updateMany({ where: { id: participantId, businessId: scope.businessId, environment: scope.environment, stripeCustomerId: null }, data: { stripeCustomerId: customerId } });
}

/** The participant a Stripe customer pays as: the one linked to its id, else the one with its email (then linked). */
export async function findCustomer(tx: Tx, scope: Scope, customerId: string | null, email: string | null): Promise<Participant | null> {
  const base = { businessId: scope.businessId, environment: scope.environment };
  if (customerId) {
    const linked = await tx.participant.findFirst({ where: { ...base, stripeCustomerId: customerId } });
    if (linked) return linked;
  }
  if (!email) return null;
  const byEmail = await tx.participant.findFirst({ where: { ...base, email } });
  if (byEmail && !byEmail.stripeCustomerId) await linkCustomer(tx, scope, byEmail.id, customerId);
  return byEmail;
}

/** A referral code, handle or /r/ click id of this business: the code to apply, with the click when it was one. */
async function referrerOf(tx: Tx, scope: Scope, value: string): Promise<{ referralCode: string; clickId?: string }> {
  if (/^[A-Za-z0-9_-]{1,64}$/.test(value)) {
    const click = await tx.linkClick.findFirst({ where: { id: value, businessId: scope.businessId, environment: scope.environment }, select: { code: true } });
    if (click) return { referralCode: click.code, clickId: value };
  }
  return { referralCode: value };
}

/**
 * Applies the referral `code` for the customer (by email), as POST /sdk/referrals/apply does,
 * and links the customer id to the referred participant. A refusal (unknown code, self
 * referral…) throws its AppError. Without an email the customer cannot be named: IGNORED.
 */
async function applyForCustomer(tx: Tx, scope: Scope, code: string, email: string | null, customerId: string | null): Promise<StripeResult> {
  if (!email) {
    if (customerId) {
      const linked = await findCustomer(tx, scope, customerId, null);
      if (linked) return { outcome: "IGNORED", reason: "ALREADY_LINKED" };
    }
    return { outcome: "IGNORED", reason: "NO_CUSTOMER_EMAIL" };
  }
  const referrer = await referrerOf(tx, scope, code);
  const out = await performReferralApply(tx, scope, { ...referrer, referredUserEmail: email, source: "stripe" });
  await linkCustomer(tx, scope, out.referredParticipant.participantId, customerId);
  return { outcome: "PROCESSED", reason: out.created ? null : "REFERRAL_EXISTS", referralId: out.referralId };
}

/** A referral code in Stripe metadata (metadata.referralCode, or metadata.referral). */
const metadataCode = (metadata: unknown): string | null => str(obj(metadata).referralCode, 64) ?? str(obj(metadata).referral, 64);

/** checkout.session.completed: client_reference_id or metadata.referralCode names the referrer. */
export async function onCheckoutCompleted(tx: Tx, scope: Scope, session: Obj): Promise<StripeResult> {
  const code = str(session.client_reference_id, 64) ?? metadataCode(session.metadata);
  const email = emailOf(obj(session.customer_details).email) ?? emailOf(session.customer_email);
  const customerId = idOf(session.customer);
  if (!code) {
    const known = await findCustomer(tx, scope, customerId, email);
    return { outcome: "IGNORED", reason: known ? "NO_REFERRAL_CODE_CUSTOMER_LINKED" : "NO_REFERRAL_CODE" };
  }
  return applyForCustomer(tx, scope, code, email, customerId);
}

/** customer.created / customer.updated: metadata.referralCode (or metadata.referral) names the referrer. */
export async function onCustomer(tx: Tx, scope: Scope, customer: Obj): Promise<StripeResult> {
  const code = metadataCode(customer.metadata);
  const email = emailOf(customer.email);
  const customerId = idOf(customer.id);
  if (!code) {
    const known = await findCustomer(tx, scope, customerId, email);
    return { outcome: "IGNORED", reason: known ? "NO_REFERRAL_CODE_CUSTOMER_LINKED" : "NO_REFERRAL_CODE" };
  }
  return applyForCustomer(tx, scope, code, email, customerId);
}
