// Commissions in a run of the rules core (rules/decide.ts): a referral that earnsCommissions
// earns one reward per matching rule (rules/commissions.ts planCommissions), held while the
// referral is flagged or holdForReview is on, else paid through the same caps, pool and alert as
// the one-time rewards; a participant's per-event cap covers all their rewards of the event.
import { tierFor } from "../../shared/referral-rules";
import { rewardWebhook } from "../webhooks/events";
import type { Referral } from "../../db/generated";
import type { RewardRow } from "./decide";
import { earnsCommissions, EVENT_REASONS, hook, tierCountOf, type DecideRun } from "./decide-run";
import { debit, moneyOf, newReward, type EventVerdict } from "./decide-settle";
import { commissionCaps, countKey, eventMoney, planCommissions, type CommissionPlan } from "./commissions";
import { capPayout } from "./pay";

type RewardDecision = { status: RewardRow["status"]; amountWei: bigint; reason: string | null };

const commissionRow = (run: DecideRun, v: EventVerdict, r: Referral, p: CommissionPlan, d: RewardDecision): RewardRow => ({
  ...newReward(run, v, { participantId: p.participantId, kind: "COMMISSION", requestedWei: p.requestedWei }, r, d),
  ruleId: p.rule.id,
  baseAmount: p.baseAmount,
  baseCurrency: p.baseCurrency,
  rate: p.rate,
  rateSource: p.rateSource,
  rateAt: p.rateAt,
});

/** The commissions the event earns on its referral, after its one-time rewards (v.rewards). */
export function earnCommissions(run: DecideRun, v: EventVerdict, r: Referral | null) {
  const { commissions, state } = run;
  const { event } = v;
  if (!commissions || !r || event.untrusted || r.provisional || !earnsCommissions(r)) return;
  const tierId = tierFor(state.tiers, tierCountOf(run, r))?.id ?? null;
  // A flagged referral's commissions wait for the review of its flag, as its one-time rewards do.
  const heldFor = r.status === "FLAGGED" ? v.reason : state.settings.holdForReview ? EVENT_REASONS.HELD_FOR_REVIEW : null;
  const plans = planCommissions(commissions, run.commissionCounts, eventMoney(event), r, tierId, run.now);
  const paidThisEvent = new Map<string, bigint>();
  for (const w of v.rewards) paidThisEvent.set(w.participantId, (paidThisEvent.get(w.participantId) ?? 0n) + w.amountWei);
  for (const p of plans) {
    let w: RewardRow;
    if (p.refused) w = commissionRow(run, v, r, p, { status: "REFUSED", amountWei: 0n, reason: p.refused });
    else if (heldFor) {
      w = commissionRow(run, v, r, p, { status: "HELD", amountWei: 0n, reason: heldFor });
      v.status = "FLAGGED";
      v.reason = heldFor;
    } else {
      const money = moneyOf(run);
      const c = commissionCaps(state.cfg, p.rule.recipient, paidThisEvent.get(p.participantId) ?? 0n);
      w = commissionRow(run, v, r, p, capPayout(c.caps, c.kind, p.requestedWei, money.paid.get(p.participantId) ?? 0n, money.balance));
      if (w.status === "PAID") {
        debit(run, w);
        paidThisEvent.set(p.participantId, (paidThisEvent.get(p.participantId) ?? 0n) + w.amountWei);
      }
    }
    if (w.status !== "REFUSED") run.commissionCounts.set(countKey(p.rule.id, r.id), (run.commissionCounts.get(countKey(p.rule.id, r.id)) ?? 0) + 1);
    hook(run, rewardWebhook("reward.created", w, state.cfg.asset));
    v.rewards.push(w);
  }
}
