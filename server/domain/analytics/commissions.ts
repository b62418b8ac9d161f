// GET /business/analytics/commissions: revenue attributed to referrals (event amounts of
// referred users, per currency) and commissions granted (earned rewards of commission rules,
// count and ETH, per rule), for one environment and a range of UTC days, or for one referrer.
// Each figure is one grouped query over an index: business-wide by (businessId, environment,
// day column) with partial indexes holding only amounted referred events / rule rewards
// (migration 0100), per referrer through the referrer's referrals and rewards.
import { db } from "../../db/client";
import { notFound } from "../../shared/errors";
import { toBigInt } from "../../shared/money";
import { amountOf, assetTagOf } from "../../shared/asset";
import { readAsset } from "../assets/read";
import { netRevenueSql, revenueEventSql } from "../../shared/totals";
import type { CommissionAnalyticsInput, CommissionAnalyticsOutput } from "./schemas";
import { Params, resolveRange, run } from "./service";

export async function getCommissionAnalytics(businessId: string, q: CommissionAnalyticsInput): Promise<CommissionAnalyticsOutput> {
  let environment = q.environment;
  const referrer = q.participantId;
  if (referrer) {
    const p = await db.participant.findFirst({ where: { id: referrer, businessId }, select: { environment: true } });
    if (!p) throw notFound("Participant");
    environment = p.environment;
  }
  // One referrer without a range: all time (their history is bounded by their own referrals).
  const range = referrer && !q.from && !q.to ? null : resolveRange(q);

  const rev = new Params();
  const com = new Params();
  let revenueSql: string;
  let commissionSql: string;
  if (referrer) {
    revenueSql = `SELECT e."currency" AS currency, sum(${netRevenueSql("e")})::text AS amount, count(*)::int AS events
      FROM "Referral" r JOIN "TrackedEvent" e ON e."referralId" = r."id"
      WHERE r."referrerId" = ${rev.add(referrer)} AND r."businessId" = ${rev.add(businessId)}
        AND ${revenueEventSql("e", "r")}
        ${range ? `AND e."createdAt" >= ${rev.add(range.lo)}::timestamp AND e."createdAt" < ${rev.add(range.hi)}::timestamp` : ""}
      GROUP BY 1 ORDER BY 1`;
    commissionSql = `SELECT w."ruleId" AS "ruleId", count(*)::int AS n, sum(w."amountWei")::text AS wei
      FROM "Reward" w
      WHERE w."participantId" = ${com.add(referrer)} AND w."status" = 'PAID' AND w."ruleId" IS NOT NULL
        ${range ? `AND w."paidAt" >= ${com.add(range.lo)}::timestamp AND w."paidAt" < ${com.add(range.hi)}::timestamp` : ""}
      GROUP BY 1`;
  } else {
    const r = range!;
    revenueSql = `SELECT e."currency" AS currency, sum(${netRevenueSql("e")})::text AS amount, count(*)::int AS events
      FROM "TrackedEvent" e JOIN "Referral" f ON f."id" = e."referralId"
      WHERE e."businessId" = ${rev.add(businessId)} AND e."environment" = ${rev.add(environment)}::"Environment"
        AND e."createdAt" >= ${rev.add(r.lo)}::timestamp AND e."createdAt" < ${rev.add(r.hi)}::timestamp
        AND ${revenueEventSql("e", "f")}
      GROUP BY 1 ORDER BY 1`;
    commissionSql = `SELECT "ruleId", count(*)::int AS n, sum("amountWei")::text AS wei
      FROM "Reward"
      WHERE "businessId" = ${com.add(businessId)} AND "environment" = ${com.add(environment)}::"Environment" AND "status" = 'PAID'
        AND "paidAt" >= ${com.add(r.lo)}::timestamp AND "paidAt" < ${com.add(r.hi)}::timestamp AND "ruleId" IS NOT NULL
      GROUP BY 1`;
  }
  const [revenue, perRule] = await Promise.all([
    run<Array<{ currency: string; amount: string; events: number }>>(revenueSql, rev),
    run<Array<{ ruleId: string; n: number; wei: string }>>(commissionSql, com),
  ]);
  const rules = perRule.length
    ? await db.commissionRule.findMany({ where: { businessId, id: { in: perRule.map((r) => r.ruleId) } }, select: { id: true, name: true } })
    : [];
  const names = new Map(rules.map((r) => [r.id, r.name]));
  const byRule = perRule
    .map((r) => ({ ruleId: r.ruleId, name: names.get(r.ruleId) ?? null, count: r.n, wei: toBigInt(r.wei) }))
    .sort((a, b) => (b.wei > a.wei ? 1 : b.wei < a.wei ? -1 : a.ruleId.localeCompare(b.ruleId)));
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const asset = await readAsset(db, businessId, environment);
  return {
    environment,
    asset: assetTagOf(asset),
    from: range ? day(range.from) : null,
    to: range ? day(range.to) : null,
    participantId: referrer ?? null,
    revenue: revenue.map((r) => ({ currency: r.currency, amount: trimDecimal(r.amount), events: r.events })),
    commissions: {
      count: byRule.reduce((s, r) => s + r.count, 0),
      eth: amountOf(byRule.reduce((s, r) => s + r.wei, 0n), asset),
      byRule: byRule.map(({ wei, ...r }) => ({ ...r, eth: amountOf(wei, asset) })),
    },
  };
}

/** "24.9900" → "24.99", "5.000" → "5": the exact sum without the scale's trailing zeros. */
const trimDecimal = (s: string) => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);
