// The reversals of one environment, newest first, with the participant and the reward's kind.
import { db, type Prisma } from "../../db/client";
import { notFound } from "../../shared/errors";
import { checkCursor, pageArgs, toPage } from "../../shared/list-page";
import { reversalView } from "../webhooks/emit";
import { assetTagOf, type Asset } from "../../shared/asset";
import { readAsset } from "../assets/read";
import type { ListReversalsInput, ReversalItem } from "./reversal-schemas";

const include = {
  participant: { select: { referralCode: true, email: true, name: true, externalId: true } },
  reward: { select: { kind: true } },
} as const;
type Row = Prisma.RewardReversalGetPayload<{ include: typeof include }>;

const toItem = (v: Row, asset: Asset): ReversalItem => ({
  ...reversalView(v, asset),
  asset: assetTagOf(asset),
  environment: v.environment,
  rewardId: v.rewardId,
  rewardKind: v.reward.kind,
  participantId: v.participantId,
  participant: v.participant,
});

export async function listReversals(businessId: string, q: ListReversalsInput) {
  await checkCursor(q.cursor, (id) => db.rewardReversal.findFirst({ where: { id, businessId, environment: q.environment }, select: { id: true } }));
  const rows = await db.rewardReversal.findMany({
    where: { businessId, environment: q.environment, participantId: q.participantId, outcome: q.outcome },
    include,
    ...pageArgs(q.limit, q.cursor),
  });
  const asset = await readAsset(db, businessId, q.environment);
  return toPage(rows, q.limit, (v) => toItem(v, asset));
}

export async function getReversal(businessId: string, reversalId: string): Promise<ReversalItem> {
  const v = await db.rewardReversal.findFirst({ where: { id: reversalId, businessId }, include });
  if (!v) throw notFound("Reversal");
  return toItem(v, await readAsset(db, businessId, v.environment));
}
