// The business's view of referrals and participants: list inputs (search, filters, cursor) and
// outputs of GET /business/referrals, /business/referrals/:referralId, /business/participants and
// /business/participants/:participantId. Outputs are plain z.object()s so that other areas can
// `.extend()` them (e.g. wallet or payout fields on participants) without touching the lists.
import { z } from "zod";
import { assetTag } from "../../shared/asset";
import { rewardState } from "../rewards/state";
import { isoInstant } from "../../shared/dates";
import { listCursor, listLimit, pageOutput } from "../../shared/list-page";
import { environment } from "../../shared/environment";
import { participantPayoutTotals, participantRef, type ParticipantRef } from "../participants/schemas";
import { rewardKind, rewardStatus } from "../../shared/reward-enums";
import { commissionBasisFields } from "../../shared/reward-basis";

const referralStatus = z.enum(["PENDING", "QUALIFIED", "REWARDED", "FLAGGED", "REJECTED"]);
const search = z.string().trim().min(1).max(200);
const id = z.string().min(1).max(64);

export const listBusinessReferralsInput = z.strictObject({
  environment: environment.default("LIVE"),
  status: referralStatus.optional(),
  /** Matches the referrer or the referred user: email, name, referral code, handle, user id (case-insensitive, substring). */
  search: search.optional(),
  campaign: z.string().trim().min(1).max(100).optional(),
  apiKeyId: id.optional(),
  source: z.string().trim().min(1).max(100).optional(),
  /** Inclusive lower bound on createdAt. */
  from: isoInstant.optional(),
  /** Exclusive upper bound on createdAt (a bare date means the start of that day). */
  to: isoInstant.optional(),
  limit: listLimit,
  cursor: listCursor,
});
export type ListBusinessReferralsInput = z.infer<typeof listBusinessReferralsInput>;

export type { ParticipantRef };

const businessReferralOutput = z.object({
  /** The asset the amounts are in (the environment's). */
  asset: assetTag,
  referralId: z.string(),
  environment,
  status: referralStatus,
  reason: z.string().nullable(),
  apiKeyId: z.string().nullable(),
  /** Display name of the key (its name, else its prefix); null when created without a key. */
  apiKeyName: z.string().nullable(),
  source: z.string().nullable(),
  campaign: z.string().nullable(),
  referrer: participantRef,
  referred: participantRef,
  /** ETH paid for this referral (every kind). */
  ethPaid: z.string(),
  createdAt: z.string(),
  qualifiedAt: z.string().nullable(),
});
export type BusinessReferralOutput = z.infer<typeof businessReferralOutput>;
export const listBusinessReferralsOutput = pageOutput(businessReferralOutput);

export const referralIdInput = z.strictObject({ referralId: id });

const timelineEntry = z.object({
  at: z.string(),
  type: z.enum(["REFERRAL_CREATED", "EVENT", "REWARD", "QUALIFIED", "STATUS", "REVERSAL"]),
  /** One line for people, e.g. "purchase · PROCESSED". A REWARD entry's status is its state (REVERSED once reversed). */
  title: z.string(),
  status: z.string().nullable(),
  reason: z.string().nullable(),
  eventId: z.string().nullable(),
  rewardId: z.string().nullable(),
  kind: rewardKind.nullable(),
  amountEth: z.string().nullable(),
  requestedEth: z.string().nullable(),
  recipient: participantRef.nullable(),
});
export type TimelineEntry = z.infer<typeof timelineEntry>;

export const referralDetailOutput = businessReferralOutput.extend({
  events: z.array(
    z.object({
      eventId: z.string(),
      eventName: z.string(),
      status: z.string(),
      reason: z.string().nullable(),
      source: z.string().nullable(),
      createdAt: z.string(),
    }),
  ),
  rewards: z.array(
    z.object({
      rewardId: z.string(),
      eventId: z.string().nullable(),
      kind: rewardKind,
      status: rewardStatus,
      amountEth: z.string(),
      requestedEth: z.string(),
      reason: z.string().nullable(),
      recipient: participantRef,
      createdAt: z.string(),
      paidAt: z.string().nullable(),
      state: rewardState,
      reversedAt: z.string().nullable(),
      reversalReason: z.string().nullable(),
      ...commissionBasisFields,
    }),
  ),
  /** Every step, oldest first: the referral, its events, its rewards, with their reasons. */
  timeline: z.array(timelineEntry),
});
export type ReferralDetailOutput = z.infer<typeof referralDetailOutput>;

// ───────────── Participants ─────────────

export const listBusinessParticipantsInput = z.strictObject({
  environment: environment.default("LIVE"),
  /** Email, name, referral code, handle, user id or wallet address (case-insensitive, substring). */
  search: search.optional(),
  limit: listLimit,
  cursor: listCursor,
});
export type ListBusinessParticipantsInput = z.infer<typeof listBusinessParticipantsInput>;

const businessParticipantOutput = participantRef.extend(participantPayoutTotals.shape).extend({
  environment,
  /** Referrals this participant made (every status). */
  referralsMade: z.number().int(),
  /** Who referred this participant, when someone did. */
  referredBy: participantRef.nullable(),
  createdAt: z.string(),
  /** The wallet was proven by the participant's signature in the portal (cleared when it changes otherwise). */
  walletVerified: z.boolean(),
  /** The Stripe customer this participant pays as, once the Stripe connection linked it (docs/integrations.md). */
  stripeCustomerId: z.string().nullable(),
});
export type BusinessParticipantOutput = z.infer<typeof businessParticipantOutput>;
export const listBusinessParticipantsOutput = pageOutput(businessParticipantOutput);

export const participantIdInput = z.strictObject({ participantId: id });

export const participantDetailOutput = businessParticipantOutput.extend({
  referrals: z.array(businessReferralOutput),
  rewards: referralDetailOutput.shape.rewards,
});
export type ParticipantDetailOutput = z.infer<typeof participantDetailOutput>;
