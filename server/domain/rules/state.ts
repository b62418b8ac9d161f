// Loading what the rules core decides over (rules/decide.ts RulesState), set-based: a few
// statements for a run of items, whatever their number. The business's rules (config, settings,
// tiers, whether a webhook endpoint exists) may be read before the caller takes the pool lock;
// the rest is read under the locks the rules need: the advisory locks of the screen (referrers
// and referred users, in a fixed order), the referrals involved (FOR UPDATE, in id order), and,
// for money, the pool row (lockPool) with the day's paid totals.
import { txSql, type DirectSql, type Tx } from "../../db/client";
import type { Participant, Referral, TrackedEvent } from "../../db/generated";
import type { Environment } from "../../shared/environment";
import { toBigInt } from "../../shared/money";
import { loadConfig, readConfig } from "../effective-config/load";
import { lockPool } from "../ledger/service";
import { loadReferralSettings } from "../referral-settings/service";
import { ruleConfigOf } from "./config";
import { creditingClick, type ClickFact, type RuleConfig, type RuleItem, type RuleSettings, type RulesState, type TierRule } from "./decide";
import { utcDayStart } from "./screen";
import { countKey, ruleFact, type AssetUnit, type CommissionRuleFact, type CommissionState } from "./commissions";
import { pricesOf, readPricing, type Prices } from "./prices";
import { readAsset, sharedAmountUnits } from "../assets/read";
import { isNative } from "../../shared/asset";
import type { SubscribedEndpoint } from "../webhooks/emit";
import { isQualified, QUALIFIED_SQL } from "../../shared/referral-rules";

export interface RulesScope {
  businessId: string;
  environment: Environment;
}

/** The business's rules for one environment: what the pool lock does not guard. */
export interface LoadedRules {
  cfg: RuleConfig;
  settings: RuleSettings;
  tiers: TierRule[];
  /** The enabled webhook endpoints and the types each takes (messages are built only when there is one). */
  endpoints: SubscribedEndpoint[];
  /** Enabled commission rules and the prices they need (read here, before any lock); null without rules. */
  commissions: { rules: CommissionRuleFact[]; prices: Prices; unit: AssetUnit } | null;
}

/**
 * The rules of a business and environment. `create`: write the config and settings rows with
 * their defaults on first use (inside a transaction); without it, null when either is missing.
 */
export async function loadRules(tx: Tx, scope: RulesScope, create = true): Promise<LoadedRules | null> {
  const { businessId, environment } = scope;
  const [cfg, settings, endpoints, commissions, asset] = await Promise.all([
    create ? loadConfig(tx, businessId, environment) : readConfig(tx, businessId, environment),
    create ? loadReferralSettings(tx, businessId) : tx.referralSettings.findUnique({ where: { businessId } }),
    tx.webhookEndpoint.findMany({ where: { businessId, environment, enabled: true }, select: { id: true, events: true } }),
    loadCommissionRules(tx, scope),
    readAsset(tx, businessId, environment),
  ]);
  if (!cfg || !settings) return null;
  const tierRows =
    cfg.rewardStrategy === "TIERED" || commissions?.rules.some((r) => Object.keys(r.tierPercents).length > 0)
      ? await tx.tier.findMany({ where: { businessId }, orderBy: { minReferrals: "desc" } })
      : [];
  // Tier amounts are business-wide (the number at 18 decimals): in base units of this environment's asset.
  const tiers = tierRows.map((t) => ({ id: t.id, minReferrals: t.minReferrals, referralWei: sharedAmountUnits(t.referralRewardWei, asset), bonusWei: sharedAmountUnits(t.bonusWei, asset) }));
  return { cfg: ruleConfigOf(cfg, asset), settings, tiers, endpoints, commissions };
}

/**
 * The commission rules and prices read in a transaction, per business and environment: a later
 * read in the same transaction (a worker batch's next run, a job's processing after its pool
 * lock) takes them from here, so that the chain calls of a feed price run once, before the pool
 * lock, and never while it is held.
 */
const commissionsRead = new WeakMap<Tx, Map<string, Promise<LoadedRules["commissions"]>>>();

/**
 * The environment's enabled commission rules, and the prices they may need: read once per
 * transaction (commissionsRead). Callers that take the pool lock read them first (readCommissionsAhead).
 */
function loadCommissionRules(tx: Tx, scope: RulesScope): Promise<LoadedRules["commissions"]> {
  const key = `${scope.businessId}\u0000${scope.environment}`;
  let read = commissionsRead.get(tx);
  if (!read) commissionsRead.set(tx, (read = new Map()));
  let c = read.get(key);
  if (!c) {
    read.set(key, (c = readCommissionRules(tx, scope)));
    c.catch(() => read.delete(key));
  }
  return c;
}

/** Reads the commission rules and their prices ahead of the pool lock, for the rules loaded under it in this transaction. */
export async function readCommissionsAhead(tx: Tx, scope: RulesScope): Promise<void> {
  await loadCommissionRules(tx, scope);
}

async function readCommissionRules(tx: Tx, scope: RulesScope): Promise<LoadedRules["commissions"]> {
  const rows = await tx.commissionRule.findMany({ where: { businessId: scope.businessId, environment: scope.environment, enabled: true, deletedAt: null }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  if (!rows.length) return null;
  const rules = rows.map(ruleFact);
  const [pricing, asset] = await Promise.all([readPricing(tx, scope.businessId, scope.environment), readAsset(tx, scope.businessId, scope.environment)]);
  return { rules, prices: await pricesOf(scope.environment, pricing, new Date()), unit: { decimals: asset.decimals, native: isNative(asset) } };
}

/** A queued or recorded event as an item of the rules core. */
export function eventItem(key: string, event: TrackedEvent, apiKeyId: string | null): RuleItem {
  const m = (event.metadata ?? {}) as { referredUserEmail?: unknown; referredUserId?: unknown; referredUserName?: unknown };
  return {
    key,
    apiKeyId,
    untrusted: event.untrusted,
    event,
    referrer: event.referrer,
    identity: { email: m.referredUserEmail, userId: m.referredUserId, name: m.referredUserName },
    source: event.source,
    campaign: event.campaign,
    clickId: event.clickId,
  };
}

/** What a referral apply names (an SDK_REFERRAL_APPLY job's payload, a synchronous apply, a recorded pair). */
export interface ApplyInput {
  referralCode: string;
  referredUserEmail?: string | null;
  referredUserId?: string | null;
  referredUserName?: string | null;
  source?: string | null;
  campaign?: string | null;
  clickId?: string | null;
}

/** A referral apply as an item of the rules core: the referrer by code or handle (or the click's link), the referred user found or created, the referral. */
export function applyItem(key: string, a: ApplyInput, apiKeyId: string | null, untrusted = false): RuleItem {
  return {
    key,
    apiKeyId,
    untrusted,
    referrer: a.referralCode,
    identity: { email: a.referredUserEmail ?? undefined, userId: a.referredUserId ?? undefined, name: a.referredUserName ?? undefined },
    source: a.source ?? null,
    campaign: a.campaign ?? null,
    clickId: a.clickId ?? null,
  };
}

/**
 * Loads the state for `items` at `now`. `money`: read the pool and the day's totals too (the
 * caller holds the pool lock, or `lock` takes it); otherwise decide asks for them (NeedsMoney)
 * only when a decision pays, and loadMoney reads them then.
 */
export async function loadState(
  tx: Tx,
  scope: RulesScope,
  items: readonly RuleItem[],
  now: Date,
  opts: { rules?: LoadedRules | null; money?: "locked" | "lock" | "later" } = {},
): Promise<RulesState> {
  const { businessId, environment } = scope;
  const rules = opts.rules ?? (await loadRules(tx, scope));
  if (!rules) throw new Error("loadState: the business has no rules");
  const sql = await txSql(tx);
  const clicks = await loadClicks(sql, scope, items);

  const refs = new Set<string>();
  const emails = new Set<string>();
  const userIds = new Set<string>();
  const forced = new Set<string>();
  for (const it of items) {
    if (it.referralId) {
      forced.add(it.referralId); // settled against a known referral: no referrer or identity to resolve
      continue;
    }
    const v = it.referrer?.trim();
    if (v && v.length <= 64) refs.add(v);
    if (typeof it.identity.email === "string" && it.identity.email) emails.add(it.identity.email);
    if (typeof it.identity.userId === "string" && it.identity.userId) userIds.add(it.identity.userId);
  }
  const participants =
    refs.size || emails.size || userIds.size || clicks.size
      ? await sql.query<Participant>(
          `SELECT * FROM "Participant" WHERE "businessId" = $1 AND environment = $2::"Environment"
              AND ("referralCode" = ANY($3::text[]) OR handle = ANY($4::text[]) OR email = ANY($5::text[]) OR "externalId" = ANY($6::text[]) OR id = ANY($7::text[]))`,
          businessId,
          environment,
          [...refs].map((v) => v.toUpperCase()),
          [...refs].map((v) => v.toLowerCase()),
          [...emails],
          [...userIds],
          [...new Set([...clicks.values()].map((c) => c.participantId))],
        )
      : [];
  const ids = participants.map((p) => p.id);
  const { settings, cfg } = rules;
  const countToday = settings.maxReferralsPerReferrerPerDay !== null;
  // The referrer's own referrals are read by the daily limit and the same-visitor signal only.
  const keys = await screenLockKeys(sql, items, participants, clicks, countToday || (clicks.size > 0 && settings.sameVisitorRule !== "OFF"));
  // The advisory locks of the people of every referral the run may create, in a fixed order: the
  // screen reads their referrals, and two transactions must not both create the same pair.
  if (keys.length) await sql.query(`SELECT count(*)::int AS n FROM (SELECT pg_advisory_xact_lock(hashtext('referral:' || k)) FROM unnest($1::text[]) WITH ORDINALITY AS u(k, o) ORDER BY o) s`, keys);
  const referrals =
    ids.length || forced.size
      ? await sql.query<Referral>(
          `SELECT * FROM "Referral" WHERE "businessId" = $1 AND environment = $2::"Environment" AND ("referredId" = ANY($3::text[]) OR id = ANY($4::text[]))
            ORDER BY id FOR UPDATE`,
          businessId,
          environment,
          ids,
          [...forced],
        )
      : [];
  const open = referrals.filter((r) => r.status === "PENDING" || r.status === "FLAGGED").map((r) => r.id);
  const referrerIds = referrersOf(participants, referrals);
  const dayStart = utcDayStart(now).toISOString();
  const [settled, today, qualified, referrerVisitors, sharedWallets] = await Promise.all([
    open.length
      ? sql.query<{ id: string }>(`SELECT DISTINCT "referralId" AS id FROM "Reward" WHERE "referralId" = ANY($1::text[]) AND kind IN ('REFERRAL', 'BONUS')`, open)
      : Promise.resolve([]),
    countToday && ids.length
      ? sql.query<{ id: string; n: number; p: number }>(
          `SELECT "referrerId" AS id, COUNT(*) FILTER (WHERE NOT provisional)::int AS n, COUNT(*) FILTER (WHERE provisional)::int AS p FROM "Referral"
            WHERE "businessId" = $1 AND environment = $2::"Environment" AND "referrerId" = ANY($3::text[]) AND status <> 'REJECTED' AND "createdAt" >= $4::timestamp(3) GROUP BY 1`,
          businessId,
          environment,
          ids,
          dayStart,
        )
      : Promise.resolve([]),
    loadQualified(sql, scope, cfg, rules.tiers, referrerIds),
    clicks.size && settings.sameVisitorRule !== "OFF" ? loadReferrerVisitors(sql, participants.map((p) => p.id)) : Promise.resolve(new Map<string, Set<string>>()),
    settings.walletSharedRule !== "OFF" ? loadSharedWallets(sql, scope, participants) : Promise.resolve(new Set<string>()),
  ]);
  const state: RulesState = {
    businessId,
    environment,
    cfg,
    settings,
    tiers: rules.tiers,
    hooks: rules.endpoints.length > 0,
    endpoints: rules.endpoints,
    participants,
    referrals,
    settledReferrals: new Set(settled.map((r) => r.id)),
    referralsToday: new Map(today.map((r) => [r.id, r.n])),
    provisionalToday: new Map(today.map((r) => [r.id, r.p])),
    qualified,
    clicks,
    referrerVisitors,
    sharedWallets,
    money: null,
    commissions: rules.commissions ? await loadCommissionState(sql, rules.commissions, referrals) : undefined,
    keysWithoutReversal: await loadKeysWithoutReversal(sql, items, cfg.reversalEvents),
  };
  if (opts.money === "locked" || opts.money === "lock") state.money = await loadMoney(tx, state, now, opts.money === "lock");
  return state;
}

/** Whose tier counts a state holds: its participants and the referrers of its referrals. */
const referrersOf = (participants: readonly Participant[], referrals: readonly Referral[]) => [...new Set([...participants.map((p) => p.id), ...referrals.map((r) => r.referrerId)])];

/** Per referrer: QUALIFIED or REWARDED referrals, the tier count (read only when tiers decide amounts). */
async function loadQualified(sql: DirectSql, scope: RulesScope, cfg: RulesState["cfg"], tiers: RulesState["tiers"], referrerIds: string[]): Promise<Map<string, number>> {
  if (!((cfg.rewardStrategy === "TIERED" || tiers.length > 0) && referrerIds.length)) return new Map();
  const rows = await sql.query<{ id: string; n: number }>(
    `SELECT "referrerId" AS id, COUNT(*)::int AS n FROM "Referral"
      WHERE "businessId" = $1 AND environment = $2::"Environment" AND "referrerId" = ANY($3::text[]) AND status IN (${QUALIFIED_SQL})
      GROUP BY 1`,
    scope.businessId,
    scope.environment,
    referrerIds,
  );
  return new Map(rows.map((r) => [r.id, r.n]));
}

/** The API keys of the items' reversal events that lack the rewards:write scope (decide.ts reversesRewards). */
async function loadKeysWithoutReversal(sql: DirectSql, items: readonly RuleItem[], reversalEvents: readonly string[]): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const it of items) if (it.event?.apiKeyId && !it.event.untrusted && reversalEvents.includes(it.event.eventName)) keys.add(it.event.apiKeyId);
  if (!keys.size) return new Set();
  const rows = await sql.query<{ id: string }>(`SELECT id FROM "ApiKey" WHERE id = ANY($1::text[]) AND NOT ('rewards:write' = ANY(scopes))`, [...keys]);
  return new Set(rows.map((r) => r.id));
}

/**
 * The clicks the items name (the business's own, no bot's), each as it is: a click names its
 * own link, never another click of its visitor (people behind one address with one browser build
 * are one visitor), with the visitor's counted clicks in that click's hour (CLICK_VELOCITY). One
 * statement for the run.
 */
async function loadClicks(sql: DirectSql, scope: RulesScope, items: readonly RuleItem[]): Promise<Map<string, ClickFact>> {
  const named = [...new Set(items.map((i) => i.clickId).filter((c): c is string => typeof c === "string" && c.length > 0 && c.length <= 64))];
  if (!named.length) return new Map();
  const rows = await sql.query<{ id: string; participantId: string; visitorHash: string; n: number }>(
    `SELECT n.id, n."participantId", n."visitorHash",
            (SELECT count(*)::int FROM "LinkClick" v
              WHERE v."businessId" = $1 AND v.environment = $2::"Environment" AND v."visitorHash" = n."visitorHash" AND v.hour = n.hour AND v.counted) AS n
       FROM "LinkClick" n
      WHERE n.id = ANY($3::text[]) AND n."businessId" = $1 AND n.environment = $2::"Environment" AND NOT n.bot`,
    scope.businessId,
    scope.environment,
    named,
  );
  return new Map(rows.map((r) => [r.id, { id: r.id, participantId: r.participantId, visitorHash: r.visitorHash, visitorClicksThisHour: r.n }]));
}

/** Per participant: visitor hashes of the clicks behind the referrals they made or came from, and of the devices that opened their portal (SAME_VISITOR). */
async function loadReferrerVisitors(sql: DirectSql, ids: string[]): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  if (!ids.length) return out;
  const rows = await sql.query<{ pid: string; h: string }>(
    `SELECT DISTINCT x.pid, c."visitorHash" AS h FROM (
        SELECT r."referrerId" AS pid, rc."clickId", r."businessId", r.environment FROM "Referral" r JOIN "ReferralClick" rc ON rc."referralId" = r.id WHERE r."referrerId" = ANY($1::text[])
        UNION ALL
        SELECT r."referredId", rc."clickId", r."businessId", r.environment FROM "Referral" r JOIN "ReferralClick" rc ON rc."referralId" = r.id WHERE r."referredId" = ANY($1::text[])
      ) x JOIN "LinkClick" c ON c.id = x."clickId" AND c."businessId" = x."businessId" AND c.environment = x.environment
     UNION
     SELECT s."participantId", s."visitorHash" FROM "PortalSession" s WHERE s."participantId" = ANY($1::text[]) AND s."visitorHash" IS NOT NULL`,
    ids,
  );
  for (const r of rows) out.set(r.pid, (out.get(r.pid) ?? new Set()).add(r.h));
  return out;
}

/** The wallets of these participants that another participant of the business and environment also has (WALLET_SHARED). */
async function loadSharedWallets(sql: DirectSql, scope: RulesScope, people: readonly Participant[]): Promise<Set<string>> {
  const wallets = [...new Set(people.map((p) => p.walletAddress).filter((w): w is string => !!w))];
  if (!wallets.length) return new Set();
  const rows = await sql.query<{ w: string }>(
    `SELECT "walletAddress" AS w FROM "Participant"
      WHERE "businessId" = $1 AND environment = $2::"Environment" AND "walletAddress" = ANY($3::text[])
      GROUP BY 1 HAVING count(*) > 1`,
    scope.businessId,
    scope.environment,
    wallets,
  );
  return new Set(rows.map((r) => r.w));
}

/**
 * The participants whose referrals a new referral of this run would read: the referred user when
 * they exist, and the referrer when `referrers` (a rule counts the referrer's referrals), for items
 * naming a referrer and a referred user whose pair has no referral yet. Sorted: every path takes
 * these locks in the same order.
 */
async function screenLockKeys(sql: DirectSql, items: readonly RuleItem[], participants: Participant[], clicks: ReadonlyMap<string, ClickFact>, referrers: boolean): Promise<string[]> {
  const find = (pred: (p: Participant) => boolean) => participants.find(pred);
  const pairs: [string, string | null][] = [];
  for (const it of items) {
    const v = it.referrer?.trim();
    const click = creditingClick(clicks, it);
    if (it.referralId || (!click && (!v || v.length > 64))) continue;
    const email = typeof it.identity.email === "string" && it.identity.email ? it.identity.email : null;
    const userId = typeof it.identity.userId === "string" && it.identity.userId ? it.identity.userId : null;
    if (!email && !userId) continue;
    const byClick = click ? find((p) => p.id === click.participantId) : undefined;
    const referrer = byClick ?? (v ? (find((p) => p.referralCode === v.toUpperCase()) ?? find((p) => p.handle === v.toLowerCase())) : undefined);
    if (!referrer) continue;
    const referred = (userId ? find((p) => p.externalId === userId) : undefined) ?? (email ? find((p) => p.email === email) : undefined);
    pairs.push([referrer.id, referred?.id ?? null]);
  }
  const known = pairs.filter((p): p is [string, string] => p[1] !== null);
  const existing = known.length
    ? new Set(
        (
          await sql.query<{ k: string }>(
            `SELECT "referrerId" || ' ' || "referredId" AS k FROM "Referral" WHERE ("referrerId", "referredId") IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
            known.map((p) => p[0]),
            known.map((p) => p[1]),
          )
        ).map((r) => r.k),
      )
    : new Set<string>();
  const keys = new Set<string>();
  for (const [referrer, referred] of pairs) {
    if (referred && existing.has(`${referrer} ${referred}`)) continue;
    if (referrers) keys.add(referrer);
    if (referred) keys.add(referred);
  }
  return [...keys].sort();
}

/**
 * The commission rules' state for these referrals: per rule with a limit (maxRewardsPerReferral)
 * and referral, its rewards that are not REFUSED, on its index (Reward_ruleId_referralId_idx), so
 * that a referral's many commissions are not read for it. A reversed referral is told by its own
 * row (Referral.reversedAt, read with the referrals).
 */
async function loadCommissionState(sql: DirectSql, c: NonNullable<LoadedRules["commissions"]>, referrals: readonly Referral[]): Promise<CommissionState> {
  const ids = referrals.filter((r) => isQualified(r.status) || r.status === "PENDING").map((r) => r.id);
  const limited = c.rules.filter((r) => r.maxRewardsPerReferral !== null).map((r) => r.id);
  const rows =
    ids.length && limited.length
      ? await sql.query<{ rule: string; ref: string; n: number }>(
          `SELECT "ruleId" AS rule, "referralId" AS ref, COUNT(*)::int AS n FROM "Reward"
            WHERE "ruleId" = ANY($2::text[]) AND "referralId" = ANY($1::text[]) AND status <> 'REFUSED'
            GROUP BY 1, 2`,
          ids,
          limited,
        )
      : [];
  return { rules: c.rules, prices: c.prices, unit: c.unit, counts: new Map(rows.map((r) => [countKey(r.rule, r.ref), r.n])) };
}

/** The pool balance, its low-balance flag and what each participant of the state was paid today (UTC), under the pool lock. */
export async function loadMoney(tx: Tx, state: RulesState, now: Date, lock: boolean): Promise<NonNullable<RulesState["money"]>> {
  const { businessId, environment } = state;
  const sql = await txSql(tx);
  let pool: { balance: bigint; below: boolean };
  if (lock) {
    const p = await lockPool(tx, businessId, environment);
    pool = { balance: p.balanceWei ?? 0n, below: p.belowThreshold };
  } else {
    const [row] = await sql.query<{ balance: string; below: boolean }>(
      `SELECT "balanceWei"::text AS balance, "belowThreshold" AS below FROM "Pool" WHERE "businessId" = $1 AND environment = $2::"Environment"`,
      businessId,
      environment,
    );
    pool = { balance: toBigInt(row?.balance ?? "0"), below: row?.below ?? false };
  }
  const who = [...new Set([...state.participants.map((p) => p.id), ...state.referrals.flatMap((r) => [r.referrerId, r.referredId])])];
  const paid =
    state.cfg.maxPerDayWei !== null && who.length
      ? await sql.query<{ id: string; s: string }>(
          `SELECT "participantId" AS id, SUM("amountWei")::text AS s FROM "Reward"
            WHERE "participantId" = ANY($1::text[]) AND status = 'PAID' AND "paidAt" >= $2::timestamp(3) GROUP BY 1`,
          who,
          utcDayStart(now).toISOString(),
        )
      : [];
  return { balanceWei: pool.balance, belowThreshold: pool.below, paidToday: new Map(paid.map((r) => [r.id, toBigInt(r.s)])) };
}
