// The rules core: what a run of events (or referral applies) of one business and environment
// does, decided in arrival order over a loaded state (rules/state.ts), with no database. Every
// path into processing (synchronous /track, the dashboard's manual event, SDK_REFERRAL_APPLY,
// the worker's batches, the engine's settleEvent) loads a state, calls decide and writes what it
// returns (rules/write.ts); one event is a batch of one. An item goes through four steps over
// one state object (decide-run.ts), each in a file of its own:
//   - who the parties are (decide-parties.ts): the referrer (link click, code or handle) and the
//     referred user (found, created, or filled in);
//   - the referral and its screen (decide-referral.ts): the pair's own, or a new one through the
//     anti-abuse screen (rules/screen.ts); without a referrer, the referred user's active
//     referral. Referrals created through a publishable key are provisional: they block no
//     secret-key referral, which supersedes them, and are confirmed when the same pair comes
//     with a secret key;
//   - settling and paying once (decide-settle.ts): the referral's first qualifying event pays
//     REFERRAL and BONUS (by tier or config), held for review or paid under the caps and the
//     pool (rules/pay.ts) with the low-pool alert;
//   - commissions (decide-commissions.ts): one reward per matching rule, paid the same way.
// A reversal event (config reversalEvents) reverses the referral's rewards instead (the writer).
import type { Participant, Referral, TrackedEvent } from "../../db/generated";
import type { AppError } from "../../shared/errors";
import type { Environment } from "../../shared/environment";
import type { SubscribedEndpoint } from "../webhooks/emit";
import { trackedEventWebhook, type WebhookEvent } from "../webhooks/events";
import type { SignalSettings } from "../referral-settings/fraud-signals";
import type { AlertRow, PayoutCaps, PoolAlertConfig } from "./pay";
import type { Asset } from "../../shared/asset";
import type { ScreenSettings } from "./screen";
import type { CommissionState } from "./commissions";
import { earnCommissions } from "./decide-commissions";
import { findParties, textOrAbsent } from "./decide-parties";
import { findReferral } from "./decide-referral";
import { EVENT_REASONS, hook, newRun, type DecideRun, type ItemCtx } from "./decide-run";
import { settle, type EventVerdict } from "./decide-settle";
import { COMMISSION_REASONS, eventMoney, missingPrice } from "./commissions";

export { creditingClick } from "./decide-parties";
export { NeedsMoney } from "./decide-run";

export interface RuleConfig extends PayoutCaps, PoolAlertConfig {
  rewardStrategy: "FIXED" | "TIERED";
  referralWei: bigint;
  bonusWei: bigint;
  /** Empty: every event qualifies. */
  qualifyingEvents: readonly string[];
  reversalEvents: readonly string[];
  /** No customer bonus to a referred customer without a wallet (rules/bonus-wallet.ts); absent: false. */
  bonusRequiresWallet?: boolean;
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
  /** The environment's asset (the run's emails state their amounts in it). */
  asset: Asset;
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

export interface DecideOptions {
  newId: () => string;
  newCode: () => string;
  /** Stop before an item that fails (the worker's batch runs it alone, where it fails as a job). */
  haltOnError?: boolean;
}

/** Metadata identity fields: absent when falsy (as always), text, or malformed. */
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
  const run = newRun(state, now, opts);
  const to = (end: number) => {
    for (; !run.ended && run.at < Math.min(end, items.length); run.at++) decideItem(run, items[run.at]);
    run.out.next = run.out.outcomes.length;
  };
  return { out: run.out, to };
}

/**
 * An event decided before its parties are looked at: one already decided (skipped), a reversal
 * without the scope, one waiting for a price. True when the item is answered (or the run ends
 * before it: a reversal runs first in a state of its own).
 */
function decidedUpFront(run: DecideRun, item: RuleItem, reversalKind: "REVERSE" | "NOT_ALLOWED" | null): boolean {
  const { event } = item;
  const { out, at } = run;
  if (!event) return false;
  if (event.status !== "QUEUED") {
    out.outcomes.push({ key: item.key, kind: "event", eventId: event.id, status: event.status, reason: event.reason, referral: null, referred: null, rewards: [], skipped: true });
    return true;
  }
  if (reversalKind === "NOT_ALLOWED") {
    const why = EVENT_REASONS.REVERSAL_NOT_ALLOWED;
    out.outcomes.push({ key: item.key, kind: "event", eventId: event.id, status: "REJECTED", reason: why, referral: null, referred: null, rewards: [] });
    out.events.push({ at, id: event.id, referralId: null, status: "REJECTED", reason: why });
    return true;
  }
  const reversal = reversalKind === "REVERSE";
  if (reversal && at > 0) {
    run.ended = true;
    return true;
  }
  // Commissions: an event that a rule prices in a currency without a usable price waits, untouched (retried later).
  // Only an event that can reach a referral may earn one: a trusted event naming its referral or its referred user;
  // any other is decided at once (it earns no commission), whatever the prices.
  const mayEarn = !event.untrusted && (!!item.referralId || !!textOrAbsent(item.identity.email) || !!textOrAbsent(item.identity.userId));
  if (mayEarn && !reversal && run.commissions && missingPrice(run.commissions, eventMoney(event))) {
    const why = COMMISSION_REASONS.PRICE_UNAVAILABLE;
    out.outcomes.push({ key: item.key, kind: "event", eventId: event.id, status: "QUEUED", reason: why, referral: null, referred: null, rewards: [], wait: true });
    out.events.push({ at, id: event.id, referralId: null, status: "QUEUED", reason: why });
    return true;
  }
  return false;
}

/** A new referral is inserted as it stands after its item; later changes are updates. */
function insertCreated(run: DecideRun, ctx: ItemCtx) {
  if (!ctx.created) return;
  const r = ctx.referral!;
  run.inserted.add(r.id);
  run.out.referralUpdates.delete(r.id);
  run.out.referrals.push({ at: run.at, row: { ...r } });
}

/** Decides one item (run.at): its parties, its referral, then for an event its settlement and commissions. */
function decideItem(run: DecideRun, item: RuleItem) {
  const { out, at } = run;
  const event = item.event;
  // A reversal reads and changes stored rewards and the pool: it runs first in a state of its own, and ends it.
  const reversalKind = event ? reversalOf(run.state, event) : null;
  if (decidedUpFront(run, item, reversalKind)) return;
  const ctx: ItemCtx = { item, referrer: null, referred: null, referral: null, created: false };
  if (item.referralId) ctx.referral = run.referrals.get(item.referralId) ?? null;
  else {
    if (!findParties(run, ctx)) return;
    findReferral(run, ctx);
  }
  const { referral, referred } = ctx;
  if (!event) {
    // A referral apply records the referral only.
    insertCreated(run, ctx);
    out.outcomes.push({ key: item.key, kind: "apply", referral: { ...referral! }, created: ctx.created, referred: { ...referred! } });
    return;
  }
  const v: EventVerdict = { event, status: "PROCESSED", reason: null, rewards: [] };
  if (reversalKind === "REVERSE") {
    out.outcomes.push({ key: item.key, kind: "event", eventId: event.id, status: "PROCESSED", reason: null, referral: referral && { ...referral }, referred: referred && { ...referred }, rewards: v.rewards, reversal: { referredId: referred?.id ?? null, event } });
    insertCreated(run, ctx);
    out.events.push({ at, id: event.id, referralId: referral?.id ?? null, status: "PROCESSED", reason: null });
    run.ended = true;
    return;
  }
  if (referral) settle(run, v, referral);
  earnCommissions(run, v, referral);
  // The referral's reason (not a qualifying event, already settled) says why no one-time reward
  // was paid; an event that paid a commission earned something, so it carries none.
  if (v.status === "PROCESSED" && v.rewards.some((w) => w.status === "PAID")) v.reason = null;
  insertCreated(run, ctx);
  for (const w of v.rewards) out.rewards.push({ at, row: w });
  out.events.push({ at, id: event.id, referralId: referral?.id ?? null, status: v.status, reason: v.reason });
  if (v.status === "FLAGGED") hook(run, trackedEventWebhook("event.flagged", { ...event, referralId: referral?.id ?? null, status: v.status, reason: v.reason, processedAt: run.now, updatedAt: run.now }));
  out.outcomes.push({ key: item.key, kind: "event", eventId: event.id, status: v.status, reason: v.reason, referral: referral && { ...referral }, referred: referred && { ...referred }, rewards: v.rewards });
}
