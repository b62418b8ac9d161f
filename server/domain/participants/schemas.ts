// Participants: the business's end users (referrers and referred). Inputs of POST /sdk/participants.
import { z } from "zod";
import { assetTag } from "../../shared/asset";
import { getAddress, isAddress } from "viem";
import type { Participant } from "../../db/generated";

import { email } from "../../shared/email-address";

export { email };
export const externalUserId = z.string().trim().min(1).max(128);
/** Handles are case-insensitive (stored lower-case) and URL-safe so they can be shared. */
const handle = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9_.-]{1,39}$/, "2–40 characters: letters, digits, '_', '.', '-'");
/** Highest address of the reserved low range (0x…ffff): the zero address, precompiles and protocol addresses. */
const RESERVED_TOP = 0xffffn;
/** Precompiled contracts at the time of writing: 0x01–0x11 (through Prague's BLS12-381) and 0x0100 (P-256). */
const PRECOMPILE = (n: bigint) => (n >= 1n && n <= 0x11n) || n === 0x100n;

/**
 * Why an address can never be a payout wallet, or null: the zero address, a precompile, or the
 * rest of the reserved low range up to 0x…ffff (no one holds a key there; a transfer is burnt or
 * runs protocol code). One rule for every input that sets a wallet and for the payout run.
 */
export function reservedWalletReason(address: string): string | null {
  const n = BigInt(address);
  if (n === 0n) return "The zero address cannot receive payouts";
  if (PRECOMPILE(n)) return "This address is a precompiled contract, not a wallet";
  if (n <= RESERVED_TOP) return "Addresses up to 0x…ffff are reserved for the protocol, not wallets";
  return null;
}

/**
 * An EVM address: 0x + 40 hex digits; mixed case must carry a valid EIP-55 checksum; not in the
 * reserved low range (reservedWalletReason). Stored and answered checksummed.
 */
export const walletAddress = z
  .string()
  .trim()
  .max(42)
  .refine((v) => isAddress(v, { strict: true }), "Must be an EVM address: 0x followed by 40 hex digits (a mixed-case address must have a valid checksum)")
  .transform((v) => getAddress(v))
  .superRefine((v, ctx) => {
    const reason = reservedWalletReason(v);
    if (reason) ctx.addIssue({ code: "custom", message: reason });
  });
export const personName = z.string().trim().min(1).max(200);

export const upsertParticipantInput = z
  .strictObject({
    userId: externalUserId.optional(),
    email: email.optional(),
    name: personName.optional(),
    handle: handle.optional(),
    /** Where payouts go; null clears it. */
    walletAddress: walletAddress.nullable().optional(),
  })
  .refine((v) => v.userId !== undefined || v.email !== undefined, { message: "Provide userId or email", path: ["userId"] });
export type UpsertParticipantInput = z.infer<typeof upsertParticipantInput>;

/** A participant's payout wallet and totals (payouts/totals.ts computes them). */
export const participantPayoutTotals = z.object({
  /** Payout wallet (checksummed), or null. */
  walletAddress: z.string().nullable(),
  /** Rewards granted (every kind), less reversed ones. */
  earnedEth: z.string(),
  /** Earned, not yet paid out (on hold, payable, in a payout being sent). */
  owedEth: z.string(),
  /** Reached the wallet (confirmed payouts). */
  paidOutEth: z.string(),
  /** Reversed after payout, not yet offset by a later payout. */
  clawbackOwedEth: z.string(),
  /** owedEth − clawbackOwedEth. */
  balanceEth: z.string(),
  /** The asset these amounts are in (the participant's environment's). */
  asset: assetTag,
});

export const participantOutput = z.object({
  participantId: z.string(),
  referralCode: z.string(),
  handle: z.string().nullable(),
  userId: z.string().nullable(),
  email: z.string().nullable(),
  walletAddress: z.string().nullable(),
  created: z.boolean(),
});
export type ParticipantOutput = z.infer<typeof participantOutput>;

/** A participant as other objects show it: enough to name the person. */
export const participantRef = z.object({
  participantId: z.string(),
  referralCode: z.string(),
  handle: z.string().nullable(),
  userId: z.string().nullable(),
  email: z.string().nullable(),
  name: z.string().nullable(),
});
export type ParticipantRef = z.infer<typeof participantRef>;

/** A participant row as a ParticipantRef (its external id is the caller's userId). */
export const toParticipantRef = (p: Pick<Participant, "id" | "referralCode" | "handle" | "externalId" | "email" | "name">): ParticipantRef => ({
  participantId: p.id,
  referralCode: p.referralCode,
  handle: p.handle,
  userId: p.externalId,
  email: p.email,
  name: p.name,
});

/** GET /business/participants/:participantId/export: the participant and every row naming them. */
export const participantExportOutput = z.record(z.string(), z.unknown());

export const participantErasedOutput = z.object({
  participantId: z.string(),
  environment: z.enum(["TEST", "LIVE"]),
  erasedAt: z.string(),
});
