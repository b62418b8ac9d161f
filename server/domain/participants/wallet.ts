// PATCH /business/participants/:participantId: the business sets or clears a participant's
// payout wallet. Answers the participant with its payout totals.
import { z } from "zod";
import { db } from "../../db/client";
import { notFound } from "../../shared/errors";
import { participantTotals } from "../payouts/totals";
import { participantPayoutTotals, walletAddress } from "./schemas";
import { assertPayoutWallet } from "./wallet-rules";

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
  };
}

/** Saving a wallet, even the same one, clears its earlier refusal: the next run tries it again. */
export async function updateParticipantWallet(businessId: string, input: UpdateParticipantInput): Promise<ParticipantWithTotals> {
  await assertPayoutWallet(businessId, input.walletAddress);
  const r = await db.participant.updateMany({ where: { id: input.participantId, businessId }, data: { walletAddress: input.walletAddress, walletFailure: null, walletFailedAt: null } });
  if (r.count !== 1) throw notFound("Participant");
  return participantWithTotals(businessId, input.participantId);
}
