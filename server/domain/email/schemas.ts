import { z } from "zod";
import { environment } from "../../shared/environment";
import { listCursor, listLimit, pageOutput } from "../../shared/list-page";
import { strictBoolean } from "../../shared/strict-types";
import { email } from "../../shared/email-address";
import { EMAIL_STATUSES, emailKind } from "./kinds";

/** Each kind on or off: outputs say booleans, inputs take JSON booleans only (strictBoolean). */
const referrerShape = <T extends z.ZodType>(b: T) => ({ REWARD_EARNED: b, PAYOUT_SENT: b, PAYOUT_FAILED: b, WALLET_MISSING: b, REWARD_REVERSED: b });
const staffShape = <T extends z.ZodType>(b: T) => ({ LOW_POOL: b, REVIEW_QUEUE: b, PAYOUT_RUN_FAILED: b, WEBHOOK_DISABLED: b, STRIPE_FAILED: b });
const referrerChoices = z.object(referrerShape(z.boolean()));
const staffChoices = z.object(staffShape(z.boolean()));
const referrerChange = z.strictObject(referrerShape(strictBoolean.optional()));
const staffChange = z.strictObject(staffShape(strictBoolean.optional()));
/** A sender name: one line of text (no CR/LF: never a header). */
const fromName = z
  .string()
  .trim()
  .max(100)
  .regex(/^[^\r\n\u2028\u2029]*$/, "Must be one line of text");

export const notificationsInput = z.strictObject({ environment: environment.default("LIVE") });
export const notificationsOutput = z.object({ environment, referrer: referrerChoices, fromName: z.string().nullable(), replyTo: z.string().nullable() });
export const updateNotificationsInput = z.strictObject({
  environment: environment.default("LIVE"),
  referrer: referrerChange.optional(),
  fromName: fromName.nullable().optional(),
  replyTo: email.nullable().optional(),
});

export const memberNotificationsOutput = staffChoices;
export const updateMemberNotificationsInput = staffChange;

/** The portal's preferences: the referrer emails this participant gets. */
export const portalNotificationsOutput = referrerChoices;
export const updatePortalNotificationsInput = referrerChange;

const emailStatus = z.enum(EMAIL_STATUSES);
export const listEmailsInput = z.strictObject({
  environment: environment.default("LIVE"),
  kind: emailKind.optional(),
  to: z.string().trim().toLowerCase().max(254).optional(),
  status: emailStatus.optional(),
  limit: listLimit,
  cursor: listCursor,
});
const emailOutput = z.object({
  emailId: z.string(),
  kind: emailKind,
  to: z.string(),
  subject: z.string(),
  status: emailStatus,
  error: z.string().nullable(),
  attempts: z.number().int(),
  createdAt: z.string(),
  sentAt: z.string().nullable(),
});
export const listEmailsOutput = pageOutput(emailOutput);
export const emailIdInput = z.strictObject({ emailId: z.string().min(1).max(80) });
export const emailDetailOutput = emailOutput.extend({ environment, text: z.string().nullable(), html: z.string().nullable() });

export const signInInput = z.strictObject({ businessId: z.string().trim().min(1).max(64), email });
export const portalLinkOutput = z.object({ url: z.string(), expiresAt: z.string() });
export const queuedEmailOutput = z.object({ queued: z.boolean(), emailId: z.string().nullable() });
