// The rules core: what a run of events (or referral applies) of one business and environment
// does, decided in arrival order over a loaded state (rules/state.ts), with no database. Every
// path into processing (synchronous /track, the dashboard's manual event, SDK_REFERRAL_APPLY,
// the worker's batches, the engine's settleEvent) loads a state, calls decide and writes what it
// returns (rules/write.ts); one event is a batch of one. The rules, in order:
//   - the event's referrer (code or handle; unknown → UNKNOWN_REFERRAL_CODE) and referred user
//     (metadata.referredUserId, else referredUserEmail; created when new, missing fields filled);
//   - the referral: the pair's own, or a new one through the anti-abuse screen (rules/screen.ts);
//     without a referrer, the referred user's active referral (confirmed before provisional,
//     newest first; a rejected one only when no other exists). Referrals created through a
//     publishable key are provisional: they block no secret-key referral, which supersedes
//     them, and are confirmed when the same pair comes with a secret key;
//   - a reversal event (config reversalEvents) reverses the referral's rewards instead;
//   - settlement: an event qualifies its referral when its name qualifies, it falls within the
//     attribution window, it is trusted and the referral is confirmed; a referral is settled
//     once, by its first qualifying event: REFERRAL → the referrer, BONUS → the referred user,
//     amounts by tier (TIERED, by qualified referrals, this one included) or by config; held
//     for review when the referral is FLAGGED or holdForReview is on; otherwise paid under the
//     per-event and daily caps and the pool (rules/pay.ts), with the low-pool alert. A FLAGGED
//     referral's first qualifying event sets its qualifiedAt: its events then hold the
//     commissions they would earn unflagged, for the review to pay or refuse.
import type { Participant, Referral, TrackedEvent } from "../../db/generated";
import { AppError } from "../../shared/errors";
import type { Environment } from "../../shared/environment";
import { newReferralWebhooks, referralWebhook, rewardWebhook, trackedEventWebhook, type SubscribedEndpoint, type WebhookEvent } from "../webhooks/emit";
import { capPayout, lowPoolCrossing, rewardDebitMemo, type AlertRow, type PayoutCaps, type PoolAlertConfig } from "./pay";
import { evaluateSignals, signalRules, type SignalSettings } from "../referral-settings/fraud-signals";
import { REFERRAL_REASONS, screen, utcDayStart, type ScreenSettings } from "./screen";
import { commissionCaps, COMMISSION_REASONS, countKey, eventMoney, missingPrice, planCommissions, type CommissionPlan, type CommissionState } from "./commissions";

const EVENT_REASONS = {
  NOT_A_QUALIFYING_EVENT: "NOT_A_QUALIFYING_EVENT",
  ATTRIBUTION_WINDOW_EXPIRED: "ATTRIBUTION_WINDOW_EXPIRED",
  REFERRAL_ALREADY_SETTLED: "REFERRAL_ALREADY_SETTLED",
  HELD_FOR_REVIEW: "HELD_FOR_REVIEW",
  REFERRAL_REJECTED: "REFERRAL_REJECTED",
  /** Recorded through a publishable key: it may link a referral but never qualifies it. */
  UNTRUSTED_EVENT: "UNTRUSTED_EVENT",
  /** The referral came from a publishable key and no secret key confirmed it: it never qualifies. */
  PROVISIONAL_REFERRAL: "PROVISIONAL_REFERRAL",
  /** A reversal event sent with a key without the rewards:write scope: recorded, nothing reversed or earned. */
  REVERSAL_NOT_ALLOWED: "REVERSAL_NOT_ALLOWED",
} as const;

const DAY_MS = 86_400_000;

/**
 * A referral whose events earn commissions: qualified (this event may have qualified it), or
 * qualified while flagged (its commissions are then held for the review); never one rejected,
 * provisional-only or reversed as a whole.
 */
const earnsCommissions = (r: Pick<Referral, "status" | "qualifiedAt" | "reversedAt">) =>
  !r.reversedAt && (r.status === "QUALIFIED" || r.status === "REWARDED" || (r.status === "FLAGGED" && r.qualifiedAt !== null));

export interface RuleConfig extends PayoutCaps, PoolAlertConfig {
  rewardStrategy: "FIXED" | "TIERED";
  referralWei: bigint;
  bonusWei: bigint;
  /** Empty: every event qualifies. */
  qualifyingEvents: readonly string[];
  reversalEvents: readonly string[];
}

export interface RuleSettings extends ScreenSettings, SignalSettings {
  attributionWindowDays: number | null;
}

/** The link click an item names, of the business and not a bot's (rules/state.ts loadClicks). */
export interface ClickFact {
  id: string;
  /** Its link's participant: the referrer of an item that names the click (creditingClick). */
  participantId: string;
  visitorHash: string;
  /** Counted clicks of that visitor in the click's hour, across the business's links. */
  visitorClicksThisHour: number;
}

export interface TierRule {
  id: string;
  minReferrals: number;
  referralWei: bigint;
  bonusWei: bigint;
}

/** What the rules read, loaded for a run of items (rules/state.ts). Never changed by decide. */
export interface RulesState {
  businessId: string;
  environment: Environment;
  cfg: RuleConfig;
  settings: RuleSettings;
  tiers: readonly TierRule[];
  /** Some enabled webhook endpoint exists: messages are built only then. */
  hooks: boolean;
  /** Those endpoints, when loaded (rules/state.ts): the writes turn the webhook events into their messages. */
  endpoints?: readonly SubscribedEndpoint[];
  /** The participants the items name: referrers (by code or handle) and referred users (by user id or email). */
  participants: readonly Participant[];
  /** Every referral of those referred users and of the pairs named (locked by the loader). */
  referrals: readonly Referral[];
  /** Referrals that have a REFERRAL or BONUS reward already (paid, held or refused). */
  settledReferrals: ReadonlySet<string>;
  /** Per referrer: referrals created today (UTC) that are not rejected nor provisional. */
  referralsToday: ReadonlyMap<string, number>;
  /**
   * Per referrer: provisional referrals (a publishable key's) created today that are not rejected.
   * They count toward a publishable key's daily cap, never toward a secret key's: anyone can send
   * them, and the cap must not let them lock a referrer out for the day.
   */
  provisionalToday?: ReadonlyMap<string, number>;
  /** Per referrer: QUALIFIED or REWARDED referrals (the tier count). */
  qualified: ReadonlyMap<string, number>;
  /** Per click id an item names (its own business's, not a bot's): the attributed click. */
  clicks: ReadonlyMap<string, ClickFact>;
  /** Per participant: visitor hashes of the clicks behind their referrals (SAME_VISITOR; loaded when that rule is on). */
  referrerVisitors: ReadonlyMap<string, ReadonlySet<string>>;
  /** Payout wallets set on more than one participant of the business and environment (WALLET_SHARED; loaded when on). */
  sharedWallets: ReadonlySet<string>;
  /** Read under the pool lock; null until a decision pays (decide then throws NeedsMoney). */
  money: { balanceWei: bigint; belowThreshold: boolean; paidToday: ReadonlyMap<string, bigint> } | null;
  /** Commission rules, prices and counts (rules/commissions.ts); absent when the environment has no enabled rule. */
  commissions?: CommissionState;
  /** API keys of the items' reversal events that lack the rewards:write scope (reversesRewards). */
  keysWithoutReversal?: ReadonlySet<string>;
}

/**
 * What a reversal event (its name one of the business's reversalEvents) does: REVERSE its referred
 * user's rewards; or NOT_ALLOWED when its key lacks rewards:write (the scope of POST
 * /sdk/rewards/reverse): recorded, nothing reversed or earned. Null: not a reversal event, or one
 * sent with a publishable key (an untrusted event, which earns and reverses nothing). The
 * dashboard's own events (no key) may reverse.
 */
export function reversalOf(state: Pick<RulesState, "cfg" | "keysWithoutReversal">, event: TrackedEvent): "REVERSE" | "NOT_ALLOWED" | null {
  if (!state.cfg.reversalEvents.includes(event.eventName) || event.untrusted) return null;
  return event.apiKeyId !== null && state.keysWithoutReversal?.has(event.apiKeyId) ? "NOT_ALLOWED" : "REVERSE";
}

/**
 * The click whose link credits an item's referral: the click it names (or its visitor's, when it
 * names none: links/visitor-click.ts). The click wins over the code sent, for an apply and an
 * event alike; an unknown click leaves the code to decide. An event naming no referrer is
 * credited by its click only when its referred user has no referral yet (decideInSteps).
 */
export const creditingClick = (clicks: RulesState["clicks"], item: Pick<RuleItem, "clickId" | "referrer" | "event">): ClickFact | undefined =>
  item.clickId && (item.referrer || item.event) ? clicks.get(item.clickId) : undefined;

/** One thing to decide: an event (queued or just recorded), or a referral apply (no event). */
export interface RuleItem {
  /** The caller's key for the outcome (a job id, an index). */
  key: string;
  apiKeyId: string | null;
  /** Sent through a publishable key. */
  untrusted: boolean;
  event?: TrackedEvent;
  referrer: string | null;
  /** metadata.referredUserEmail / referredUserId / referredUserName, as sent (not validated). */
  identity: { email?: unknown; userId?: unknown; name?: unknown };
  source: string | null;
  campaign: string | null;
  /** Settle against this referral (a referral the caller recorded itself): no referrer or identity. */
  referralId?: string;
  /** The link click the referred user came from (rts_click): screened by the fraud signals and linked to a new referral; its link's participant is the referrer (creditingClick). */
  clickId?: string | null;
}

export interface RewardRow {
  id: string;
  businessId: string;
  environment: Environment;
  participantId: string;
  eventId: string | null;
  referralId: string | null;
  kind: "REFERRAL" | "BONUS" | "COMMISSION";
  requestedWei: bigint;
  amountWei: bigint;
  status: "PAID" | "HELD" | "REFUSED";
  reason: string | null;
  note: null;
  createdAt: Date;
  paidAt: Date | null;
  /** COMMISSION rewards: the rule and what the amount was computed from (rules/commissions.ts). */
  ruleId?: string | null;
  baseAmount?: string | null;
  baseCurrency?: string | null;
  rate?: string | null;
  rateSource?: string | null;
  rateAt?: Date | null;
}

export type Outcome =
  | {
      key: string;
      kind: "event";
      eventId: string;
      status: TrackedEvent["status"];
      reason: string | null;
      referral: Referral | null;
      referred: Participant | null;
      rewards: RewardRow[];
      /** The event was decided before (not QUEUED): nothing was done. */
      skipped?: true;
      /** A reversal event: the writer reverses the referred user's rewards and records the count in the reason. */
      reversal?: { referredId: string | null; event: TrackedEvent };
      /** No usable price for a currency a commission rule needs: the event stays QUEUED (reason PRICE_UNAVAILABLE), untouched; its job is retried later. */
      wait?: true;
    }
  | { key: string; kind: "apply"; referral: Referral; created: boolean; referred: Participant }
  | { key: string; kind: "error"; eventId: string | null; error: AppError };

/** Rows to write; `at` is the index of the item that produced them (writes go in item order). */
export interface Decisions {
  businessId: string;
  environment: Environment;
  now: Date;
  outcomes: Outcome[];
  /** Items decided: outcomes.length. The caller continues at items[next] with a fresh state. */
  next: number;
  /** New participants as they were when their item was decided. */
  participants: { at: number; row: Participant }[];
  /** Participants whose fields are filled after they existed (loaded, or inserted by an earlier item): final values. */
  participantUpdates: Map<string, Participant>;
  /** New referrals as they were when their item was decided. */
  referrals: { at: number; row: Referral }[];
  /** Referrals changed after they existed (loaded, or inserted by an earlier item): final values. */
  referralUpdates: Map<string, Referral>;
  /** New referrals' link clicks. */
  referralClicks: { referralId: string; clickId: string }[];
  events: { at: number; id: string; referralId: string | null; status: TrackedEvent["status"]; reason: string | null }[];
  rewards: { at: number; row: RewardRow }[];
  debits: { at: number; rewardId: string; amountWei: bigint; memo: string }[];
  alerts: AlertRow[];
  /** The pool's new below-threshold flag, when it changed. */
  belowThreshold: boolean | null;
  webhooks: WebhookEvent[];
}

/** Thrown when a decision pays and the state has no money read yet: load it under the pool lock and decide again. */
export class NeedsMoney extends Error {
  constructor() {
    super("the rules need the pool balance and the daily totals");
  }
}

export interface DecideOptions {
  newId: () => string;
  newCode: () => string;
  /** Stop before an item that fails (the worker's batch runs it alone, where it fails as a job). */
  haltOnError?: boolean;
}

/** Metadata identity fields: absent when falsy (as always), text, or malformed. */
const textOrAbsent = (v: unknown): string | undefined | null => (!v ? undefined : typeof v === "string" ? v : null);

export function decide(state: RulesState, items: readonly RuleItem[], now: Date, opts: DecideOptions): Decisions {
  const run = decideInSteps(state, items, now, opts);
  run.to(items.length);
  return run.out;
}

/**
 * decide, a stretch of items at a time: `to(end)` decides the items up to `end` (exclusive) that
 * are left, unless the run ended before (a failing item with haltOnError, a reversal); `out.next`
 * is then the number of items decided. The writer (rules/write.ts) writes a chunk of items while
 * the next one is decided. Rows of an item are final once it is decided: later items change
 * participants and referrals through their updates, written after the chunks.
 */
export function decideInSteps(state: RulesState, items: readonly RuleItem[], now: Date, opts: DecideOptions): { out: Decisions; to: (end: number) => void } {
  const { businessId, environment, cfg, settings } = state;
  const out: Decisions = {
    businessId,
    environment,
    now,
    outcomes: [],
    next: 0,
    participants: [],
    participantUpdates: new Map(),
    referrals: [],
    referralUpdates: new Map(),
    referralClicks: [],
    events: [],
    rewards: [],
    debits: [],
    alerts: [],
    belowThreshold: null,
    webhooks: [],
  };
  const hook = (w: WebhookEvent | WebhookEvent[]) => {
    if (state.hooks) out.webhooks.push(...(Array.isArray(w) ? w : [w]));
  };

  // Working copies: what earlier items decided is what later ones see.
  const people: Participant[] = state.participants.map((p) => ({ ...p }));
  const byId = new Map(people.map((p) => [p.id, p]));
  const byEmail = new Map(people.filter((p) => p.email).map((p) => [p.email!, p]));
  const byUserId = new Map(people.filter((p) => p.externalId).map((p) => [p.externalId!, p]));
  // Codes and handles are unique in a business and environment (and never change here).
  const byCode = new Map(people.map((p) => [p.referralCode, p]));
  const byHandle = new Map(people.filter((p) => p.handle).map((p) => [p.handle!, p]));
  const referrals = new Map(state.referrals.map((r) => [r.id, { ...r }]));
  const byPair = new Map([...referrals.values()].map((r) => [`${r.referrerId}\u0000${r.referredId}`, r]));
  const ofReferred = new Map<string, Referral[]>();
  for (const r of referrals.values()) ofReferred.set(r.referredId, [...(ofReferred.get(r.referredId) ?? []), r]);
  const inserted = new Set<string>(); // referrals inserted by an item already decided
  const settledRefs = new Set(state.settledReferrals);
  const madeToday = new Map(state.referralsToday);
  const provisionalToday = new Map(state.provisionalToday ?? []);
  const bump = (m: Map<string, number>, id: string, by: number) => m.set(id, Math.max(0, (m.get(id) ?? 0) + by));
  const qualified = new Map(state.qualified);
  const dayStart = utcDayStart(now);
  const tiers = [...state.tiers].sort((a, b) => b.minReferrals - a.minReferrals);
  const money = state.money ? { balance: state.money.balanceWei, below: state.money.belowThreshold, paid: new Map(state.money.paidToday) } : null;
  const commissions = state.commissions && state.commissions.rules.length ? state.commissions : null;
  const commissionCounts = new Map(commissions?.counts ?? []);

  const loaded = new Set(state.referrals.map((r) => r.id));
  const changed = (r: Referral) => {
    r.updatedAt = now;
    if (inserted.has(r.id) || loaded.has(r.id)) out.referralUpdates.set(r.id, r);
  };
  const referrerOf = (raw: string): Participant | undefined => {
    const v = raw.trim();
    if (!v || v.length > 64) return undefined;
    return byCode.get(v.toUpperCase()) ?? byHandle.get(v.toLowerCase());
  };
  /** The referred user's referral an event without a referrer belongs to. */
  const activeReferralOf = (referredId: string): Referral | null => {
    const list = ofReferred.get(referredId) ?? [];
    const rank = (r: Referral) => (r.status === "REJECTED" ? 0 : r.provisional ? 1 : 2);
    let best: Referral | null = null;
    for (const r of list) {
      if (!best) best = r;
      else {
        const d = rank(r) - rank(best) || r.createdAt.getTime() - best.createdAt.getTime() || (r.id > best.id ? 1 : -1);
        if (d > 0) best = r;
      }
    }
    return best;
  };
  /** The referrer's tier count for this referral's rewards: its qualified referrals, this one included (a flagged one is not counted yet). */
  const tierCountOf = (r: Referral) => (qualified.get(r.referrerId) ?? 0) + (r.status === "FLAGGED" ? 1 : 0);
  const amountsFor = (count: number) => {
    const tier = cfg.rewardStrategy === "TIERED" ? tiers.find((t) => t.minReferrals <= count) : undefined;
    return tier ?? { referralWei: cfg.referralWei, bonusWei: cfg.bonusWei };
  };
  const plan = (referral: Referral, count: number) => {
    const a = amountsFor(count);
    const list: { participantId: string; kind: "REFERRAL" | "BONUS"; requestedWei: bigint }[] = [];
    if (a.referralWei > 0n) list.push({ participantId: referral.referrerId, kind: "REFERRAL", requestedWei: a.referralWei });
    if (a.bonusWei > 0n) list.push({ participantId: referral.referredId, kind: "BONUS", requestedWei: a.bonusWei });
    return list;
  };

  let at = 0;
  let ended = false;
  const to = (end: number) => {
    for (; !ended && at < Math.min(end, items.length); at++) decideItem();
    out.next = out.outcomes.length;
  };
  /** Decides items[at]; sets `ended` when the run stops before the next item. */
  const decideItem = () => {
    const item = items[at];
    const event = item.event;
    if (event && event.status !== "QUEUED") {
      out.outcomes.push({ key: item.key, kind: "event", eventId: event.id, status: event.status, reason: event.reason, referral: null, referred: null, rewards: [], skipped: true });
      return;
    }
    // A reversal reads and changes stored rewards and the pool: it runs first in a state of its own, and ends it.
    const reversalKind = event ? reversalOf(state, event) : null;
    if (event && reversalKind === "NOT_ALLOWED") {
      const why = EVENT_REASONS.REVERSAL_NOT_ALLOWED;
      out.outcomes.push({ key: item.key, kind: "event", eventId: event.id, status: "REJECTED", reason: why, referral: null, referred: null, rewards: [] });
      out.events.push({ at, id: event.id, referralId: null, status: "REJECTED", reason: why });
      return;
    }
    const reversal = reversalKind === "REVERSE";
    if (reversal && at > 0) return void (ended = true);
    // Commissions: an event that a rule prices in a currency without a usable price waits, untouched (retried later).
    // Only an event that can reach a referral may earn one: a trusted event naming its referral or its referred user;
    // any other is decided at once (it earns no commission), whatever the prices.
    const mayEarn = !!event && !event.untrusted && (!!item.referralId || !!textOrAbsent(item.identity.email) || !!textOrAbsent(item.identity.userId));
    if (event && mayEarn && !reversal && commissions && missingPrice(commissions, eventMoney(event))) {
      const why = COMMISSION_REASONS.PRICE_UNAVAILABLE;
      out.outcomes.push({ key: item.key, kind: "event", eventId: event.id, status: "QUEUED", reason: why, referral: null, referred: null, rewards: [], wait: true });
      out.events.push({ at, id: event.id, referralId: null, status: "QUEUED", reason: why });
      return;
    }
    const fail = (error: AppError) => out.outcomes.push({ key: item.key, kind: "error", eventId: event?.id ?? null, error });
    const halt = opts.haltOnError === true;

    let referrer: Participant | null = null;
    let referred: Participant | null = null;
    let referral: Referral | null = null;
    let created = false;
    if (item.referralId) {
      referral = referrals.get(item.referralId) ?? null;
    } else {
      const click = item.clickId ? state.clicks.get(item.clickId) : undefined;
      const credited = creditingClick(state.clicks, item);
      const byClick = credited ? byId.get(credited.participantId) : undefined;
      if (byClick) {
        referrer = byClick;
      } else if (item.referrer) {
        referrer = referrerOf(item.referrer) ?? null;
        if (!referrer) {
          if (halt) return void (ended = true);
          fail(new AppError("UNKNOWN_REFERRAL_CODE", `No participant has the referral code or handle "${item.referrer}"`));
          return;
        }
      }
      const email = textOrAbsent(item.identity.email);
      const userId = textOrAbsent(item.identity.userId);
      const name = item.identity.name;
      if (email === null || userId === null || ((email || userId) && name !== undefined && name !== null && typeof name !== "string")) {
        if (halt) return void (ended = true);
        fail(new AppError("INTERNAL", "The event's metadata names the referred user with a value that is not text"));
        return;
      }
      if (email || userId) {
        referred = (userId ? byUserId.get(userId) : undefined) ?? (email ? byEmail.get(email) : undefined) ?? null;
        if (referred && !item.untrusted) {
          // participants/service fillMissing: the name follows the latest; identity fields are only
          // filled. Not from a publishable key: anyone can send one, and binding a user id or an
          // email to someone else's participant would take their identity.
          const p = referred;
          let touched = false;
          if (name && name !== p.name) {
            p.name = name as string;
            touched = true;
          }
          if (userId && !p.externalId && !byUserId.has(userId)) {
            p.externalId = userId;
            byUserId.set(userId, p);
            touched = true;
          }
          if (email && !p.email && !byEmail.has(email)) {
            p.email = email;
            byEmail.set(email, p);
            touched = true;
          }
          if (touched) {
            p.updatedAt = now;
            // A participant this run inserts is inserted as it was at its item (its chunk may be written already): later fills are updates.
            out.participantUpdates.set(p.id, p);
          }
        } else if (!referred) {
          referred = {
            id: opts.newId(),
            businessId,
            environment,
            externalId: userId ?? null,
            email: email ?? null,
            name: (name as string | null | undefined) ?? null,
            handle: null,
            referralCode: opts.newCode(),
            walletAddress: null,
            walletFailure: null,
            walletFailedAt: null,
            stripeCustomerId: null,
            walletVerified: false,
            walletVerifiedAt: null,
            createdAt: now,
            updatedAt: now,
          };
          byId.set(referred.id, referred);
          byCode.set(referred.referralCode, referred);
          if (userId) byUserId.set(userId, referred);
          if (email) byEmail.set(email, referred);
          out.participants.push({ at, row: { ...referred } });
        }
      } else if (!event) {
        if (halt) return void (ended = true);
        fail(new AppError("VALIDATION_ERROR", "A participant needs a userId or an email"));
        return;
      }

      // A click never takes an event's customer from the referral they have: without a named
      // referrer, the click's link credits only someone no one referred yet.
      if (referrer && !item.referrer && referred && activeReferralOf(referred.id)) referrer = null;
      if (referrer && referred) {
        const by = referrer;
        const to = referred;
        // The anti-abuse screen of this pair as the item makes it, against the referred user's other referrals.
        const screenPair = () => {
          const others = (ofReferred.get(to.id) ?? []).filter((r) => r.referrerId !== by.id && r.status !== "REJECTED");
          const blocking = others.some((r) => item.untrusted || !r.provisional);
          const shared = (p: Participant) => !!p.walletAddress && state.sharedWallets.has(p.walletAddress);
          const signal = evaluateSignals(signalRules(settings), settings.clickVelocityPerHour, {
            click: click ? { visitorHash: click.visitorHash } : null,
            referrerVisitors: state.referrerVisitors.get(by.id) ?? new Set(),
            visitorClicksThisHour: click?.visitorClicksThisHour ?? 0,
            walletShared: shared(by) || shared(to),
          });
          const made = (madeToday.get(by.id) ?? 0) + (item.untrusted ? (provisionalToday.get(by.id) ?? 0) : 0);
          return { others, s: screen(settings, by, to, blocking, made, signal) };
        };
        // A secret key's referral supersedes the provisional ones of other referrers.
        const supersede = (others: Referral[]) => {
          for (const r of others.filter((x) => x.provisional)) {
            r.status = "REJECTED";
            r.reason = REFERRAL_REASONS.SUPERSEDED;
            changed(r);
            if (r.createdAt >= dayStart) bump(provisionalToday, r.referrerId, -1);
            hook(referralWebhook("referral.rejected", { ...r }));
          }
        };
        const pair = byPair.get(`${by.id}\u0000${to.id}`);
        if (pair) {
          referral = pair;
          if (pair.provisional && !item.untrusted) {
            pair.provisional = false; // confirmed by a secret key
            const cap = settings.maxReferralsPerReferrerPerDay;
            if (pair.status !== "REJECTED") {
              if (pair.createdAt >= dayStart) {
                bump(provisionalToday, pair.referrerId, -1);
                if (cap !== null && (madeToday.get(pair.referrerId) ?? 0) >= cap) {
                  // Confirmed, it counts among the referrer's referrals of the day: past the limit.
                  pair.status = "REJECTED";
                  pair.reason = REFERRAL_REASONS.REFERRER_DAILY_LIMIT;
                  pair.updatedAt = now;
                  hook(referralWebhook("referral.rejected", { ...pair }));
                } else bump(madeToday, pair.referrerId, 1);
              }
            } else if (pair.reason === REFERRAL_REASONS.ALREADY_REFERRED || pair.reason === REFERRAL_REASONS.REFERRER_DAILY_LIMIT) {
              // Rejected while provisional only for what provisional referrals do (another one came
              // first, the publishable keys' daily count): screened again as the secret key's, as
              // if it came first. Any other rejection (a signal, a reviewer's) stands.
              const { others, s: again } = screenPair();
              if (again.status !== "REJECTED") {
                pair.status = again.status;
                pair.reason = again.status === "PENDING" ? null : (again.reason ?? null);
                pair.updatedAt = now;
                if (pair.createdAt >= dayStart) bump(madeToday, pair.referrerId, 1);
                if (again.status === "FLAGGED") hook([referralWebhook("referral.flagged", { ...pair })]);
                supersede(others);
              }
            }
            changed(pair);
            // Told once, with the status it now has (PENDING again for a pair reinstated above).
            hook(referralWebhook("referral.confirmed", { ...pair }));
          }
        } else {
          const { others, s } = screenPair();
          referral = {
            id: opts.newId(),
            businessId,
            environment,
            apiKeyId: item.apiKeyId,
            referrerId: by.id,
            referredId: to.id,
            source: item.source,
            campaign: item.campaign,
            status: s.status,
            reason: s.status === "PENDING" ? null : (s.reason ?? null),
            qualifiedAt: null,
            createdAt: now,
            updatedAt: now,
            provisional: item.untrusted,
            reversedAt: null,
          };
          created = true;
          if (click) out.referralClicks.push({ referralId: referral.id, clickId: click.id });
          referrals.set(referral.id, referral);
          byPair.set(`${by.id}\u0000${to.id}`, referral);
          ofReferred.set(to.id, [...(ofReferred.get(to.id) ?? []), referral]);
          if (s.status !== "REJECTED") bump(item.untrusted ? provisionalToday : madeToday, by.id, 1);
          hook(newReferralWebhooks(referral));
          if (!item.untrusted && s.status !== "REJECTED") supersede(others);
        }
      } else if (referred) {
        referral = activeReferralOf(referred.id);
      }
    }

    if (!event) {
      // A referral apply records the referral only.
      const r = referral!;
      if (created) {
        inserted.add(r.id);
        out.referrals.push({ at, row: { ...r } });
      }
      out.outcomes.push({ key: item.key, kind: "apply", referral: { ...r }, created, referred: { ...referred! } });
      return;
    }

    const rewards: RewardRow[] = [];
    let status: TrackedEvent["status"] = "PROCESSED";
    let reason: string | null = null;
    const newReward = (p: { participantId: string; kind: RewardRow["kind"]; requestedWei: bigint }, r: Referral, d: { status: RewardRow["status"]; amountWei: bigint; reason: string | null }): RewardRow => ({
      id: opts.newId(),
      businessId,
      environment,
      participantId: p.participantId,
      eventId: event.id,
      referralId: r.id,
      kind: p.kind,
      requestedWei: p.requestedWei,
      amountWei: d.amountWei,
      status: d.status,
      reason: d.reason,
      note: null,
      createdAt: now,
      paidAt: d.status === "PAID" ? now : null,
    });
    /** A PAID reward's debit, the day's total and the low-pool alert, in the working copies. */
    const debit = (m: NonNullable<typeof money>, w: RewardRow) => {
      m.balance -= w.amountWei;
      m.paid.set(w.participantId, (m.paid.get(w.participantId) ?? 0n) + w.amountWei);
      out.debits.push({ at, rewardId: w.id, amountWei: w.amountWei, memo: rewardDebitMemo(w.kind, w.amountWei) });
      const crossed = lowPoolCrossing({ businessId, environment }, cfg, m.balance, m.below, now, opts.newId);
      if (crossed) {
        m.below = true;
        out.belowThreshold = true;
        out.alerts.push(...crossed.alerts);
        hook(crossed.webhook);
      }
    };
    const hold = (r: Referral, list: ReturnType<typeof plan>, why: string) => {
      for (const p of list) rewards.push(newReward(p, r, { status: "HELD", amountWei: 0n, reason: why }));
      if (list.length) settledRefs.add(r.id);
      hook(rewards.map((w) => rewardWebhook("reward.created", w)));
    };

    if (reversal) {
      out.outcomes.push({ key: item.key, kind: "event", eventId: event.id, status: "PROCESSED", reason: null, referral: referral && { ...referral }, referred: referred && { ...referred }, rewards, reversal: { referredId: referred?.id ?? null, event } });
      if (created) {
        inserted.add(referral!.id);
        out.referrals.push({ at, row: { ...referral! } });
      }
      out.events.push({ at, id: event.id, referralId: referral?.id ?? null, status: "PROCESSED", reason: null });
      ended = true;
      return;
    }

    if (referral) {
      const r = referral;
      const nameQualifies = cfg.qualifyingEvents.length === 0 || cfg.qualifyingEvents.includes(event.eventName);
      const inWindow = settings.attributionWindowDays === null || event.createdAt.getTime() - r.createdAt.getTime() <= settings.attributionWindowDays * DAY_MS;
      const qualifies = nameQualifies && inWindow && !event.untrusted && !r.provisional;
      const settled = () => r.status === "QUALIFIED" || r.status === "REWARDED" || settledRefs.has(r.id);
      if (r.status === "REJECTED") {
        status = "REJECTED";
        reason = r.reason ?? EVENT_REASONS.REFERRAL_REJECTED;
      } else if (r.status === "FLAGGED") {
        // Held until a reviewer decides; only the first qualifying event carries held one-time
        // rewards. It qualifies the referral pending review (qualifiedAt), so that its events
        // hold the commissions they would earn unflagged (below), and approval pays them.
        status = "FLAGGED";
        reason = r.reason ?? EVENT_REASONS.HELD_FOR_REVIEW;
        if (qualifies && !r.qualifiedAt) {
          r.qualifiedAt = now;
          changed(r);
        }
        if (qualifies && !settled()) hold(r, plan(r, tierCountOf(r)), reason);
      } else if (!nameQualifies) reason = EVENT_REASONS.NOT_A_QUALIFYING_EVENT;
      else if (!inWindow) reason = EVENT_REASONS.ATTRIBUTION_WINDOW_EXPIRED;
      else if (event.untrusted) reason = EVENT_REASONS.UNTRUSTED_EVENT;
      else if (r.provisional) reason = EVENT_REASONS.PROVISIONAL_REFERRAL;
      else if (settled()) reason = EVENT_REASONS.REFERRAL_ALREADY_SETTLED;
      else {
        r.status = "QUALIFIED";
        r.qualifiedAt = now;
        changed(r);
        hook(referralWebhook("referral.qualified", { ...r }));
        qualified.set(r.referrerId, (qualified.get(r.referrerId) ?? 0) + 1);
        const list = plan(r, tierCountOf(r));
        if (settings.holdForReview) {
          status = "FLAGGED";
          reason = EVENT_REASONS.HELD_FOR_REVIEW;
          hold(r, list, reason);
        } else {
          for (const p of list) {
            if (!money) throw new NeedsMoney();
            const d = capPayout(cfg, p.kind, p.requestedWei, money.paid.get(p.participantId) ?? 0n, money.balance);
            const w = newReward(p, r, d);
            settledRefs.add(r.id);
            if (d.status === "PAID") debit(money, w);
            hook(rewardWebhook("reward.created", w));
            rewards.push(w);
          }
          if (rewards.some((w) => w.status === "PAID")) {
            r.status = "REWARDED";
            changed(r);
          }
        }
      }
    }

    // Commissions (rules/commissions.ts): a referral that earnsCommissions earns one reward per
    // matching rule, paid through the same holds, caps, pool and alert as the one-time rewards.
    if (commissions && referral && !event.untrusted && !referral.provisional && earnsCommissions(referral)) {
      const r = referral;
      const count = tierCountOf(r);
      const tierId = tiers.find((t) => t.minReferrals <= count)?.id ?? null;
      // A flagged referral's commissions wait for the review of its flag, as its one-time rewards do.
      const heldFor = r.status === "FLAGGED" ? reason : settings.holdForReview ? EVENT_REASONS.HELD_FOR_REVIEW : null;
      const plans = planCommissions(commissions, commissionCounts, eventMoney(event), r, tierId, now);
      const paidThisEvent = new Map<string, bigint>();
      for (const w of rewards) paidThisEvent.set(w.participantId, (paidThisEvent.get(w.participantId) ?? 0n) + w.amountWei);
      const commission = (p: CommissionPlan, d: { status: RewardRow["status"]; amountWei: bigint; reason: string | null }): RewardRow => ({
        ...newReward({ participantId: p.participantId, kind: "COMMISSION", requestedWei: p.requestedWei }, r, d),
        ruleId: p.rule.id,
        baseAmount: p.baseAmount,
        baseCurrency: p.baseCurrency,
        rate: p.rate,
        rateSource: p.rateSource,
        rateAt: p.rateAt,
      });
      for (const p of plans) {
        let w: RewardRow;
        if (p.refused) w = commission(p, { status: "REFUSED", amountWei: 0n, reason: p.refused });
        else if (heldFor) {
          w = commission(p, { status: "HELD", amountWei: 0n, reason: heldFor });
          status = "FLAGGED";
          reason = heldFor;
        } else {
          if (!money) throw new NeedsMoney();
          const c = commissionCaps(cfg, p.rule.recipient, paidThisEvent.get(p.participantId) ?? 0n);
          w = commission(p, capPayout(c.caps, c.kind, p.requestedWei, money.paid.get(p.participantId) ?? 0n, money.balance));
          if (w.status === "PAID") {
            debit(money, w);
            paidThisEvent.set(p.participantId, (paidThisEvent.get(p.participantId) ?? 0n) + w.amountWei);
          }
        }
        if (w.status !== "REFUSED") commissionCounts.set(countKey(p.rule.id, r.id), (commissionCounts.get(countKey(p.rule.id, r.id)) ?? 0) + 1);
        hook(rewardWebhook("reward.created", w));
        rewards.push(w);
      }
    }

    // The referral's reason (not a qualifying event, already settled) says why no one-time reward
    // was paid; an event that paid a commission earned something, so it carries none.
    if (status === "PROCESSED" && rewards.some((w) => w.status === "PAID")) reason = null;
    if (created) {
      // Inserted as it stands after its own event; later changes are updates.
      inserted.add(referral!.id);
      out.referralUpdates.delete(referral!.id);
      out.referrals.push({ at, row: { ...referral! } });
    }
    for (const w of rewards) out.rewards.push({ at, row: w });
    out.events.push({ at, id: event.id, referralId: referral?.id ?? null, status, reason });
    if (status === "FLAGGED") hook(trackedEventWebhook("event.flagged", { ...event, referralId: referral?.id ?? null, status, reason, processedAt: now, updatedAt: now }));
    out.outcomes.push({ key: item.key, kind: "event", eventId: event.id, status, reason, referral: referral && { ...referral }, referred: referred && { ...referred }, rewards });
  };
  return { out, to };
}
