// Referral application (POST /sdk/referrals/apply) and referral lists (GET /sdk/referrals,
// GET /business/api-keys/:apiKeyId/referrals).
import { z } from "zod";
import { listLimit } from "../../shared/list-page";
import { environment } from "../../shared/environment";
import { email, externalUserId, personName } from "../participants/schemas";

const referralCode = z.string().trim().min(1).max(64);
export const clickId = z.string().trim().regex(/^[A-Za-z0-9_-]{1,64}$/, "A click id as received in rts_click");
const sourceLabel = z.string().trim().min(1).max(100);

export const applyReferralInput = z
  .strictObject({
    referralCode,
    referredUserEmail: email.optional(),
    referredUserName: personName.optional(),
    referredUserId: externalUserId.optional(),
    source: sourceLabel.optional(),
    campaign: z.string().trim().min(1).max(100).optional(),
    idempotencyKey: z.string().min(1).max(255).regex(/^[\x21-\x7e]+$/, "Printable ASCII without spaces").optional(),
    /** The link click that brought the referred user (the `rts_click` query parameter of the landing page). */
    clickId: clickId.optional(),
  })
  .refine((v) => v.referredUserId !== undefined || v.referredUserEmail !== undefined, {
    message: "Provide referredUserId (synchronous) or referredUserEmail (queued)",
    path: ["referredUserId"],
  });
export type ApplyReferralInput = z.infer<typeof applyReferralInput>;

/**
 * An SDK_REFERRAL_APPLY job's payload: the apply as sent, and `untrusted: true` when a
 * publishable key sent it (its referral stays provisional when the job runs, as it would have
 * synchronously). `applyJobOf` takes it apart again; the input is checked by its caller.
 */
export const applyJobPayload = <T extends object>(input: T, untrusted: boolean) => (untrusted ? { ...input, untrusted: true } : input);
export function applyJobOf(payload: unknown): { input: unknown; untrusted: boolean } {
  if (!payload || typeof payload !== "object" || Array.isArray(payload)) return { input: payload, untrusted: false };
  const { untrusted, ...input } = payload as Record<string, unknown>;
  return { input, untrusted: untrusted === true };
}

/** `limit`: integer, default 50, clamped into 1..200; anything that is not an integer → 400. */

export const listReferralsQuery = z.strictObject({
  limit: listLimit,
  cursor: z.string().min(1).max(200).optional(),
});

/** A referral's status as every answer names it. */
const referralStatus = z.enum(["PENDING", "QUALIFIED", "REWARDED", "FLAGGED", "REJECTED"]);

/** 200 answer of POST /sdk/referrals/apply (processed now). */
export const applySyncOutput = z.object({
  success: z.literal(true),
  processedSynchronously: z.literal(true),
  queued: z.literal(false),
  referralId: z.string(),
  status: referralStatus,
  reason: z.string().nullable(),
  created: z.boolean(),
  referredParticipant: z.object({ participantId: z.string(), referralCode: z.string() }),
});
export type ApplySyncOutput = z.infer<typeof applySyncOutput>;

/** 202 answer of POST /sdk/referrals/apply (queued as SDK_REFERRAL_APPLY). */
export const applyQueuedOutput = z.object({ success: z.literal(true), queued: z.literal(true), jobId: z.string(), jobType: z.literal("SDK_REFERRAL_APPLY"), message: z.string() });
export type ApplyQueuedOutput = z.infer<typeof applyQueuedOutput>;

const referralOutput = z.object({
  referralId: z.string(),
  status: referralStatus,
  reason: z.string().nullable(),
  environment,
  apiKeyId: z.string().nullable(),
  source: z.string().nullable(),
  campaign: z.string().nullable(),
  referrer: z.object({ participantId: z.string(), referralCode: z.string(), handle: z.string().nullable(), userId: z.string().nullable(), email: z.string().nullable() }),
  referred: z.object({ participantId: z.string(), referralCode: z.string(), handle: z.string().nullable(), userId: z.string().nullable(), email: z.string().nullable() }),
  createdAt: z.string(),
  qualifiedAt: z.string().nullable(),
});
export type ReferralOutput = z.infer<typeof referralOutput>;

export const referralListOutput = z.object({ data: z.array(referralOutput), nextCursor: z.string().nullable() });
export type ReferralListOutput = z.infer<typeof referralListOutput>;
