// The kinds of email, who receives each, and the statuses of the log (docs/email.md).
import { z } from "zod";

/** Sent to a referrer (the participant's email); each can be turned off by the business and unsubscribed from by the referrer. */
export const REFERRER_KINDS = ["REWARD_EARNED", "PAYOUT_SENT", "PAYOUT_FAILED", "WALLET_MISSING", "REWARD_REVERSED"] as const;
/** Sent to members of the business who want them (each member's own choice). */
export const STAFF_KINDS = ["LOW_POOL", "REVIEW_QUEUE", "PAYOUT_RUN_FAILED", "WEBHOOK_DISABLED", "STRIPE_FAILED"] as const;
const EMAIL_KINDS = [...REFERRER_KINDS, "PORTAL_SIGN_IN", ...STAFF_KINDS] as const;
export const EMAIL_STATUSES = ["QUEUED", "SENT", "FAILED", "SUPPRESSED", "NOT_CONFIGURED"] as const;

export type ReferrerKind = (typeof REFERRER_KINDS)[number];
export type StaffKind = (typeof STAFF_KINDS)[number];
export type EmailKind = (typeof EMAIL_KINDS)[number];

export const emailKind = z.enum(EMAIL_KINDS);

export const isReferrerKind = (k: string): k is ReferrerKind => (REFERRER_KINDS as readonly string[]).includes(k);
export const isStaffKind = (k: string): k is StaffKind => (STAFF_KINDS as readonly string[]).includes(k);

/** A map kind → on, from the list of kinds turned off. */
export function choices<K extends string>(kinds: readonly K[], off: readonly string[]): Record<K, boolean> {
  return Object.fromEntries(kinds.map((k) => [k, !off.includes(k)])) as Record<K, boolean>;
}

/** The list of kinds turned off after a change of some of them. */
export function offAfter<K extends string>(kinds: readonly K[], off: readonly string[], change: Partial<Record<K, boolean>>): K[] {
  return kinds.filter((k) => (change[k] === undefined ? off.includes(k) : change[k] === false));
}
