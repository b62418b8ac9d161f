// Reversals (refunds, chargebacks): the rewards of a referred user's referrals are reversed.
// Not yet paid out (ON_HOLD, PAYABLE): REVERSED and their ETH credited back to the pool
// (ledger kind REVERSAL). Already paid out or being paid (IN_PAYOUT, PAID_OUT): REVERSED with
// a CLAWBACK, a debt of the participant that their next payouts offset first (payouts/create.ts).
// One reversal per reward (unique index), so a repeated call or event reverses nothing twice.
// Every reversal, whatever its path (API, reversal event, staff in the dashboard), goes through
// reverseLockedRewards, which also sends its reward.reversed webhook.
import { db, type Tx } from "../../db/client";
import type { TrackedEvent } from "../../db/generated";
import { AppError, notFound } from "../../shared/errors";
import { toBigInt, weiToEth } from "../../shared/money";
import { creditLedgerMany, getBalanceWei, lockPool } from "../ledger/service";
import { newId } from "../../shared/ids";
import { emitWebhookEvent, reversedRewardWebhook } from "../webhooks/emit";
import type { Scope } from "../../shared/scope";
import { claimIdempotencyKey, completeIdempotencyKey, requestHash } from "../../shared/idempotency";
import type { ReversalOutput, ReverseRewardsInput, ReverseRewardsOutput } from "./reversal-schemas";

const ROUTE = "/sdk/rewards/reverse";

interface ReverseOptions {
  reason: string;
  eventName?: string | null;
  eventId?: string | null;
  /** The staff user reversing from the dashboard. */
  reversedByUserId?: string | null;
}

type LockedReward = { id: string; participantId: string; amountWei: string; payoutStatus: string | null };

/** Reverses every not-yet-reversed PAID reward of the referrals of `referredId`. Caller's transaction. */
async function reverseReferredRewards(tx: Tx, scope: Pick<Scope, "businessId" | "environment">, referredId: string, o: ReverseOptions) {
  const referrals = await tx.referral.findMany({ where: { referredId, businessId: scope.businessId, environment: scope.environment }, select: { id: true } });
  await lockPool(tx, scope.businessId, scope.environment);
  const rewards = referrals.length
    ? await tx.$queryRaw<LockedReward[]>`
        SELECT "id", "participantId", "amountWei"::text AS "amountWei", "payoutStatus"::text AS "payoutStatus" FROM "Reward"
        WHERE "referralId" = ANY(${referrals.map((r) => r.id)}::text[]) AND "businessId" = ${scope.businessId}
          AND "status" = 'PAID' AND "payoutStatus" IS DISTINCT FROM 'REVERSED'
        ORDER BY "createdAt", "id" FOR UPDATE`
    : [];
  return reverseLockedRewards(tx, scope, rewards, o);
}

/** The reversal rule: a reward already paid out (or being paid) is clawed back; one still in the pool returns to it. */
const reversalOutcome = (payoutStatus: string | null) => (payoutStatus === "IN_PAYOUT" || payoutStatus === "PAID_OUT" ? "CLAWBACK" : "RETURNED_TO_POOL");

/**
 * Reverses PAID, not yet reversed rewards whose rows the caller locked (after the pool),
 * set-based for any number of rewards: one RewardReversal each, the ETH of those not paid out
 * back to the pool (one ledger insert), one reward.reversed webhook each (one outbox write).
 */
async function reverseLockedRewards(tx: Tx, scope: Pick<Scope, "businessId" | "environment">, rewards: LockedReward[], o: ReverseOptions) {
  if (!rewards.length) return { reversals: [] as ReversalOutput[], returnedWei: 0n, clawbackWei: 0n };
  const now = new Date();
  const ids = rewards.map((r) => r.id);
  await tx.reward.updateMany({ where: { id: { in: ids } }, data: { payoutStatus: "REVERSED", reversedAt: now, reversalReason: o.reason } });
  const stored = new Map((await tx.reward.findMany({ where: { id: { in: ids } } })).map((w) => [w.id, w]));
  const revs = await tx.rewardReversal.createManyAndReturn({
    data: rewards.map((r) => ({
      id: newId(),
      businessId: scope.businessId,
      environment: scope.environment,
      rewardId: r.id,
      participantId: r.participantId,
      amountWei: r.amountWei,
      outcome: reversalOutcome(r.payoutStatus),
      reason: o.reason,
      eventName: o.eventName ?? null,
      eventId: o.eventId ?? null,
      reversedByUserId: o.reversedByUserId ?? null,
      createdAt: now,
    })),
  });
  const revOf = new Map(revs.map((v) => [v.rewardId, v]));
  let returned = 0n;
  let clawback = 0n;
  const credits: { amountWei: bigint; kind: "REVERSAL"; memo: string }[] = [];
  const out: ReversalOutput[] = [];
  for (const r of rewards) {
    const amount = toBigInt(r.amountWei);
    const rev = revOf.get(r.id)!;
    if (rev.outcome === "CLAWBACK") clawback += amount;
    else {
      returned += amount;
      if (amount > 0n) credits.push({ amountWei: amount, kind: "REVERSAL", memo: `Reward ${r.id} reversed: ${o.reason}`.slice(0, 500) });
    }
    out.push({
      reversalId: rev.id,
      rewardId: r.id,
      participantId: r.participantId,
      amountEth: weiToEth(amount),
      outcome: rev.outcome,
      reason: rev.reason,
      eventName: rev.eventName,
      createdAt: rev.createdAt.toISOString(),
    });
  }
  await emitWebhookEvent(
    tx,
    rewards.map((r) => reversedRewardWebhook(stored.get(r.id)!, revOf.get(r.id)!)),
  );
  if (credits.length) await creditLedgerMany(tx, scope, credits);
  return { reversals: out, returnedWei: returned, clawbackWei: clawback };
}

/** POST /sdk/rewards/reverse. Idempotent with idempotencyKey (or the Idempotency-Key header). */
export async function reverseRewards(scope: Scope, input: ReverseRewardsInput): Promise<{ status: number; body: unknown }> {
  return db.$transaction(
    async (tx) => {
      let recordId: string | undefined;
      if (input.idempotencyKey) {
        const claim = await claimIdempotencyKey(tx, scope, input.idempotencyKey, ROUTE, requestHash(ROUTE, { ...input }));
        if (claim.replay) return claim.replay;
        recordId = claim.recordId;
      }
      const base = { businessId: scope.businessId, environment: scope.environment };
      const referred =
        (input.referredUserId ? await tx.participant.findUnique({ where: { businessId_environment_externalId: { ...base, externalId: input.referredUserId } } }) : null) ??
        (input.referredUserEmail ? await tx.participant.findUnique({ where: { businessId_environment_email: { ...base, email: input.referredUserEmail } } }) : null);
      if (!referred) throw new AppError("NOT_FOUND", "No referred user with this id or email in this environment");
      const r = await reverseReferredRewards(tx, scope, referred.id, { reason: input.reason, eventName: input.eventName });
      const body: ReverseRewardsOutput = {
        referredParticipantId: referred.id,
        reversals: r.reversals,
        returnedToPoolEth: weiToEth(r.returnedWei),
        clawbackEth: weiToEth(r.clawbackWei),
        balanceEth: weiToEth(await getBalanceWei(tx, scope.businessId, scope.environment)),
      };
      if (recordId) await completeIdempotencyKey(tx, recordId, 200, body);
      return { status: 200, body };
    },
    { timeout: 30_000, maxWait: 30_000 },
  );
}

/**
 * A tracked event whose name is in the business's reversalEvents reverses the rewards of its
 * referral (the referred user's). Null when the event is not a reversal event.
 */
export async function reverseForTrackedEvent(tx: Tx, scope: Scope, event: TrackedEvent, referredId: string | null) {
  const cfg = await tx.businessConfig.findUnique({ where: { businessId: scope.businessId }, select: { reversalEvents: true } });
  if (!cfg || !cfg.reversalEvents.includes(event.eventName)) return null;
  if (event.untrusted) return null; // a browser key cannot claw back rewards
  if (!referredId) return { reversals: [], returnedWei: 0n, clawbackWei: 0n };
  const given = (event.metadata as { reason?: unknown } | null)?.reason;
  const reason = (typeof given === "string" && given.trim() ? given.trim() : `Event ${event.eventName}`).slice(0, 500);
  return reverseReferredRewards(tx, scope, referredId, { reason, eventName: event.eventName, eventId: event.id });
}

/**
 * POST /business/rewards/:rewardId/reverse (owner): staff reverse one earned reward, with the
 * same outcome rules as the API. Held or refused rewards paid nothing (422); a reversed one → 409.
 */
export async function reverseOneReward(businessId: string, rewardId: string, reason: string, userId: string) {
  return db.$transaction(
    async (tx) => {
      const found = await tx.reward.findFirst({ where: { id: rewardId, businessId }, select: { environment: true } });
      if (!found) throw notFound("Reward");
      const scope = { businessId, environment: found.environment };
      await lockPool(tx, businessId, found.environment);
      const [row] = await tx.$queryRaw<Array<LockedReward & { status: string }>>`
        SELECT "id", "participantId", "amountWei"::text AS "amountWei", "payoutStatus"::text AS "payoutStatus", "status"::text AS "status"
        FROM "Reward" WHERE "id" = ${rewardId} AND "businessId" = ${businessId} FOR UPDATE`;
      if (row.status !== "PAID") throw new AppError("INVALID_TRANSITION", "Only an earned reward can be reversed: this one was held for review or refused and paid nothing");
      if (row.payoutStatus === "REVERSED") throw new AppError("CONFLICT", "This reward is already reversed");
      const r = await reverseLockedRewards(tx, scope, [row], { reason, reversedByUserId: userId });
      return { reversalId: r.reversals[0].reversalId, balanceEth: weiToEth(await getBalanceWei(tx, businessId, found.environment)) };
    },
    { timeout: 30_000, maxWait: 30_000 },
  );
}
