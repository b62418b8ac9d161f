// Analytics: per-UTC-day counts and ETH for a date range, one environment, optionally one
// campaign. Each series is one grouped SQL query over an index that starts with
// (businessId, environment, <the day column>), so the cost follows the range, not the table.
import { db } from "../../db/client";
import { AppError } from "../../shared/errors";
import { toBigInt } from "../../shared/money";
import { amountOf, assetTagOf } from "../../shared/asset";
import { readAsset } from "../assets/read";
import type { Environment } from "../../shared/environment";
import { earnedOf, earnedWeiSql, rewardedSql } from "../../shared/totals";
import type { AnalyticsOutput } from "./schemas";
import { QUALIFIED_SQL } from "../../shared/referral-rules";

const DAY_MS = 86_400_000;
const MAX_DAYS = 366;

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
/**
 * Groups by date_trunc (cheap per row) and formats only the ≤ 366 resulting days, not every row
 * of a large range.
 */
const perDay = (col: string, aggregates: string, fromWhere: string) =>
  `SELECT to_char(day, 'YYYY-MM-DD') AS d, s.* FROM (SELECT date_trunc('day', ${col}) AS day, ${aggregates} ${fromWhere} GROUP BY 1) s`;

export interface AnalyticsQuery {
  from?: string;
  to?: string;
  environment: Environment;
  campaign?: string;
}

export function resolveRange(q: { from?: string; to?: string }) {
  const to = q.to ? new Date(`${q.to}T00:00:00Z`) : new Date(Date.parse(isoDay(new Date())));
  const from = q.from ? new Date(`${q.from}T00:00:00Z`) : new Date(to.getTime() - 29 * DAY_MS);
  const days = Math.round((to.getTime() - from.getTime()) / DAY_MS) + 1;
  if (days < 1) throw new AppError("VALIDATION_ERROR", "`from` must not be after `to`", [{ path: "from", message: "must be on or before `to`" }]);
  if (days > MAX_DAYS) throw new AppError("VALIDATION_ERROR", `The range may span at most ${MAX_DAYS} days`, [{ path: "from", message: `at most ${MAX_DAYS} days before \`to\`` }]);
  // Bounds as timestamp literals: the columns hold UTC wall-clock time (timestamp without time zone).
  const lo = `${isoDay(from)} 00:00:00`;
  const hi = `${isoDay(new Date(to.getTime() + DAY_MS))} 00:00:00`;
  return { from, to, days, lo, hi };
}

type DayRow = { d: string; n: number };

/**
 * Positional parameters for hand-built SQL. (Composing Prisma.sql fragments is not reliable in
 * the bundled server: fragments can reach the driver as plain values.)
 */
export class Params {
  readonly values: unknown[] = [];
  add(v: unknown) {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

export const run = <T>(sql: string, p: Params) => db.$queryRawUnsafe<T>(sql, ...p.values);

/** WHERE clause shared by the series: business, environment, [lo, hi) on `col`, optional campaign. */
function scope(p: Params, businessId: string, environment: Environment, col: string, lo: string, hi: string, campaignCol: string | null, campaign?: string) {
  const alias = col.includes(".") ? `${col.split(".")[0]}.` : "";
  let w = `${alias}"businessId" = ${p.add(businessId)} AND ${alias}"environment" = ${p.add(environment)}::"Environment" AND ${col} >= ${p.add(lo)}::timestamp AND ${col} < ${p.add(hi)}::timestamp`;
  if (campaign && campaignCol) w += ` AND ${campaignCol} = ${p.add(campaign)}`;
  return w;
}

const HOUR_MS = 3_600_000;

/** Tracked events per day in [lo, hi) counted live from the table. */
function countEvents(businessId: string, environment: Environment, lo: string, hi: string, campaign?: string) {
  const p = new Params();
  return run<DayRow[]>(perDay(`"createdAt"`, `count(*)::int AS n`, `FROM "TrackedEvent" WHERE ${scope(p, businessId, environment, `"createdAt"`, lo, hi, `"campaign"`, campaign)}`), p);
}

/**
 * Events per day for [from, to] (UTC days, inclusive). Days that closed over an hour ago come
 * from the AnalyticsEventDay cache (computed once, on first request, in one grouped query);
 * the remaining (open) days are counted live. See the model's comment in prisma/schema.prisma.
 * What the cache may hold is bounded by the data, not by the requests: days before the first
 * event are zero without a row, and a campaign's days are cached only once it has an event in
 * them (any string may be asked for).
 */
async function eventsPerDay(businessId: string, environment: Environment, from: Date, to: Date, campaign?: string): Promise<DayRow[]> {
  const key = campaign ?? "";
  const closedBefore = new Date(Date.parse(isoDay(new Date(Date.now() - HOUR_MS)))); // start of the first open day
  const end = new Date(to.getTime() + DAY_MS);
  // The open days, counted live.
  const openDays = async (): Promise<DayRow[]> => {
    const liveFrom = from > closedBefore ? from : closedBefore;
    return liveFrom < end ? countEvents(businessId, environment, `${isoDay(liveFrom)} 00:00:00`, `${isoDay(end)} 00:00:00`, campaign) : [];
  };
  const rows: DayRow[] = [];
  const closedEnd = end < closedBefore ? end : closedBefore;
  const first = await db.trackedEvent.findFirst({ where: { businessId, environment }, orderBy: { createdAt: "asc" }, select: { createdAt: true } });
  const firstDay = new Date(Date.parse(isoDay(first?.createdAt ?? new Date())));
  if (from < firstDay) {
    // Before the first event of the environment: nothing to count or keep.
    const upTo = firstDay < end ? firstDay : end;
    for (let t = from.getTime(); t < upTo.getTime(); t += DAY_MS) rows.push({ d: isoDay(new Date(t)), n: 0 });
    from = upTo;
  }
  if (from < closedEnd) {
    const p = new Params();
    const cached = await run<DayRow[]>(
      `SELECT to_char("day", 'YYYY-MM-DD') AS d, "events" AS n FROM "AnalyticsEventDay"
       WHERE "businessId" = ${p.add(businessId)} AND "environment" = ${p.add(environment)}::"Environment" AND "campaignKey" = ${p.add(key)}
         AND "day" >= ${p.add(isoDay(from))}::date AND "day" < ${p.add(isoDay(closedEnd))}::date`,
      p,
    );
    rows.push(...cached);
    const have = new Set(cached.map((r) => r.d));
    const missing: string[] = [];
    for (let t = from.getTime(); t < closedEnd.getTime(); t += DAY_MS) if (!have.has(isoDay(new Date(t)))) missing.push(isoDay(new Date(t)));
    if (missing.length) {
      const lo = `${missing[0]} 00:00:00`;
      const hi = `${isoDay(new Date(Date.parse(missing[missing.length - 1]) + DAY_MS))} 00:00:00`;
      const counted = new Map((await countEvents(businessId, environment, lo, hi, campaign)).map((r) => [r.d, r.n]));
      const fill = missing.map((d) => ({ d, n: counted.get(d) ?? 0 }));
      rows.push(...fill);
      // Zero days are cached too, so that they are not recounted; concurrent fillers agree (DO
      // NOTHING). A campaign with no event in them caches nothing.
      if (campaign && !fill.some((f) => f.n > 0)) return [...rows, ...(await openDays())];
      const ins = new Params();
      const values = fill.map((f) => `(${ins.add(businessId)}, ${ins.add(environment)}::"Environment", ${ins.add(key)}, ${ins.add(f.d)}::date, ${ins.add(f.n)}::int)`);
      await db.$executeRawUnsafe(
        `INSERT INTO "AnalyticsEventDay" ("businessId", "environment", "campaignKey", "day", "events") VALUES ${values.join(", ")}
         ON CONFLICT DO NOTHING`,
        ...ins.values,
      );
    }
  }
  return [...rows, ...(await openDays())];
}

export async function getAnalytics(businessId: string, q: AnalyticsQuery): Promise<AnalyticsOutput> {
  const { from, to, days, lo, hi } = resolveRange(q);
  const r = new Params();
  const c = new Params();
  const w = new Params();
  const [events, referrals, conversions, paid, top, asset] = await Promise.all([
    eventsPerDay(businessId, q.environment, from, to, q.campaign),
    run<Array<DayRow & { converted: number }>>(
      perDay(
        `"createdAt"`,
        `count(*)::int AS n, count(*) FILTER (WHERE "status" IN (${QUALIFIED_SQL}))::int AS converted`,
        `FROM "Referral" WHERE ${scope(r, businessId, q.environment, `"createdAt"`, lo, hi, `"campaign"`, q.campaign)}`,
      ),
      r,
    ),
    run<DayRow[]>(perDay(`"qualifiedAt"`, `count(*)::int AS n`, `FROM "Referral" WHERE ${scope(c, businessId, q.environment, `"qualifiedAt"`, lo, hi, `"campaign"`, q.campaign)}`), c),
    run<Array<DayRow & { wei: string; earned: string }>>(
      perDay(
        `r."paidAt"`,
        `count(*)::int AS n, COALESCE(sum(r."amountWei"), 0)::text AS wei, COALESCE(sum(${earnedWeiSql("r")}), 0)::text AS earned`,
        `FROM "Reward" r ${q.campaign ? `JOIN "Referral" f ON f."id" = r."referralId"` : ""}
         WHERE ${rewardedSql("r")} AND ${scope(w, businessId, q.environment, `r."paidAt"`, lo, hi, `f."campaign"`, q.campaign)}`,
      ),
      w,
    ),
    topReferrers(businessId, q.environment, lo, hi, q.campaign),
    readAsset(db, businessId, q.environment),
  ]);
  const byDay = new Map<string, AnalyticsOutput["days"][number] & { cohortConverted: number }>();
  for (let i = 0; i < days; i++) {
    const date = isoDay(new Date(from.getTime() + i * DAY_MS));
    byDay.set(date, { date, events: 0, referrals: 0, conversions: 0, rewardsPaid: 0, ethRewarded: "0", ethEarned: "0", conversionRate: 0, cohortConverted: 0 });
  }
  for (const r of events) byDay.get(r.d)!.events = r.n;
  for (const r of referrals) Object.assign(byDay.get(r.d)!, { referrals: r.n, cohortConverted: r.converted });
  for (const r of conversions) byDay.get(r.d)!.conversions = r.n;
  for (const r of paid) Object.assign(byDay.get(r.d)!, { rewardsPaid: r.n, ethRewarded: amountOf(r.wei, asset), ethEarned: amountOf(r.earned, asset) });

  const totals = { events: 0, referrals: 0, conversions: 0, rewardsPaid: 0, ethRewarded: "0", ethEarned: "0", conversionRate: 0 };
  let cohort = 0;
  const out: AnalyticsOutput["days"] = [];
  for (const { cohortConverted, ...d } of byDay.values()) {
    d.conversionRate = d.referrals ? round4(cohortConverted / d.referrals) : 0;
    totals.events += d.events;
    totals.referrals += d.referrals;
    totals.conversions += d.conversions;
    totals.rewardsPaid += d.rewardsPaid;
    cohort += cohortConverted;
    out.push(d);
  }
  totals.ethRewarded = amountOf(paid.reduce((sum, r) => sum + toBigInt(r.wei), 0n), asset);
  totals.ethEarned = amountOf(paid.reduce((sum, r) => sum + toBigInt(r.earned), 0n), asset);
  totals.conversionRate = totals.referrals ? round4(cohort / totals.referrals) : 0;
  return { environment: q.environment, asset: assetTagOf(asset), from: isoDay(from), to: isoDay(to), campaign: q.campaign ?? null, totals, days: out, topReferrers: top };
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** The ten referrers with the most conversions (then referrals) among referrals created in [lo, hi). */
export async function topReferrers(businessId: string, environment: Environment, lo: string | null, hi: string | null, campaign?: string) {
  const p = new Params();
  let where = `"businessId" = ${p.add(businessId)} AND "environment" = ${p.add(environment)}::"Environment"`;
  if (lo && hi) where += ` AND "createdAt" >= ${p.add(lo)}::timestamp AND "createdAt" < ${p.add(hi)}::timestamp`;
  if (campaign) where += ` AND "campaign" = ${p.add(campaign)}`;
  const rows = await run<Array<{ referrerId: string; referrals: number; conversions: number }>>(
    `SELECT "referrerId", count(*)::int AS referrals,
            count(*) FILTER (WHERE "status" IN (${QUALIFIED_SQL}))::int AS conversions
     FROM "Referral" WHERE ${where}
     GROUP BY "referrerId" ORDER BY conversions DESC, referrals DESC, "referrerId" LIMIT 10`,
    p,
  );
  if (!rows.length) return [];
  const asset = await readAsset(db, businessId, environment);
  const ids = rows.map((r) => r.referrerId);
  const [people, earned] = await Promise.all([
    db.participant.findMany({ where: { id: { in: ids }, businessId }, select: { id: true, referralCode: true, email: true, name: true } }),
    // Every kind (commissions included) and net of reversals: the figures of the totals above.
    db.reward.groupBy({
      by: ["participantId"],
      where: {
        businessId,
        environment,
        participantId: { in: ids },
        status: "PAID",
        ...(lo && hi ? { paidAt: { gte: new Date(`${lo.replace(" ", "T")}Z`), lt: new Date(`${hi.replace(" ", "T")}Z`) } } : {}),
      },
      _sum: { amountWei: true, reversedWei: true },
    }),
  ]);
  const person = new Map(people.map((p) => [p.id, p]));
  const eth = new Map(earned.map((e) => [e.participantId, { rewarded: toBigInt(e._sum.amountWei ?? 0), reversed: toBigInt(e._sum.reversedWei ?? 0) }]));
  return rows
    .filter((r) => person.has(r.referrerId))
    .map((r) => {
      const p = person.get(r.referrerId)!;
      const sums = eth.get(p.id) ?? { rewarded: 0n, reversed: 0n };
      return {
        participantId: p.id,
        referralCode: p.referralCode,
        email: p.email,
        name: p.name,
        referrals: r.referrals,
        conversions: r.conversions,
        ethRewarded: amountOf(sums.rewarded, asset),
        ethEarned: amountOf(earnedOf(sums.rewarded, sums.reversed), asset),
      };
    });
}
