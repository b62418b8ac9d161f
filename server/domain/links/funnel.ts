// The funnel: counted clicks → referrals → qualified → rewarded → ETH granted and paid out, for
// the referrals made in a range (a cohort), grouped by referrer, campaign, utm_source or day.
// Clicks come from the daily rollups of the groupBy (LinkClickDayGroup) for rolled-up days and from the raw clicks for the others,
// so the cost follows the range and the open days, not the click history. A referral's campaign
// is its own, else its click's utm_campaign; its utm_source is its click's, else its `source`.
import { db } from "../../db/client";
import { weiToEth } from "../../shared/money";
import { resolveRange } from "../analytics/service";
import type { Environment } from "../../shared/environment";
import { FRAUD_SIGNALS, type FunnelInput, type FunnelOutput, type ParticipantClicksOutput } from "./schemas";

type Group = FunnelInput["groupBy"];
const DAY = (col: string) => `to_char(date_trunc('day', ${col}), 'YYYY-MM-DD')`;

const rawKey: Record<Group, string> = { referrer: `c."participantId"`, campaign: `c."utmCampaign"`, utm_source: `c."utmSource"`, day: DAY(`c."createdAt"`) };
const rollupKey: Record<Group, string> = { referrer: `d."key"`, campaign: `NULLIF(d."key", '')`, utm_source: `NULLIF(d."key", '')`, day: `to_char(d."day", 'YYYY-MM-DD')` };
const referralKey: Record<Group, string> = {
  referrer: `r."referrerId"`,
  campaign: `COALESCE(r.campaign, c."utmCampaign")`,
  utm_source: `COALESCE(c."utmSource", r.source)`,
  day: DAY(`r."createdAt"`),
};

// Days are rolled up in order (retention.ts), so raw clicks are read only from the day after the
// last rolled-up one: the index range then covers the open days, not the whole retention window.
const RAW_FROM = `(SELECT COALESCE(max(x."day") + 1, DATE '1970-01-01')::timestamp FROM "LinkClickRollup" x)`;

type ClickRow = { k: string | null; clicks: number; uniq: number };
type ReferralRow = { k: string | null; referrals: number; qualified: number; rewarded: number };
type MoneyRow = { k: string | null; granted: string; paid: string };

const FROM_REFERRALS = `FROM "Referral" r
  LEFT JOIN "ReferralClick" rc ON rc."referralId" = r.id
  LEFT JOIN "LinkClick" c ON c.id = rc."clickId" AND c."businessId" = r."businessId"
 WHERE r."businessId" = $1 AND r.environment = $2::"Environment" AND r."createdAt" >= $3::timestamp AND r."createdAt" < $4::timestamp`;

export async function getFunnel(businessId: string, q: FunnelInput): Promise<FunnelOutput> {
  const { from, to, lo, hi } = resolveRange(q);
  const fromDay = from.toISOString().slice(0, 10);
  const toDay = to.toISOString().slice(0, 10);
  const g = q.groupBy;
  const args = [businessId, q.environment, lo, hi] as const;
  const [raw, rolled, referrals, money, signals] = await Promise.all([
    db.$queryRawUnsafe<ClickRow[]>(
      `SELECT ${rawKey[g]} AS k, count(*)::int AS clicks, count(DISTINCT (date_trunc('day', c."createdAt"), c."visitorHash"))::int AS uniq
         FROM "LinkClick" c
        WHERE c."businessId" = $1 AND c.environment = $2::"Environment" AND c."createdAt" >= GREATEST($3::timestamp, ${RAW_FROM}) AND c."createdAt" < $4::timestamp AND c.counted
          AND NOT EXISTS (SELECT 1 FROM "LinkClickRollup" x WHERE x."day" = date_trunc('day', c."createdAt")::date)
        GROUP BY 1`,
      ...args,
    ),
    db.$queryRawUnsafe<ClickRow[]>(
      `SELECT ${rollupKey[g]} AS k, sum(d.clicks)::int AS clicks, sum(d."uniqueClicks")::int AS uniq
         FROM "LinkClickDayGroup" d
        WHERE d."businessId" = $1 AND d.environment = $2::"Environment" AND d."groupBy" = $5 AND d."day" >= $3::date AND d."day" <= $4::date
        GROUP BY 1`,
      businessId,
      q.environment,
      fromDay,
      toDay,
      g,
    ),
    db.$queryRawUnsafe<ReferralRow[]>(
      `SELECT ${referralKey[g]} AS k, count(*)::int AS referrals,
              count(*) FILTER (WHERE r."qualifiedAt" IS NOT NULL OR r.status IN ('QUALIFIED', 'REWARDED'))::int AS qualified,
              count(*) FILTER (WHERE r.status = 'REWARDED')::int AS rewarded
         ${FROM_REFERRALS} GROUP BY 1`,
      ...args,
    ),
    db.$queryRawUnsafe<MoneyRow[]>(
      `SELECT ${referralKey[g]} AS k,
              COALESCE(sum(w."amountWei") FILTER (WHERE w."reversedAt" IS NULL), 0)::text AS granted,
              COALESCE(sum(w."amountWei") FILTER (WHERE w."payoutStatus" = 'PAID_OUT'), 0)::text AS paid
         ${FROM_REFERRALS.replace(`FROM "Referral" r`, `FROM "Referral" r JOIN "Reward" w ON w."referralId" = r.id AND w.status = 'PAID'`)} GROUP BY 1`,
      ...args,
    ),
    db.$queryRawUnsafe<{ reason: string; n: number }[]>(
      `SELECT r.reason, count(*)::int AS n FROM "Referral" r
        WHERE r."businessId" = $1 AND r.environment = $2::"Environment" AND r."createdAt" >= $3::timestamp AND r."createdAt" < $4::timestamp
          AND r.status IN ('FLAGGED', 'REJECTED') AND r.reason IS NOT NULL
        GROUP BY 1`,
      ...args,
    ),
  ]);

  type Acc = FunnelOutput["data"][number];
  const rows = new Map<string | null, Acc>();
  const at = (k: string | null) => {
    let r = rows.get(k);
    if (!r) rows.set(k, (r = { key: k, clicks: 0, uniqueClicks: 0, referrals: 0, qualified: 0, rewarded: 0, rewardsEth: "0", paidOutEth: "0" }));
    return r;
  };
  for (const c of [...raw, ...rolled]) {
    const r = at(c.k);
    r.clicks += c.clicks;
    r.uniqueClicks += c.uniq;
  }
  for (const f of referrals) Object.assign(at(f.k), { referrals: f.referrals, qualified: f.qualified, rewarded: f.rewarded });
  for (const m of money) Object.assign(at(m.k), { rewardsEth: weiToEth(BigInt(m.granted)), paidOutEth: weiToEth(BigInt(m.paid)) });

  let data = [...rows.values()];
  if (g === "referrer") {
    const ids = data.map((d) => d.key).filter((k): k is string => !!k);
    const codes = new Map((await db.participant.findMany({ where: { id: { in: ids }, businessId }, select: { id: true, referralCode: true } })).map((p) => [p.id, p.referralCode]));
    data = data.filter((d) => d.key && codes.has(d.key)).map((d) => ({ ...d, participantId: d.key!, key: codes.get(d.key!)! }));
  }
  if (g === "day") data.sort((a, b) => (a.key ?? "").localeCompare(b.key ?? ""));
  else data.sort((a, b) => b.clicks - a.clicks || b.referrals - a.referrals || (a.key ?? "").localeCompare(b.key ?? ""));

  const counts = Object.fromEntries(FRAUD_SIGNALS.map((s) => [s, 0])) as FunnelOutput["signals"];
  for (const s of signals) for (const code of s.reason.split(",")) if (code in counts) counts[code as keyof typeof counts] += s.n;
  return { data, signals: counts };
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
