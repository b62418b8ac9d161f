// The referrer's portal: inputs and outputs of POST /sdk/participants/portal-sessions and of the
// portal's JSON API (GET /portal/api/me|referrals|rewards|payouts, the wallet step).
import { z } from "zod";
import { assetTag } from "../../shared/asset";
import { listCursor, listLimit, pageOutput } from "../../shared/list-page";
import { email, externalUserId, walletAddress } from "../participants/schemas";

export const createPortalSessionInput = z
  .strictObject({
    participantId: z.string().trim().min(1).max(64).optional(),
    userId: externalUserId.optional(),
    email: email.optional(),
    /** Lifetime of the token: 60 s to 24 h, default 1 h. */
    expiresInSeconds: z.number().int().min(60).max(86_400).default(3_600),
    /** Where the portal's "back" link leads (an http(s) URL of the business's site). */
    returnUrl: z.url({ protocol: /^https?$/ }).max(2048).optional(),
  })
  .refine((v) => v.participantId !== undefined || v.userId !== undefined || v.email !== undefined, { message: "Provide participantId, userId or email", path: ["participantId"] });
export type CreatePortalSessionInput = z.infer<typeof createPortalSessionInput>;

export const portalSessionOutput = z.object({
  /** Open it in the participant's browser: it exchanges the token for a portal cookie. */
  url: z.string(),
  /** The bearer token for GET /portal/api/* (shown once; only its hash is stored). */
  token: z.string(),
  expiresAt: z.string(),
  participantId: z.string(),
});
export type PortalSessionOutput = z.infer<typeof portalSessionOutput>;

export const portalListInput = z.strictObject({ limit: listLimit, cursor: listCursor });
export type PortalListInput = z.infer<typeof portalListInput>;

const eth = z.string();

export const portalMeOutput = z.object({
  participantId: z.string(),
  /** CUSTOMER: referred by someone and with no counted referral of their own (the page then leads with their rewards and wallet); else REFERRER. */
  audience: z.enum(["REFERRER", "CUSTOMER"]),
  environment: z.enum(["TEST", "LIVE"]),
  business: z.object({ name: z.string() }),
  referralCode: z.string(),
  handle: z.string().nullable(),
  /** The participant's own name and email (never anyone else's). */
  name: z.string().nullable(),
  email: z.string().nullable(),
  /** The link to share: `{base_url}/r/CODE` when the environment has a link destination, else the business's landing URL with `?ref=CODE`, or null with neither. */
  shareUrl: z.string().nullable(),
  /** Counted clicks on the participant's link (one per visitor, link and hour; bots and HEAD never count): all time, distinct visitors per day summed, and the last 30 days. */
  clicks: z.object({ clicks: z.number().int(), uniqueClicks: z.number().int(), last30Days: z.number().int() }),
  wallet: z.object({ address: z.string().nullable(), verified: z.boolean(), verifiedAt: z.string().nullable(), verificationRequired: z.boolean() }),
  /** Counted referrals (a rejected one, e.g. a self-referral, is not counted: `notCounted`). */
  referrals: z.object({ total: z.number().int(), qualified: z.number().int(), pending: z.number().int(), notCounted: z.number().int() }),
  tier: z.object({
    current: z.object({ name: z.string(), minReferrals: z.number().int() }).nullable(),
    next: z.object({ name: z.string(), minReferrals: z.number().int(), referralsToNext: z.number().int() }).nullable(),
    qualifiedReferrals: z.number().int(),
  }),
  /** In the vocabulary of the dashboard: earned, on hold, payable, paid out, reversed. */
  earnings: z.object({
    earnedEth: eth,
    onHoldEth: eth,
    payableEth: eth,
    /** In a payout being sent. */
    inPayoutEth: eth,
    paidOutEth: eth,
    reversedEth: eth,
    /** Reversed after it was paid out: deducted from the next payouts. */
    owedBackEth: eth,
    /** When each held amount becomes payable (earliest first, up to 20). */
    holds: z.array(z.object({ amountEth: eth, until: z.string() })),
    /** The asset every amount of the portal is in (the environment's). */
    asset: assetTag,
  }),
  /** Earned (rewarded less reversed) per UTC month of the reward, oldest first, the last 24 months with earnings. */
  earningsByMonth: z.array(z.object({ month: z.string(), earnedEth: eth })),
  /** The environment's latest proof of liabilities, or null before the first. */
  proof: z
    .object({
      proofId: z.string(),
      blockNumber: z.number().int(),
      /** The pool's balance covered everything owed at that block. */
      covered: z.boolean(),
      createdAt: z.string(),
      /** The participant is a leaf of it (false: they joined after it was built). */
      yourShareIncluded: z.boolean(),
      /** What the proof counts as owed to the participant, or null when not included. */
      yourOwedEth: eth.nullable(),
      /** The public page that verifies it (HTML for a browser, JSON for a client). */
      verifyUrl: z.string(),
    })
    .nullable(),
  /** Base URL of the environment's block explorer (EXPLORER_URL / EXPLORER_URL_TEST), or null. */
  explorerUrl: z.string().nullable(),
  returnUrl: z.string().nullable(),
  expiresAt: z.string(),
  leaderboard: z
    .object({
      month: z.string(),
      top: z.array(z.object({ rank: z.number().int(), displayName: z.string(), qualifiedReferrals: z.number().int(), you: z.boolean() })),
      /** The participant's own rank this month, or null without a qualified referral this month. */
      yourRank: z.number().int().nullable(),
    })
    .nullable(),
});
export type PortalMeOutput = z.infer<typeof portalMeOutput>;

const referralStatus = z.enum(["PENDING", "QUALIFIED", "REWARDED", "FLAGGED", "REJECTED"]);
const portalReferral = z.object({
  referralId: z.string(),
  status: referralStatus,
  /** The status in words, for people. */
  statusText: z.string(),
  /** The referred person, masked: "j•••@example.com" (never a full email or name). */
  referred: z.string(),
  createdAt: z.string(),
  qualifiedAt: z.string().nullable(),
  /** False for a rejected referral (e.g. a self-referral): it is not counted. */
  counted: z.boolean(),
  /** When the referral was reversed as a whole (a refund or chargeback of the referred customer). */
  reversedAt: z.string().nullable(),
  /** What refunds and reversals took back of this participant's rewards for it. */
  refundedEth: eth,
});
export const portalReferralsOutput = pageOutput(portalReferral);
export type PortalReferral = z.infer<typeof portalReferral>;

const portalReward = z.object({
  rewardId: z.string(),
  kind: z.enum(["REFERRAL", "BONUS", "MANUAL", "COMMISSION"]),
  status: z.enum(["PAID", "HELD", "REFUSED"]),
  payoutStatus: z.enum(["ON_HOLD", "PAYABLE", "IN_PAYOUT", "PAID_OUT", "REVERSED"]).nullable(),
  /** earned / on hold / payable / in payout / paid out / reversed / held for review / not granted. */
  statusText: z.string(),
  amountEth: eth,
  /** What reversals took back: the whole amount once reversed, a share after partial refunds. */
  reversedEth: eth,
  /** When an on-hold reward becomes payable. */
  holdUntil: z.string().nullable(),
  createdAt: z.string(),
  reversedAt: z.string().nullable(),
  /** What the reward was for: the referred person (masked; null for one's own bonus), the event, the purchase and the commission rate. */
  forWhat: z.object({
    referred: z.string().nullable(),
    eventName: z.string().nullable(),
    /** The purchase amount a commission was computed from (else the event's amount), in purchaseCurrency. */
    purchaseAmount: z.string().nullable(),
    purchaseCurrency: z.string().nullable(),
    /** A percentage commission's rate, in percent ("5" for 5 %); null for other rewards and fixed commissions. */
    commissionPercent: z.string().nullable(),
  }),
  /** The same in words: "Commission: 5 % of b•••@example.com's purchase of 120 USD". */
  description: z.string(),
});
export const portalRewardsOutput = pageOutput(portalReward);
export type PortalReward = z.infer<typeof portalReward>;

const portalPayout = z.object({
  payoutId: z.string(),
  amountEth: eth,
  status: z.enum(["PENDING", "SENT", "CONFIRMED", "FAILED"]),
  statusText: z.string(),
  walletAddress: z.string(),
  txHash: z.string().nullable(),
  /** The transaction on the environment's block explorer, when one is configured. */
  txUrl: z.string().nullable(),
  createdAt: z.string(),
  confirmedAt: z.string().nullable(),
});
export const portalPayoutsOutput = pageOutput(portalPayout);
export type PortalPayout = z.infer<typeof portalPayout>;

export const walletChallengeInput = z.strictObject({ address: walletAddress });
export const walletVerifyInput = z.strictObject({
  message: z.string().min(1).max(4096),
  /** Pasted signatures may carry spaces or line breaks around them. */
  signature: z
    .string()
    .max(20_000)
    .trim()
    .regex(/^0x([0-9a-fA-F]{2})+$/, "Must be a 0x-prefixed hex signature"),
});
export type WalletVerifyInput = z.infer<typeof walletVerifyInput>;
