// An in-memory model of what rules/state.ts reads and rules/write.ts writes, for the rules core's
// pure tests: a store of participants, referrals, rewards and the pool; `stateOf` loads a state
// from it as loadState does from the database, `apply` writes decisions into it as writeDecisions
// does. Deciding a run at once and deciding it item by item through the store must agree.
// Prisma's Decimal from its runtime package: the pure layer runs without a generated client.
import { Decimal } from "@prisma/client/runtime/client";
import type { Participant, Referral, TrackedEvent } from "../../server/db/generated";
import type { AlertRow } from "../../server/domain/rules/pay";
import { utcDayStart } from "../../server/domain/rules/screen";
import { isQualified } from "../../server/shared/referral-rules";
import { ETH_ASSET } from "../../server/shared/asset";
import type { Decisions, RewardRow, RuleConfig, RuleItem, RuleSettings, RulesState, TierRule } from "../../server/domain/rules/decide";

// ── Fixtures: dates are fixed, ages are in days before NOW, which is shortly before a UTC midnight ──

export const NOW = new Date("2026-03-10T23:59:30.000Z");
export const DAY = 86_400_000;
const E = 10n ** 18n;
export const milli = (n: number) => (BigInt(n) * E) / 1000n;

export function ids(prefix = "") {
  let n = 0;
  return { newId: () => `${prefix}id${String(++n).padStart(5, "0")}`, newCode: () => `C${String(++n).padStart(7, "0")}` };
}

export const baseConfig = (o: Partial<RuleConfig> = {}): RuleConfig => ({
  asset: ETH_ASSET,
  rewardStrategy: "FIXED",
  referralWei: milli(10),
  bonusWei: milli(4),
  qualifyingEvents: [],
  reversalEvents: [],
  maxReferralPerEventWei: null,
  maxBonusPerEventWei: null,
  maxPerDayWei: null,
  lowPoolWei: 0n,
  autoRefill: false,
  autoRefillWei: 0n,
  ...o,
});

export const baseSettings = (o: Partial<RuleSettings> = {}): RuleSettings => ({
  blockSelfReferral: true,
  oneReferralPerReferredUser: true,
  maxReferralsPerReferrerPerDay: null,
  blockedEmailDomains: [],
  blockDisposableEmails: false,
  holdForReview: false,
  attributionWindowDays: null,
  sameVisitorRule: "OFF",
  clickVelocityRule: "OFF",
  walletSharedRule: "OFF",
  noClickRule: "OFF",
  clickVelocityPerHour: 20,
  ...o,
});

export function person(id: string, o: Partial<Participant> = {}): Participant {
  return { id, businessId: "b", environment: "TEST", externalId: null, email: null, name: null, handle: null, referralCode: id.toUpperCase(), walletAddress: null, walletFailure: null, walletFailedAt: null, walletVerified: false, walletVerifiedAt: null, stripeCustomerId: null, createdAt: new Date(NOW.getTime() - 30 * DAY), updatedAt: NOW, ...o };
}

export function referral(id: string, referrerId: string, referredId: string, o: Partial<Referral> = {}): Referral {
  return { id, businessId: "b", environment: "TEST", apiKeyId: null, referrerId, referredId, source: null, campaign: null, status: "PENDING", reason: null, qualifiedAt: null, createdAt: new Date(NOW.getTime() - DAY), updatedAt: NOW, provisional: false, reversedAt: null, ...o };
}

export function store(o: Partial<Store> = {}): Store {
  return { businessId: "b", environment: "TEST", cfg: baseConfig(), settings: baseSettings(), tiers: [], hooks: true, participants: [person("ann", { email: "ann@example.com" })], referrals: [], rewards: [], balanceWei: E, belowThreshold: false, alerts: [], ...o };
}

let eventN = 0;
/** An event `ageDays` before NOW (its createdAt), from a secret key unless untrusted. */
export function event(o: { name?: string; referrer?: string | null; email?: unknown; userId?: unknown; userName?: unknown; untrusted?: boolean; ageDays?: number; referralId?: string }): RuleItem {
  const id = `ev${++eventN}`;
  const e: TrackedEvent = {
    id,
    businessId: "b",
    environment: "TEST",
    apiKeyId: null,
    eventName: o.name ?? "purchase",
    referrer: o.referrer ?? null,
    metadata: {},
    campaign: null,
    source: null,
    idempotencyKey: null,
    untrusted: o.untrusted === true,
    clickId: null,
    amount: null,
    currency: null,
    refundedAmount: new Decimal(0),
    status: "QUEUED",
    reason: null,
    referralId: null,
    processedAt: null,
    createdAt: new Date(NOW.getTime() - (o.ageDays ?? 0) * DAY),
    updatedAt: NOW,
  };
  return { key: id, apiKeyId: null, untrusted: o.untrusted === true, event: e, referrer: o.referrer ?? null, identity: { email: o.email, userId: o.userId, name: o.userName }, source: null, campaign: null, referralId: o.referralId };
}


export interface Store {
  businessId: string;
  environment: "TEST" | "LIVE";
  cfg: RuleConfig;
  settings: RuleSettings;
  tiers: TierRule[];
  hooks: boolean;
  participants: Participant[];
  referrals: Referral[];
  rewards: RewardRow[];
  balanceWei: bigint;
  belowThreshold: boolean;
  alerts: AlertRow[];
}

export function stateOf(s: Store, items: readonly RuleItem[], now: Date): RulesState {
  const refs = new Set(items.filter((i) => !i.referralId).map((i) => i.referrer?.trim()).filter((v): v is string => !!v && v.length <= 64));
  const named = (p: Participant) =>
    [...refs].some((v) => p.referralCode === v.toUpperCase() || p.handle === v.toLowerCase()) ||
    items.some((i) => !i.referralId && (typeof i.identity.email === "string" && i.identity.email && p.email === i.identity.email) || (typeof i.identity.userId === "string" && i.identity.userId && p.externalId === i.identity.userId));
  const participants = s.participants.filter(named).map((p) => ({ ...p }));
  const ids = new Set(participants.map((p) => p.id));
  const forced = new Set(items.map((i) => i.referralId).filter(Boolean));
  const referrals = s.referrals.filter((r) => ids.has(r.referredId) || forced.has(r.id)).map((r) => ({ ...r }));
  const day = utcDayStart(now);
  const count = (pred: (r: Referral) => boolean) => {
    const m = new Map<string, number>();
    for (const r of s.referrals) if (pred(r)) m.set(r.referrerId, (m.get(r.referrerId) ?? 0) + 1);
    return m;
  };
  const today = count((r) => ids.has(r.referrerId) && r.status !== "REJECTED" && r.createdAt >= day && !r.provisional);
  const provisionalToday = count((r) => ids.has(r.referrerId) && r.status !== "REJECTED" && r.createdAt >= day && r.provisional);
  const qualified = count((r) => isQualified(r.status));
  const paid = new Map<string, bigint>();
  for (const w of s.rewards) if (w.status === "PAID" && w.paidAt && w.paidAt >= day) paid.set(w.participantId, (paid.get(w.participantId) ?? 0n) + w.amountWei);
  return {
    businessId: s.businessId,
    environment: s.environment,
    cfg: s.cfg,
    settings: s.settings,
    tiers: s.tiers,
    hooks: s.hooks,
    participants,
    referrals,
    settledReferrals: new Set(s.rewards.filter((w) => w.referralId && (w.kind === "REFERRAL" || w.kind === "BONUS")).map((w) => w.referralId!)),
    referralsToday: today,
    provisionalToday,
    qualified,
    clicks: new Map(),
    referrerVisitors: new Map(),
    sharedWallets: new Set(),
    money: { balanceWei: s.balanceWei, belowThreshold: s.belowThreshold, paidToday: paid },
  };
}

export function apply(s: Store, d: Decisions): void {
  for (const { row } of d.participants) s.participants.push({ ...row });
  for (const p of d.participantUpdates.values()) Object.assign(s.participants.find((x) => x.id === p.id)!, p);
  for (const { row } of d.referrals) s.referrals.push({ ...row });
  for (const r of d.referralUpdates.values()) Object.assign(s.referrals.find((x) => x.id === r.id)!, r);
  for (const { row } of d.rewards) s.rewards.push({ ...row });
  for (const x of d.debits) s.balanceWei -= x.amountWei;
  if (d.belowThreshold !== null) s.belowThreshold = d.belowThreshold;
  s.alerts.push(...d.alerts);
}
