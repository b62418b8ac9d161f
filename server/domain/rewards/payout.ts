// Paying one reward outside the event pipeline (a manual grant, a release after review) under the
// rules core's caps and pool (rules/pay.ts capPayout). The caller holds the pool lock
// (ledger/lockPool) for the whole transaction, so the daily total and the balance read here
// cannot change underneath it. Outcomes are never silent: a capped reward records the cap in
// `reason`, an unpayable one is REFUSED with its reason.
import type { Tx } from "../../db/client";
import type { Reward } from "../../db/generated";
import { toBigInt, weiToDb } from "../../shared/money";
import type { Environment } from "../../shared/environment";
import type { EffectiveConfig } from "../effective-config/load";
import { getBalanceWei, type LockedPool } from "../ledger/service";
import { debitLedger } from "../rules/debit";
import { capPayout, rewardDebitMemo, type PayoutDecision, type RewardKind } from "../rules/pay";
import { utcDayStart } from "../rules/screen";
import { ruleConfigOf } from "../rules/config";
import { emitWebhookEvent, rewardWebhook } from "../webhooks/emit";

/** Reads what the participant was paid today (UTC) and the pool balance, then capPayout. Reads only; the caller writes. */
async function decidePayout(
  tx: Tx,
  cfg: EffectiveConfig,
  p: { businessId: string; environment: Environment; participantId: string; kind: RewardKind; requestedWei: bigint; now: Date },
): Promise<PayoutDecision> {
  let paidToday = 0n;
  if (cfg.maxEthPerDayPerUserWei !== null) {
    const paid = await tx.reward.aggregate({
      where: { participantId: p.participantId, status: "PAID", paidAt: { gte: utcDayStart(p.now) } },
      _sum: { amountWei: true },
    });
    paidToday = toBigInt(paid._sum.amountWei ?? 0);
  }
  return capPayout(ruleConfigOf(cfg), p.kind, p.requestedWei, paidToday, await getBalanceWei(tx, p.businessId, p.environment));
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
  const d = await decidePayout(tx, cfg, input);
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
  if (d.status === "PAID") await debit(tx, pool, reward, d.amountWei);
  await emitWebhookEvent(tx, rewardWebhook("reward.created", reward)); // webhook
  return reward;
}

/** Pays a HELD reward (after review) in place, under the rules as they are now. */
export async function releaseHeldReward(tx: Tx, pool: LockedPool, cfg: EffectiveConfig, held: Reward, now: Date): Promise<Reward> {
  const d = await decidePayout(tx, cfg, {
    businessId: held.businessId,
    environment: held.environment,
    participantId: held.participantId,
    kind: held.kind === "COMMISSION" ? await commissionCapKind(tx, held) : held.kind,
    requestedWei: toBigInt(held.requestedWei),
    now,
  });
  const reward = await tx.reward.update({
    where: { id: held.id },
    data: { status: d.status, amountWei: weiToDb(d.amountWei), reason: d.reason, paidAt: d.status === "PAID" ? now : null },
  });
  if (d.status === "PAID") await debit(tx, pool, reward, d.amountWei);
  return reward;
}

/** A commission is capped as its recipient's kind: the referrer's (REFERRAL) or the referred user's (BONUS). */
async function commissionCapKind(tx: Tx, r: Reward): Promise<RewardKind> {
  const referral = r.referralId ? await tx.referral.findUnique({ where: { id: r.referralId }, select: { referrerId: true } }) : null;
  return referral?.referrerId === r.participantId ? "REFERRAL" : "BONUS";
}

function debit(tx: Tx, pool: LockedPool, reward: Reward, amountWei: bigint) {
  return debitLedger(tx, pool, {
    businessId: reward.businessId,
    environment: reward.environment,
    amountWei,
    kind: "REWARD",
    rewardId: reward.id,
    memo: rewardDebitMemo(reward.kind, amountWei),
  });
}
