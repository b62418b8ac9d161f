// Pool alerts (LOW_POOL once per crossing, REFILL_REQUEST with auto-refill): raised by the ledger
// (ledger/service.ts), listed and acknowledged here.
import { db, type Prisma } from "../../db/client";
import { notFound } from "../../shared/errors";
import { checkCursor, pageArgs, toPage } from "../../shared/list-page";
import { amountOf, assetTagOf, type Asset } from "../../shared/asset";
import { readAsset } from "../assets/read";
import type { Environment } from "../../shared/environment";

const toOutput = (a: Prisma.AlertGetPayload<object>, asset: Asset) => ({
  alertId: a.id,
  environment: a.environment,
  kind: a.kind,
  message: a.message,
  asset: assetTagOf(asset),
  balanceEth: amountOf(a.balanceWei, asset),
  thresholdEth: amountOf(a.thresholdWei, asset),
  amountEth: a.amountWei === null ? null : amountOf(a.amountWei, asset),
  acknowledgedAt: a.acknowledgedAt ? a.acknowledgedAt.toISOString() : null,
  createdAt: a.createdAt.toISOString(),
});

export async function listAlerts(
  businessId: string,
  q: { environment: Environment; kind?: "LOW_POOL" | "REFILL_REQUEST" | "WEBHOOK_DISABLED"; unacknowledged?: boolean; limit: number; cursor?: string },
) {
  await checkCursor(q.cursor, (id) => db.alert.findFirst({ where: { id, businessId, environment: q.environment }, select: { id: true } }));
  const rows = await db.alert.findMany({
    where: { businessId, environment: q.environment, kind: q.kind, ...(q.unacknowledged ? { acknowledgedAt: null } : {}) },
    ...pageArgs(q.limit, q.cursor),
  });
  const asset = await readAsset(db, businessId, q.environment);
  return toPage(rows, q.limit, (a) => toOutput(a, asset));
}

export async function acknowledgeAlert(businessId: string, alertId: string) {
  const a = await db.alert.findFirst({ where: { id: alertId, businessId } });
  if (!a) throw notFound("Alert");
  const asset = await readAsset(db, businessId, a.environment);
  if (a.acknowledgedAt) return toOutput(a, asset);
  return toOutput(await db.alert.update({ where: { id: a.id }, data: { acknowledgedAt: new Date() } }), asset);
}
