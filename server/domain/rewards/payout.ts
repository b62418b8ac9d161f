// Paying rewards outside the event pipeline (a manual grant, a release after review) under the
// rules core's caps and pool (rules/pay.ts capPayout, rules/commissions.ts commissionCaps). The
// caller holds the pool lock (ledger/lockPool) for the whole transaction, so the daily total and
// the balance read here cannot change underneath it. Outcomes are never silent: a capped reward
// records the cap in `reason`, an unpayable one is REFUSED with its reason.
import type { Tx } from "../../db/client";
import type { Reward } from "../../db/generated";
import { toBigInt, weiToDb } from "../../shared/money";
import type { Environment } from "../../shared/environment";
import type { EffectiveConfig } from "../effective-config/load";
import { getBalanceWei, type LockedPool } from "../ledger/service";
import { debitLedger } from "../rules/debit";
import { capPayout, rewardDebitMemo, type PayoutCaps, type PayoutDecision, type RewardKind } from "../rules/pay";
import { commissionCaps } from "../rules/commissions";
import { utcDayStart } from "../rules/screen";
import { ruleConfigOf } from "../rules/config";
import { readAsset } from "../assets/read";
import type { Asset } from "../../shared/asset";
import { emitWebhookEvent, rewardWebhook } from "../webhooks/emit";

/** Reads what the participant was paid today (UTC) and the pool balance, then capPayout under `caps`. Reads only; the caller writes. */
async function decidePayout(
  tx: Tx,
  caps: PayoutCaps,
  p: { businessId: string; environment: Environment; participantId: string; kind: RewardKind; requestedWei: bigint; now: Date },
): Promise<PayoutDecision> {
  let paidToday = 0n;
  if (caps.maxPerDayWei !== null) {
    const paid = await tx.reward.aggregate({
      where: { participantId: p.participantId, status: "PAID", paidAt: { gte: utcDayStart(p.now) } },
      _sum: { amountWei: true },
    });
    paidToday = toBigInt(paid._sum.amountWei ?? 0);
  }
  return capPayout(caps, p.kind, p.requestedWei, paidToday, await getBalanceWei(tx, p.businessId, p.environment));
}

export interface PayInput {
  businessId: string;
  environment: Environment;
  participantId: string;
  kind: RewardKind;
  requestedWei: bigint;
  eventId?: string | null;
  referralId?: string | null;
  note?: string | null;
  now: Date;
}

/** Decides, records the Reward row and, when paid, debits the pool (one ledger entry per reward). */
export async function payReward(tx: Tx, pool: LockedPool, cfg: EffectiveConfig, input: PayInput): Promise<Reward> {
  const asset = await readAsset(tx, input.businessId, input.environment);
  const d = await decidePayout(tx, ruleConfigOf(cfg, asset), input);
  const reward = await tx.reward.create({
    data: {
      businessId: input.businessId,
      environment: input.environment,
      participantId: input.participantId,
      eventId: input.eventId ?? null,
      referralId: input.referralId ?? null,
      kind: input.kind,
      requestedWei: weiToDb(input.requestedWei),
      amountWei: weiToDb(d.amountWei),
      status: d.status,
      reason: d.reason,
      note: input.note ?? null,
      paidAt: d.status === "PAID" ? input.now : null,
    },
  });
  if (d.status === "PAID") await debit(tx, pool, reward, d.amountWei, asset);
  await emitWebhookEvent(tx, rewardWebhook("reward.created", reward, asset)); // webhook
  return reward;
}

/**
 * Pays an event's HELD rewards (after review) in place, in the order given (the caller reads
 * them in the order they were decided: createdAt, id), under the rules as they are now. As in
 * the core (rules/decide.ts), a participant's per-event cap holds across all of their rewards of
 * the event: each reward is capped at what is left of it after what the event already paid them
 * (commissionCaps), this release included.
 */
export async function releaseHeldRewards(tx: Tx, pool: LockedPool, cfg: EffectiveConfig, eventId: string, held: readonly Reward[], now: Date): Promise<Reward[]> {
  if (!held.length) return [];
  const asset = await readAsset(tx, held[0].businessId, held[0].environment);
  const caps = ruleConfigOf(cfg, asset);
  const paid = await tx.reward.groupBy({ by: ["participantId"], where: { eventId, status: "PAID" }, _sum: { amountWei: true } });
  const paidThisEvent = new Map(paid.map((p) => [p.participantId, toBigInt(p._sum.amountWei ?? 0)]));
  const referrerOf = new Map<string, string | null>();
  const out: Reward[] = [];
  for (const r of held) {
    const recipient = await recipientOf(tx, r, referrerOf);
    const c = recipient ? commissionCaps(caps, recipient, paidThisEvent.get(r.participantId) ?? 0n) : { caps, kind: r.kind };
    const d = await decidePayout(tx, c.caps, { businessId: r.businessId, environment: r.environment, participantId: r.participantId, kind: c.kind, requestedWei: toBigInt(r.requestedWei), now });
    const reward = await tx.reward.update({
      where: { id: r.id },
      data: { status: d.status, amountWei: weiToDb(d.amountWei), reason: d.reason, paidAt: d.status === "PAID" ? now : null },
    });
    if (d.status === "PAID") {
      await debit(tx, pool, reward, d.amountWei, asset);
      paidThisEvent.set(r.participantId, (paidThisEvent.get(r.participantId) ?? 0n) + d.amountWei);
    }
    out.push(reward);
  }
  return out;
}

/** Whose per-event cap a reward counts against: the referrer's (REFERRAL), the referred user's (BONUS), a commission's by its recipient; none for MANUAL. */
async function recipientOf(tx: Tx, r: Reward, referrerOf: Map<string, string | null>): Promise<"REFERRER" | "REFERRED" | null> {
  if (r.kind === "REFERRAL") return "REFERRER";
  if (r.kind === "BONUS") return "REFERRED";
  if (r.kind !== "COMMISSION") return null;
  if (r.referralId && !referrerOf.has(r.referralId)) {
    const referral = await tx.referral.findUnique({ where: { id: r.referralId }, select: { referrerId: true } });
    referrerOf.set(r.referralId, referral?.referrerId ?? null);
  }
  return r.referralId && referrerOf.get(r.referralId) === r.participantId ? "REFERRER" : "REFERRED";
}

function debit(tx: Tx, pool: LockedPool, reward: Reward, amountWei: bigint, asset: Asset) {
  return debitLedger(tx, pool, {
    businessId: reward.businessId,
    environment: reward.environment,
    amountWei,
    kind: "REWARD",
    rewardId: reward.id,
    memo: rewardDebitMemo(reward.kind, amountWei, asset),
  });
}
