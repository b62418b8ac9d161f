// Settling a referral and paying once (rules/decide.ts): an event qualifies its referral when its
// name qualifies, it falls within the attribution window, it is trusted and the referral is
// confirmed; a referral is settled once, by its first qualifying event: REFERRAL → the referrer,
// BONUS → the referred user (decide-run planOneTime), held for review when the referral is
// FLAGGED or holdForReview is on, otherwise paid under the caps and the pool (rules/pay.ts) with
// the low-pool alert. A FLAGGED referral's first qualifying event sets its qualifiedAt.
import type { Referral, TrackedEvent } from "../../db/generated";
import { isQualified } from "../../shared/referral-rules";
import { referralWebhook, rewardWebhook } from "../webhooks/events";
import type { RewardRow } from "./decide";
import { changed, EVENT_REASONS, hook, NeedsMoney, planOneTime, tierCountOf, type DecideRun, type OneTimePlan, type RunMoney } from "./decide-run";
import { capPayout, lowPoolCrossing, rewardDebitMemo } from "./pay";

const DAY_MS = 86_400_000;

/** What an event comes to so far: its status, its reason and the rewards it grants. */
export interface EventVerdict {
  event: TrackedEvent;
  status: TrackedEvent["status"];
  reason: string | null;
  rewards: RewardRow[];
}

type RewardDecision = { status: RewardRow["status"]; amountWei: bigint; reason: string | null };

export function newReward(run: DecideRun, v: EventVerdict, p: { participantId: string; kind: RewardRow["kind"]; requestedWei: bigint }, r: Referral, d: RewardDecision): RewardRow {
  const { now } = run;
  return {
    id: run.opts.newId(),
    businessId: run.state.businessId,
    environment: run.state.environment,
    participantId: p.participantId,
    eventId: v.event.id,
    referralId: r.id,
    kind: p.kind,
    requestedWei: p.requestedWei,
    amountWei: d.amountWei,
    status: d.status,
    reason: d.reason,
    note: null,
    createdAt: now,
    paidAt: d.status === "PAID" ? now : null,
  };
}

/** The money, or NeedsMoney when the state has none read yet. */
export function moneyOf(run: DecideRun): RunMoney {
  if (!run.money) throw new NeedsMoney();
  return run.money;
}

/** A PAID reward's debit, the day's total and the low-pool alert, in the working copies. */
export function debit(run: DecideRun, w: RewardRow) {
  const m = moneyOf(run);
  const { businessId, environment, cfg } = run.state;
  const { out } = run;
  m.balance -= w.amountWei;
  m.paid.set(w.participantId, (m.paid.get(w.participantId) ?? 0n) + w.amountWei);
  out.debits.push({ at: run.at, rewardId: w.id, amountWei: w.amountWei, memo: rewardDebitMemo(w.kind, w.amountWei, cfg.asset) });
  const crossed = lowPoolCrossing({ businessId, environment }, cfg, m.balance, m.below, run.now, run.opts.newId);
  if (crossed) {
    m.below = true;
    out.belowThreshold = true;
    out.alerts.push(...crossed.alerts);
    hook(run, crossed.webhook);
  }
}

function hold(run: DecideRun, v: EventVerdict, r: Referral, list: OneTimePlan[], why: string) {
  for (const p of list) v.rewards.push(newReward(run, v, p, r, { status: "HELD", amountWei: 0n, reason: why }));
  if (list.length) run.settledRefs.add(r.id);
  hook(run, v.rewards.map((w) => rewardWebhook("reward.created", w, run.state.cfg.asset)));
}

/** The one-time rewards of a referral this event qualifies, paid under the caps and the pool. */
function payOneTime(run: DecideRun, v: EventVerdict, r: Referral, list: OneTimePlan[]) {
  const { cfg } = run.state;
  for (const p of list) {
    const money = moneyOf(run);
    const d = capPayout(cfg, p.kind, p.requestedWei, money.paid.get(p.participantId) ?? 0n, money.balance);
    const w = newReward(run, v, p, r, d);
    run.settledRefs.add(r.id);
    if (d.status === "PAID") debit(run, w);
    hook(run, rewardWebhook("reward.created", w, cfg.asset));
    v.rewards.push(w);
  }
  if (v.rewards.some((w) => w.status === "PAID")) {
    r.status = "REWARDED";
    changed(run, r);
  }
}

/** An event on its referral: rejected, held while flagged, not qualifying (with why), or the referral's first qualifying event, which settles it. */
export function settle(run: DecideRun, v: EventVerdict, r: Referral) {
  const { cfg, settings } = run.state;
  const { event } = v;
  const nameQualifies = cfg.qualifyingEvents.length === 0 || cfg.qualifyingEvents.includes(event.eventName);
  const inWindow = settings.attributionWindowDays === null || event.createdAt.getTime() - r.createdAt.getTime() <= settings.attributionWindowDays * DAY_MS;
  const qualifies = nameQualifies && inWindow && !event.untrusted && !r.provisional;
  const settled = () => isQualified(r.status) || run.settledRefs.has(r.id);
  if (r.status === "REJECTED") {
    v.status = "REJECTED";
    v.reason = r.reason ?? EVENT_REASONS.REFERRAL_REJECTED;
  } else if (r.status === "FLAGGED") {
    // Held until a reviewer decides; only the first qualifying event carries held one-time
    // rewards. It qualifies the referral pending review (qualifiedAt), so that its events
    // hold the commissions they would earn unflagged (decide-commissions), and approval pays them.
    v.status = "FLAGGED";
    v.reason = r.reason ?? EVENT_REASONS.HELD_FOR_REVIEW;
    if (qualifies && !r.qualifiedAt) {
      r.qualifiedAt = run.now;
      changed(run, r);
    }
    if (qualifies && !settled()) hold(run, v, r, planOneTime(run, r, tierCountOf(run, r)), v.reason);
  } else if (!nameQualifies) v.reason = EVENT_REASONS.NOT_A_QUALIFYING_EVENT;
  else if (!inWindow) v.reason = EVENT_REASONS.ATTRIBUTION_WINDOW_EXPIRED;
  else if (event.untrusted) v.reason = EVENT_REASONS.UNTRUSTED_EVENT;
  else if (r.provisional) v.reason = EVENT_REASONS.PROVISIONAL_REFERRAL;
  else if (settled()) v.reason = EVENT_REASONS.REFERRAL_ALREADY_SETTLED;
  else {
    r.status = "QUALIFIED";
    r.qualifiedAt = run.now;
    changed(run, r);
    hook(run, referralWebhook("referral.qualified", { ...r }));
    run.qualified.set(r.referrerId, (run.qualified.get(r.referrerId) ?? 0) + 1);
    const list = planOneTime(run, r, tierCountOf(run, r));
    if (settings.holdForReview) {
      v.status = "FLAGGED";
      v.reason = EVENT_REASONS.HELD_FOR_REVIEW;
      hold(run, v, r, list, v.reason);
    } else payOneTime(run, v, r, list);
  }
}
