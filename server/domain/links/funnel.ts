// The funnel: counted clicks → referrals → qualified → rewarded → ETH granted and paid out, for
// the referrals made in a range (a cohort), grouped by referrer, campaign, utm_source or day.
// Clicks come from pre-counted rows only (migration 0150): closed days from the aligned blocks
// that tile the range (LinkClickBlockGroup) and the daily rollups (LinkClickDayGroup) of the days
// left over, open days from their daily rows kept as clicks arrive. The cost follows the groups
// and the log of the range, not the clicks. A referral's campaign is its own, else its click's
// utm_campaign; its utm_source is its click's, else its `source`. One statement merges the counts.
import { db } from "../../db/client";
import { amountOf, assetTagOf } from "../../shared/asset";
import { readAsset } from "../assets/read";
import { resolveRange } from "../analytics/service";
import type { Environment } from "../../shared/environment";
import { FRAUD_SIGNALS, type FunnelInput, type FunnelOutput, type ParticipantClicksOutput } from "./schemas";
import { tileRange } from "./tiles";
import { QUALIFIED_SQL } from "../../shared/referral-rules";

type Group = FunnelInput["groupBy"];
const DAY = (col: string) => `to_char(date_trunc('day', ${col}), 'YYYY-MM-DD')`;

const groupKey: Record<Group, string> = { referrer: `d."key"`, campaign: `NULLIF(d."key", '')`, utm_source: `NULLIF(d."key", '')`, day: `to_char(d."day", 'YYYY-MM-DD')` };
const referralKey: Record<Group, string> = {
  referrer: `r."referrerId"`,
  campaign: `COALESCE(r.campaign, rc."clickUtmCampaign")`,
  utm_source: `COALESCE(rc."clickUtmSource", r.source)`,
  day: DAY(`r."createdAt"`),
};

// Days are rolled up in order (retention.ts), so raw clicks are read only from the day after the
// last rolled-up one: the index range then covers the open days, not the whole retention window.
const RAW_FROM = `(SELECT COALESCE(max(x."day") + 1, DATE '1970-01-01')::timestamp FROM "LinkClickRollup" x)`;

type Row = { k: string | null; code?: string; name?: string | null; clicks: number; uniq: number; referrals: number; qualified: number; rewarded: number; granted: string; paid: string };

// The referral's click's utm fields are kept on ReferralClick while the click exists (migration 0150).
const FROM_REFERRALS = `FROM "Referral" r
  LEFT JOIN "ReferralClick" rc ON rc."referralId" = r.id
 WHERE r."businessId" = $1 AND r.environment = $2::"Environment" AND r."createdAt" >= $3::timestamp AND r."createdAt" < $4::timestamp`;

// The last rolled-up day: closed days up to it are in the blocks, later days are open.
const LAST_ROLLED = `(SELECT COALESCE(max(x."day"), DATE '1969-12-31') FROM "LinkClickRollup" x)`;

// $1 business, $2 environment, $3/$4 the range's bounds, $5 groupBy, $6/$7 its first and last day,
// $8/$9 the blocks' sizes and starts, $10 the single days (no blocks for groupBy=day: one row a day).
// Each block and single day is its own index range (LATERAL … OFFSET 0), whatever the statistics say.
const clicksSql = (g: Group) => {
  const rows = (where: string) => `SELECT ${groupKey[g]} AS k, d.clicks, d."uniqueClicks" FROM "LinkClickDayGroup" d
    WHERE d."businessId" = $1 AND d.environment = $2::"Environment" AND d."groupBy" = $5 AND ${where}`;
  if (g === "day") return rows(`d."day" >= $6::date AND d."day" <= $7::date`);
  return `SELECT x.* FROM unnest($8::int[], $9::date[]) AS b(size, start) CROSS JOIN LATERAL (
      SELECT ${groupKey[g]} AS k, d.clicks, d."uniqueClicks" FROM "LinkClickBlockGroup" d
       WHERE d."businessId" = $1 AND d.environment = $2::"Environment" AND d."groupBy" = $5 AND d.size = b.size AND d.start = b.start OFFSET 0) x
    UNION ALL
    SELECT x.* FROM unnest($10::date[]) AS s(day) CROSS JOIN LATERAL (${rows(`d."day" = s.day`)} OFFSET 0) x WHERE s.day <= ${LAST_ROLLED}
    UNION ALL ${rows(`d."day" >= GREATEST($6::date, ${LAST_ROLLED} + 1) AND d."day" <= $7::date`)}`;
};

const funnelSql = (g: Group) => {
  const parts = `
    SELECT k, sum(c.clicks)::int AS clicks, sum(c."uniqueClicks")::int AS uniq, 0 AS referrals, 0 AS qualified, 0 AS rewarded, 0::numeric AS granted, 0::numeric AS paid
      FROM (${clicksSql(g)}) c GROUP BY 1
    UNION ALL
    SELECT ${referralKey[g]}, 0, 0, count(*)::int,
           count(*) FILTER (WHERE r."qualifiedAt" IS NOT NULL OR r.status IN (${QUALIFIED_SQL}))::int,
           count(*) FILTER (WHERE r.status = 'REWARDED')::int, 0, 0
      ${FROM_REFERRALS} GROUP BY 1
    UNION ALL
    SELECT ${referralKey[g]}, 0, 0, 0, 0, 0,
           COALESCE(sum(w."amountWei") FILTER (WHERE w."reversedAt" IS NULL), 0),
           COALESCE(sum(w."amountWei") FILTER (WHERE w."payoutStatus" = 'PAID_OUT'), 0)
      ${FROM_REFERRALS.replace(`FROM "Referral" r`, `FROM "Referral" r JOIN "Reward" w ON w."referralId" = r.id AND w.status = 'PAID'`)} GROUP BY 1`;
  const merged = `SELECT k, sum(clicks)::int AS clicks, sum(uniq)::int AS uniq, sum(referrals)::int AS referrals, sum(qualified)::int AS qualified,
                         sum(rewarded)::int AS rewarded, sum(granted)::text AS granted, sum(paid)::text AS paid
                    FROM (${parts}) s GROUP BY k`;
  // By referrer: the key becomes the referrer's code; groups of no participant of the business are left out.
  return g === "referrer" ? `SELECT m.*, p."referralCode" AS code, p.name FROM (${merged}) m JOIN "Participant" p ON p.id = m.k AND p."businessId" = $1` : merged;
};

/** Groups a funnel lists at most (days: the range's, which is bounded). */
export const FUNNEL_MAX_GROUPS = 200;

export async function getFunnel(businessId: string, q: FunnelInput): Promise<FunnelOutput> {
  const { from, to, lo, hi } = resolveRange(q);
  const g = q.groupBy;
  const args: unknown[] = [businessId, q.environment, lo, hi, g, from.toISOString().slice(0, 10), to.toISOString().slice(0, 10)];
  if (g !== "day") {
    const tiles = tileRange(from, to);
    args.push(
      tiles.blocks.map((b) => b.size),
      tiles.blocks.map((b) => b.start),
      tiles.days,
    );
  }
  const [rows, signals, asset] = await Promise.all([
    db.$queryRawUnsafe<Row[]>(funnelSql(g), ...args),
    db.$queryRawUnsafe<{ reason: string; n: number }[]>(
      `SELECT r.reason, count(*)::int AS n FROM "Referral" r
        WHERE r."businessId" = $1 AND r.environment = $2::"Environment" AND r."createdAt" >= $3::timestamp AND r."createdAt" < $4::timestamp
          AND r.status IN ('FLAGGED', 'REJECTED') AND r.reason IS NOT NULL
        GROUP BY 1`,
      businessId,
      q.environment,
      lo,
      hi,
    ),
    readAsset(db, businessId, q.environment),
  ]);

  const data: FunnelOutput["data"] = rows.map((r) => ({
    key: g === "referrer" ? r.code! : r.k,
    clicks: r.clicks,
    uniqueClicks: r.uniq,
    referrals: r.referrals,
    qualified: r.qualified,
    rewarded: r.rewarded,
    rewardsEth: amountOf(BigInt(r.granted), asset),
    paidOutEth: amountOf(BigInt(r.paid), asset),
    ...(g === "referrer" ? { participantId: r.k!, name: r.name ?? null } : {}),
  }));
  if (g === "day") data.sort((a, b) => (a.key ?? "").localeCompare(b.key ?? ""));
  else data.sort((a, b) => b.clicks - a.clicks || b.referrals - a.referrals || (a.key ?? "").localeCompare(b.key ?? ""));
  // utm_source and utm_campaign come from anyone's link clicks: as many groups as visitors invent.
  const truncated = g !== "day" && data.length > FUNNEL_MAX_GROUPS;
  if (truncated) data.length = FUNNEL_MAX_GROUPS;

  const counts = Object.fromEntries(FRAUD_SIGNALS.map((s) => [s, 0])) as FunnelOutput["signals"];
  for (const s of signals) for (const code of s.reason.split(",")) if (code in counts) counts[code as keyof typeof counts] += s.n;
  return { asset: assetTagOf(asset), data, truncated, signals: counts };
}

/** A participant's counted clicks: all time, and per day over the last 30 days. */
export async function getParticipantClicks(businessId: string, environment: Environment, participantId: string, now = new Date()): Promise<ParticipantClicksOutput> {
  const since = new Date(Date.parse(now.toISOString().slice(0, 10)) - 29 * 86_400_000).toISOString().slice(0, 10);
  const rows = await db.$queryRawUnsafe<{ d: string; clicks: number; uniq: number }[]>(
    `SELECT d, sum(clicks)::int AS clicks, sum(uniq)::int AS uniq FROM (
       SELECT to_char(d."day", 'YYYY-MM-DD') AS d, d.clicks, d."uniqueClicks" AS uniq FROM "LinkClickDay" d
        WHERE d."participantId" = $1 AND d."businessId" = $2 AND d.environment = $3::"Environment"
       UNION ALL
       SELECT ${DAY(`c."createdAt"`)}, count(*)::int, count(DISTINCT c."visitorHash")::int FROM "LinkClick" c
        WHERE c."participantId" = $1 AND c."businessId" = $2 AND c.environment = $3::"Environment" AND c.counted AND c."createdAt" >= ${RAW_FROM}
          AND NOT EXISTS (SELECT 1 FROM "LinkClickRollup" x WHERE x."day" = date_trunc('day', c."createdAt")::date)
        GROUP BY date_trunc('day', c."createdAt")
     ) s GROUP BY d ORDER BY d`,
    participantId,
    businessId,
    environment,
  );
  return {
    clicks: rows.reduce((n, r) => n + r.clicks, 0),
    uniqueClicks: rows.reduce((n, r) => n + r.uniq, 0),
    days: rows.filter((r) => r.d >= since).map((r) => ({ date: r.d, clicks: r.clicks })),
  };
}
