// Payouts as the API and webhooks show them, and GET /business/payouts.
import { db } from "../../db/client";
import { env } from "../../shared/env";
import type { Payout, Prisma } from "../../db/generated";
import { checkCursor, pageArgs, toPage } from "../../shared/list-page";
import { weiToEth } from "../../shared/money";
import { assetTagOf, ETH_ASSET, type Asset } from "../../shared/asset";
import { amountOf, readAsset } from "../assets/read";
import { toParticipantRef } from "../participants/schemas";
import type { WebhookEvent } from "../webhooks/emit";
import type { BatchOutput, ListBatchesInput, ListPayoutsInput, PayoutOutput } from "./schemas";

export type PayoutRow = Payout;

/** A payout in the API's words: its amounts in the environment's asset (gas always in ETH). */
export function toPayoutOutput(p: PayoutRow, asset: Asset = ETH_ASSET): PayoutOutput {
  return {
    asset: assetTagOf(asset),
    payoutId: p.id,
    environment: p.environment,
    participantId: p.participantId,
    walletAddress: p.walletAddress,
    amountEth: amountOf(p.amountWei, asset),
    rewardsEth: amountOf(p.rewardsWei, asset),
    offsetEth: amountOf(p.offsetWei, asset),
    gasEth: p.gasWei === null ? null : weiToEth(p.gasWei),
    status: p.status,
    batchId: p.batchId,
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

/** The payout.* webhook event of a payout row (its data: the payout as GET /business/payouts lists it, in the environment's asset). */
export const payoutWebhook = (type: "payout.sent" | "payout.confirmed" | "payout.failed", p: PayoutRow, asset: Asset): WebhookEvent => ({
  businessId: p.businessId,
  environment: p.environment,
  type,
  data: { ...toPayoutOutput(p, asset) },
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
  const asset = await readAsset(db, businessId, q.environment);
  return toPage(rows, q.limit, (p) => ({ ...toPayoutOutput(p, asset), participant: toParticipantRef(p.participant) }));
}

type BatchRow = Awaited<ReturnType<typeof db.payoutBatch.findUniqueOrThrow>>;

const toBatchOutput = (b: BatchRow, asset: Asset, explorer: string | null): BatchOutput => ({
  asset: assetTagOf(asset),
  batchId: b.id,
  environment: b.environment,
  txHash: b.txHash,
  txUrl: explorer ? `${explorer}/tx/${b.txHash}` : null,
  nonce: b.nonce,
  status: b.status,
  recipients: b.recipients,
  amountEth: amountOf(b.amountWei, asset),
  gasEth: b.gasWei === null ? null : weiToEth(b.gasWei),
  blockNumber: b.blockNumber === null ? null : b.blockNumber.toString(),
  error: b.error,
  createdAt: b.createdAt.toISOString(),
  confirmedAt: b.confirmedAt?.toISOString() ?? null,
});

/** GET /business/payouts/batches: the batches that pay participants (a token approval, paying nobody, is not one). */
export async function listBatches(businessId: string, q: ListBatchesInput) {
  const where = { businessId, environment: q.environment, kind: { not: "APPROVAL" as const } };
  await checkCursor(q.cursor, (id) => db.payoutBatch.findFirst({ where: { ...where, id }, select: { id: true } }));
  const rows = await db.payoutBatch.findMany({ where, ...pageArgs(q.limit, q.cursor) });
  const asset = await readAsset(db, businessId, q.environment);
  const explorer = env.explorerUrl(q.environment);
  return toPage(rows, q.limit, (b) => toBatchOutput(b, asset, explorer));
}
