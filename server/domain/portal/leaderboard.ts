// The portal's opt-in leaderboard (config leaderboardEnabled, per environment): the month's top
// referrers by qualified referrals (UTC month of qualifiedAt), shown by handle or masked name
// only, with the participant's own rank. Ties share a rank (1, 1, 3).
import { db } from "../../db/client";
import { maskName } from "./mask";
import type { PortalAuth } from "../../shared/portal-auth";
import { QUALIFIED_STATUSES } from "../../shared/referral-rules";

const TOP = 10;

export async function leaderboardFor(auth: PortalAuth, now = new Date()) {
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const where = { businessId: auth.businessId, environment: auth.environment, status: { in: [...QUALIFIED_STATUSES] }, qualifiedAt: { gte: from } };
  const [top, mine] = await Promise.all([
    db.referral.groupBy({ by: ["referrerId"], where, _count: { referrerId: true }, orderBy: [{ _count: { referrerId: "desc" } }, { referrerId: "asc" }], take: TOP }),
    db.referral.count({ where: { ...where, referrerId: auth.participantId } }),
  ]);
  let yourRank: number | null = null;
  if (mine > 0) {
    const ahead = await db.$queryRaw<Array<{ n: bigint | number }>>`
      SELECT COUNT(*) AS "n" FROM (
        SELECT "referrerId" FROM "Referral"
        WHERE "businessId" = ${auth.businessId} AND "environment" = ${auth.environment}::"Environment"
          AND "status" = ANY(${[...QUALIFIED_STATUSES]}::"ReferralStatus"[]) AND "qualifiedAt" >= ${from}
        GROUP BY "referrerId" HAVING COUNT(*) > ${mine}
      ) t`;
    yourRank = Number(ahead[0]?.n ?? 0) + 1;
  }
  const people = await db.participant.findMany({ where: { id: { in: top.map((t) => t.referrerId) }, businessId: auth.businessId }, select: { id: true, handle: true, name: true } });
  const byId = new Map(people.map((p) => [p.id, p]));
  const counts = top.map((t) => t._count.referrerId);
  return {
    month: from.toISOString().slice(0, 7),
    top: top.map((t, i) => {
      const p = byId.get(t.referrerId);
      return {
        rank: counts.findIndex((c) => c === counts[i]) + 1,
        displayName: p?.handle ?? (p?.name ? maskName(p.name) : "Anonymous"),
        qualifiedReferrals: t._count.referrerId,
        you: t.referrerId === auth.participantId,
      };
    }),
    yourRank,
  };
}
