// The one state object of a run of the rules core (rules/decide.ts): the working copies of what
// the loaded state holds (participants, referrals, the day's counts, the money), the rows decided
// so far, and the small rules every step reads (the tier count, the one-time rewards' plan). What
// earlier items decided is what later ones see. The steps (decide-parties, decide-referral,
// decide-settle, decide-commissions) read and change it; none keeps state of its own.
import type { Participant, Referral } from "../../db/generated";
import { isQualified, tierFor } from "../../shared/referral-rules";
import type { WebhookEvent } from "../webhooks/events";
import type { CommissionState } from "./commissions";
import type { DecideOptions, Decisions, RuleItem, RulesState } from "./decide";
import { utcDayStart } from "./screen";
import { bonusGrantable } from "./bonus-wallet";

export const EVENT_REASONS = {
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

/** Thrown when a decision pays and the state has no money read yet: load it under the pool lock and decide again. */
export class NeedsMoney extends Error {
  constructor() {
    super("the rules need the pool balance and the daily totals");
  }
}

/** The pool as the run moves it: balance, below-threshold flag, paid today per participant. */
export interface RunMoney {
  balance: bigint;
  below: boolean;
  paid: Map<string, bigint>;
}

export interface DecideRun {
  state: RulesState;
  now: Date;
  opts: DecideOptions;
  out: Decisions;
  byId: Map<string, Participant>;
  byEmail: Map<string, Participant>;
  byUserId: Map<string, Participant>;
  /** Codes and handles are unique in a business and environment (and never change here). */
  byCode: Map<string, Participant>;
  byHandle: Map<string, Participant>;
  referrals: Map<string, Referral>;
  byPair: Map<string, Referral>;
  ofReferred: Map<string, Referral[]>;
  /** Referrals inserted by an item already decided. */
  inserted: Set<string>;
  loaded: Set<string>;
  settledRefs: Set<string>;
  madeToday: Map<string, number>;
  provisionalToday: Map<string, number>;
  qualified: Map<string, number>;
  dayStart: Date;
  money: RunMoney | null;
  commissions: CommissionState | null;
  commissionCounts: Map<string, number>;
  /** The index of the item being decided. */
  at: number;
  /** The run stops before the next item (a failing item with haltOnError, a reversal). */
  ended: boolean;
}

/** What one item has found so far: its parties and its referral. */
export interface ItemCtx {
  item: RuleItem;
  referrer: Participant | null;
  referred: Participant | null;
  referral: Referral | null;
  /** The referral is new, made by this item. */
  created: boolean;
}

export const pairKey = (referrerId: string, referredId: string) => `${referrerId}\u0000${referredId}`;

export function newRun(state: RulesState, now: Date, opts: DecideOptions): DecideRun {
  const people: Participant[] = state.participants.map((p) => ({ ...p }));
  const referrals = new Map(state.referrals.map((r) => [r.id, { ...r }]));
  const ofReferred = new Map<string, Referral[]>();
  for (const r of referrals.values()) ofReferred.set(r.referredId, [...(ofReferred.get(r.referredId) ?? []), r]);
  const commissions = state.commissions && state.commissions.rules.length ? state.commissions : null;
  return {
    state,
    now,
    opts,
    out: {
      businessId: state.businessId,
      environment: state.environment,
      asset: state.cfg.asset,
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
    },
    byId: new Map(people.map((p) => [p.id, p])),
    byEmail: new Map(people.filter((p) => p.email).map((p) => [p.email!, p])),
    byUserId: new Map(people.filter((p) => p.externalId).map((p) => [p.externalId!, p])),
    byCode: new Map(people.map((p) => [p.referralCode, p])),
    byHandle: new Map(people.filter((p) => p.handle).map((p) => [p.handle!, p])),
    referrals,
    byPair: new Map([...referrals.values()].map((r) => [pairKey(r.referrerId, r.referredId), r])),
    ofReferred,
    inserted: new Set(),
    loaded: new Set(state.referrals.map((r) => r.id)),
    settledRefs: new Set(state.settledReferrals),
    madeToday: new Map(state.referralsToday),
    provisionalToday: new Map(state.provisionalToday ?? []),
    qualified: new Map(state.qualified),
    dayStart: utcDayStart(now),
    money: state.money ? { balance: state.money.balanceWei, below: state.money.belowThreshold, paid: new Map(state.money.paidToday) } : null,
    commissions,
    commissionCounts: new Map(commissions?.counts ?? []),
    at: 0,
    ended: false,
  };
}

/** Webhook events are built only when some enabled endpoint exists. */
export function hook(run: DecideRun, w: WebhookEvent | WebhookEvent[]) {
  if (run.state.hooks) run.out.webhooks.push(...(Array.isArray(w) ? w : [w]));
}

/** A referral changed: stamped, and written as an update when it exists already (loaded, or inserted by an earlier item). */
export function changed(run: DecideRun, r: Referral) {
  r.updatedAt = run.now;
  if (run.inserted.has(r.id) || run.loaded.has(r.id)) run.out.referralUpdates.set(r.id, r);
}

/** A day's count moved by `by`, never below zero. */
export const bump = (m: Map<string, number>, id: string, by: number) => m.set(id, Math.max(0, (m.get(id) ?? 0) + by));

/** The referred user's referral an event without a referrer belongs to: confirmed before provisional, newest first; a rejected one only when no other exists. */
export function activeReferralOf(run: DecideRun, referredId: string): Referral | null {
  const list = run.ofReferred.get(referredId) ?? [];
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
}

/** The referrer's tier count for this referral's rewards: its qualified referrals, this one included (a flagged one is not counted yet). */
export const tierCountOf = (run: DecideRun, r: Referral) => (run.qualified.get(r.referrerId) ?? 0) + (r.status === "FLAGGED" ? 1 : 0);

/** A one-time reward to grant: REFERRAL to the referrer, BONUS to the referred user. */
export interface OneTimePlan {
  participantId: string;
  kind: "REFERRAL" | "BONUS";
  requestedWei: bigint;
}

/** The one-time rewards of a referral settled at this tier count: by tier (TIERED) or by config; a zero amount is no reward. */
export function planOneTime(run: DecideRun, referral: Referral, count: number): OneTimePlan[] {
  const { cfg, tiers } = run.state;
  const a = (cfg.rewardStrategy === "TIERED" ? tierFor(tiers, count) : null) ?? { referralWei: cfg.referralWei, bonusWei: cfg.bonusWei };
  const list: OneTimePlan[] = [];
  if (a.referralWei > 0n) list.push({ participantId: referral.referrerId, kind: "REFERRAL", requestedWei: a.referralWei });
  if (a.bonusWei > 0n && bonusGrantable(cfg, run.byId.get(referral.referredId))) list.push({ participantId: referral.referredId, kind: "BONUS", requestedWei: a.bonusWei });
  return list;
}

/**
 * A referral whose events earn commissions: qualified (this event may have qualified it), or
 * qualified while flagged (its commissions are then held for the review); never one rejected,
 * provisional-only or reversed as a whole.
 */
export const earnsCommissions = (r: Pick<Referral, "status" | "qualifiedAt" | "reversedAt">) => !r.reversedAt && (isQualified(r.status) || (r.status === "FLAGGED" && r.qualifiedAt !== null));
