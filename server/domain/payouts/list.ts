// Payouts as the API and webhooks show them, and GET /business/payouts.
import { db } from "../../db/client";
import type { Payout, Prisma } from "../../db/generated";
import { checkCursor, pageArgs, toPage } from "../../shared/list-page";
import { weiToEth } from "../../shared/money";
import { toParticipantRef } from "../participants/schemas";
import type { WebhookEvent } from "../webhooks/emit";
import type { ListPayoutsInput, PayoutOutput } from "./schemas";

export type PayoutRow = Payout;

export function toPayoutOutput(p: PayoutRow): PayoutOutput {
  return {
    payoutId: p.id,
    environment: p.environment,
    participantId: p.participantId,
    walletAddress: p.walletAddress,
    amountEth: weiToEth(p.amountWei),
    rewardsEth: weiToEth(p.rewardsWei),
    offsetEth: weiToEth(p.offsetWei),
    gasEth: p.gasWei === null ? null : weiToEth(p.gasWei),
    status: p.status,
    txHash: p.txHash,
    nonce: p.nonce,
    fromAddress: p.fromAddress,
    blockNumber: p.blockNumber === null ? null : p.blockNumber.toString(),
    rewardIds: p.rewardIds,
    error: p.error,
    createdAt: p.createdAt.toISOString(),
    sentAt: p.sentAt?.toISOString() ?? null,
    confirmedAt: p.confirmedAt?.toISOString() ?? null,
    failedAt: p.failedAt?.toISOString() ?? null,
  };
}

/** The payout.* webhook event of a payout row (its data: the payout as GET /business/payouts lists it). */
export const payoutWebhook = (type: "payout.sent" | "payout.confirmed" | "payout.failed", p: PayoutRow): WebhookEvent => ({
  businessId: p.businessId,
  environment: p.environment,
  type,
  data: { ...toPayoutOutput(p) },
});

/** The filters of the payouts list and its CSV export. */
export const payoutWhere = (businessId: string, q: Pick<ListPayoutsInput, "environment" | "status" | "participantId">): Prisma.PayoutWhereInput => ({
  businessId,
  environment: q.environment,
  status: q.status,
  participantId: q.participantId,
});

export async function listPayouts(businessId: string, q: ListPayoutsInput) {
  await checkCursor(q.cursor, (id) => db.payout.findFirst({ where: { id, businessId, environment: q.environment }, select: { id: true } }));
  const rows = await db.payout.findMany({
    where: payoutWhere(businessId, q),
    include: { participant: true },
    ...pageArgs(q.limit, q.cursor),
  });
  return toPage(rows, q.limit, (p) => ({ ...toPayoutOutput(p), participant: toParticipantRef(p.participant) }));
}
