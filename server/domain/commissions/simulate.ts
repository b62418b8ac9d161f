// POST /business/commission-rules/simulate: what a rule (not stored) would have paid over the
// stored events of [from, to), computed by the rules core's commission rules (rules/commissions.ts)
// and caps (rules/pay.ts) without writing anything. An event counts when its referral was
// qualified by then (the event was processed at or after the qualification) and it was neither
// rejected nor flagged. Prices: those in force now. The pool is not applied (a simulation
// answers "what would this rule pay", not "could we have afforded it").
import { db, pgliteTurn, txSql } from "../../db/client";
import type { Environment } from "../../shared/environment";
import { decimalText, type Currency } from "../../shared/money";
import { loadConfig } from "../effective-config/load";
import { ruleConfigOf } from "../rules/config";
import { commissionCaps, countKey, missingPrice, planCommissions, type CommissionState } from "../rules/commissions";
import { capPayout } from "../rules/pay";
import { utcDayStart } from "../rules/screen";
import { pricesOf, readPricing } from "../rules/prices";
import type { SimulateInput, SimulateOutput } from "./schemas";
import { QUALIFIED_SQL, tierFor } from "../../shared/referral-rules";
import { isNative } from "../../shared/asset";
import { amountOf, readAsset } from "../assets/read";

const PAGE = 5_000;
/** Events read at most: a simulation is a preview, bounded like every input. */
const MAX_EVENTS = 200_000;

interface Row {
  id: string;
  eventName: string;
  amount: string | null;
  currency: string | null;
  createdAt: Date;
  referralId: string;
  referrerId: string;
  referredId: string;
  qualifiedAt: Date;
}

export async function simulateRule(businessId: string, input: SimulateInput): Promise<SimulateOutput> {
  const environment: Environment = input.environment;
  const now = new Date();
  const [cfgRow, pricing, tiers, asset] = await Promise.all([
    db.$transaction((tx) => loadConfig(tx, businessId, environment)),
    readPricing(db, businessId, environment),
    db.tier.findMany({ where: { businessId }, orderBy: { minReferrals: "desc" } }),
    readAsset(db, businessId, environment),
  ]);
  const cfg = ruleConfigOf(cfgRow, asset);
  const r = input.rule;
  const state: CommissionState = {
    rules: [
      {
        id: "simulated",
        eventName: r.eventName,
        recipient: r.recipient,
        type: r.type,
        percent: r.type === "PERCENT" ? (r.percent ?? null) : null,
        amount: r.type === "FIXED" ? (r.amount ?? null) : null,
        currency: r.type === "FIXED" ? ((r.currency ?? null)) : null,
        durationMonths: r.durationMonths ?? null,
        maxRewardsPerReferral: r.maxRewardsPerReferral ?? null,
        tierPercents: r.tierPercents ?? {},
      },
    ],
    prices: await pricesOf(environment, pricing, now),
    unit: { decimals: asset.decimals, native: isNative(asset) },
    counts: new Map(),
  };
  const counts = new Map<string, number>();
  const paidByDay = new Map<string, bigint>();
  const totals = new Map<string, bigint>();
  let events = 0;
  let rewards = 0;
  let total = 0n;
  const tierOf = new Map<string, string | null>();

  const needTiers = Object.keys(r.tierPercents ?? {}).length > 0 && tiers.length > 0;
  let cursor: { at: Date; id: string } | null = null;
  // One short transaction per page, a turn of the event loop between pages: on PGlite (one
  // connection, queries that never yield) a long simulation would otherwise hold every other
  // request of the process until it ends.
  while (events < MAX_EVENTS) {
    const page: Row[] = await db.$transaction(async (tx) => {
      const sql = await txSql(tx);
      const rows = await sql.query<Row>(
        `SELECT e.id, e."eventName", e.amount::text AS amount, e.currency, e."createdAt", r.id AS "referralId", r."referrerId", r."referredId", r."qualifiedAt"
           FROM "TrackedEvent" e JOIN "Referral" r ON r.id = e."referralId"
          WHERE e."businessId" = $1 AND e.environment = $2::"Environment" AND e."eventName" = $3
            AND e."createdAt" >= $4::timestamp(3) AND e."createdAt" < $5::timestamp(3)
            AND e.status = 'PROCESSED' AND r.status IN (${QUALIFIED_SQL}) AND NOT r.provisional AND r."reversedAt" IS NULL AND NOT e.untrusted
            AND r."qualifiedAt" IS NOT NULL AND e."processedAt" >= r."qualifiedAt"
            AND ($6::timestamp(3) IS NULL OR (e."createdAt", e.id) > ($6::timestamp(3), $7::text))
          ORDER BY e."createdAt", e.id LIMIT ${PAGE}`,
        businessId,
        environment,
        r.eventName,
        input.from.toISOString(),
        input.to.toISOString(),
        cursor?.at.toISOString() ?? null,
        cursor?.id ?? null,
      );
      // The tiers of the page's referrers not met before, in the page's transaction.
      const missing = needTiers ? [...new Set(rows.map((p) => p.referrerId).filter((id) => !tierOf.has(id)))] : [];
      if (missing.length) {
        const q = await sql.query<{ id: string; n: number }>(
          `SELECT "referrerId" AS id, COUNT(*)::int AS n FROM "Referral" WHERE "referrerId" = ANY($1::text[]) AND status IN (${QUALIFIED_SQL}) GROUP BY 1`,
          missing,
        );
        const n = new Map(q.map((x) => [x.id, x.n]));
        for (const id of missing) tierOf.set(id, tierFor(tiers, n.get(id) ?? 0)?.id ?? null);
      }
      return rows;
    });
    if (!page.length) break;
    for (const e of page) {
      events++;
      const money = { eventName: e.eventName, amount: e.amount === null ? null : decimalText(e.amount), currency: e.currency as Currency | null, createdAt: new Date(e.createdAt) };
      if (missingPrice(state, money)) continue;
      const referral = { id: e.referralId, referrerId: e.referrerId, referredId: e.referredId, qualifiedAt: new Date(e.qualifiedAt) };
      const paidThisEvent = new Map<string, bigint>();
      for (const p of planCommissions(state, counts, money, referral, tierOf.get(e.referrerId) ?? null, now)) {
        if (p.refused) continue;
        const day = `${p.participantId} ${utcDayStart(money.createdAt).toISOString()}`;
        const c = commissionCaps(cfg, p.rule.recipient, paidThisEvent.get(p.participantId) ?? 0n);
        const d = capPayout(c.caps, c.kind, p.requestedWei, paidByDay.get(day) ?? 0n, p.requestedWei);
        if (d.status !== "PAID") continue;
        counts.set(countKey(p.rule.id, referral.id), (counts.get(countKey(p.rule.id, referral.id)) ?? 0) + 1);
        rewards++;
        total += d.amountWei;
        paidThisEvent.set(p.participantId, (paidThisEvent.get(p.participantId) ?? 0n) + d.amountWei);
        paidByDay.set(day, (paidByDay.get(day) ?? 0n) + d.amountWei);
        totals.set(p.participantId, (totals.get(p.participantId) ?? 0n) + d.amountWei);
      }
    }
    const last = page[page.length - 1];
    cursor = { at: new Date(last.createdAt), id: last.id };
    if (page.length < PAGE) break;
    await pgliteTurn();
  }
  const top = [...totals].sort((a, b) => (b[1] > a[1] ? 1 : b[1] < a[1] ? -1 : a[0] < b[0] ? -1 : 1)).slice(0, 10);
  const names = new Map(
    (await db.participant.findMany({ where: { id: { in: top.map(([id]) => id) }, businessId }, select: { id: true, name: true, email: true } })).map((p) => [p.id, p.name ?? p.email ?? null]),
  );
  return {
    events,
    rewards,
    totalEth: amountOf(total, asset),
    topParticipants: top.map(([participantId, wei]) => ({ participantId, name: names.get(participantId) ?? null, totalEth: amountOf(wei, asset) })),
  };
}
