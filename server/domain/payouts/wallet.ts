// PATCH /business/participants/:participantId: the business sets or clears a participant's
// payout wallet. Answers the participant with its payout totals. The portal's wallet step sets it
// through the same function, with the time the participant proved it by signature; a change by
// any other path leaves the wallet unverified (a trigger of migration 0074).
import { z } from "zod";
import { db } from "../../db/client";
import { isUniqueViolation } from "../../db/unique-violation";
import { AppError, notFound } from "../../shared/errors";
import { participantTotals } from "./totals";
import { participantPayoutTotals, walletAddress } from "../participants/schemas";
import { assertPayoutWallet } from "../participants/wallet-rules";

export const updateParticipantInput = z.strictObject({
  participantId: z.string().min(1).max(64),
  /** A checksummed or lower-case EVM address; null clears it. */
  walletAddress: walletAddress.nullable(),
});
export type UpdateParticipantInput = z.infer<typeof updateParticipantInput>;

export const participantWithTotalsOutput = z.object({
  participantId: z.string(),
  environment: z.enum(["TEST", "LIVE"]),
  userId: z.string().nullable(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  handle: z.string().nullable(),
  referralCode: z.string(),
  ...participantPayoutTotals.shape,
  createdAt: z.string(),
  /** Proven by the participant's signature in the portal; cleared when the wallet changes otherwise. */
  walletVerified: z.boolean(),
  walletVerifiedAt: z.string().nullable(),
});
export type ParticipantWithTotals = z.infer<typeof participantWithTotalsOutput>;

async function participantWithTotals(businessId: string, participantId: string): Promise<ParticipantWithTotals> {
  const p = await db.participant.findFirst({ where: { id: participantId, businessId } });
  if (!p) throw notFound("Participant");
  const t = (await participantTotals(businessId, [p.id])).get(p.id)!;
  return {
    participantId: p.id,
    environment: p.environment,
    userId: p.externalId,
    email: p.email,
    name: p.name,
    handle: p.handle,
    referralCode: p.referralCode,
    createdAt: p.createdAt.toISOString(),
    ...t,
    walletAddress: p.walletAddress,
    walletVerified: p.walletVerified,
    walletVerifiedAt: p.walletVerifiedAt?.toISOString() ?? null,
  };
}

/**
 * Saving a wallet clears its earlier refusal: the next run tries it again. Staff may retry the
 * same wallet so; the participant (`verifiedAt`: proven by signature in the portal) only by
 * changing it: signing the wallet that was refused again must not make every run pay for another
 * failed transfer. A verified wallet has one owner per business and environment.
 */
export async function updateParticipantWallet(businessId: string, input: UpdateParticipantInput, verifiedAt?: Date): Promise<ParticipantWithTotals> {
  await assertPayoutWallet(businessId, input.walletAddress);
  const verified = verifiedAt && input.walletAddress ? { walletVerified: true, walletVerifiedAt: verifiedAt } : {};
  const clear = { walletFailure: null, walletFailedAt: null };
  const same = (a: string | null) => !!a && !!input.walletAddress && a.toLowerCase() === input.walletAddress.toLowerCase();
  const keepFailure = verifiedAt ? same((await db.participant.findFirst({ where: { id: input.participantId, businessId }, select: { walletAddress: true } }))?.walletAddress ?? null) : false;
  let count: number;
  try {
    ({ count } = await db.participant.updateMany({ where: { id: input.participantId, businessId }, data: { walletAddress: input.walletAddress, ...(keepFailure ? {} : clear), ...verified } }));
  } catch (e) {
    if (isUniqueViolation(e)) {
      throw new AppError("WALLET_IN_USE", "This wallet is already verified by another participant");
    }
    throw e;
  }
  if (count !== 1) throw notFound("Participant");
  return participantWithTotals(businessId, input.participantId);
}
