// Reversals (refunds, chargebacks): the rewards of a referred user's referrals are reversed.
// Not yet paid out (ON_HOLD, PAYABLE): REVERSED and their ETH credited back to the pool
// (ledger kind REVERSAL). Already paid out or being paid (IN_PAYOUT, PAID_OUT): REVERSED with
// a CLAWBACK, a debt of the participant that their next payouts offset first (payouts/create.ts).
// A refund of an event (eventId, with an optional amount in its currency) reverses that share of
// the event's rewards; several partial refunds add up, and a reward's reversals never exceed it
// (the reward's reversedWei, kept by a trigger, under a CHECK). A reversed reward is not reversed
// again, so a repeated call or event reverses nothing twice.
// Every reversal, whatever its path (API, reversal event, staff in the dashboard), goes through
// reverseLockedRewards, which also sends its reward.reversed webhook. A reversal of a referred
// user (API, reversal event), or staff reversing a one-time reward, reverses the referral as a
// whole (Referral.reversedAt): it earns no more commissions. A refund of one event does not.
import type { Tx } from "../../db/client";
import { transactionRetried } from "../../db/retry";
import type { TrackedEvent } from "../../db/generated";
import { AppError, notFound } from "../../shared/errors";
import { amountProblem, decimalOfUnits, decimalText, refundShareWei, toBigInt, unitsAt, type Currency } from "../../shared/money";
import { amountOf, assetTagOf } from "../../shared/asset";
import { readAsset } from "../assets/read";
import { creditLedgerMany, getBalanceWei, lockPool } from "../ledger/service";
import { newId } from "../../shared/ids";
import { emitWebhookEvent, reversedRewardWebhook } from "../webhooks/emit";
import type { Scope } from "../../shared/scope";
import { claimIdempotencyKey, completeIdempotencyKey, requestHash } from "../../shared/idempotency";
import { clipText } from "../../shared/json-guard";
import type { ReversalOutput, ReverseRewardsInput, ReverseRewardsOutput } from "./reversal-schemas";

const ROUTE = "/sdk/rewards/reverse";

interface ReverseOptions {
  reason: string;
  eventName?: string | null;
  eventId?: string | null;
  /** The staff user reversing from the dashboard. */
  reversedByUserId?: string | null;
}

/** A reward row locked by the caller, with what it has reversed already. */
type LockedReward = { id: string; participantId: string; amountWei: string; reversedWei: string; payoutStatus: string | null };
/** What a reversal takes back of a locked reward: all that is left of it (by default), or a share. */
type ToReverse = LockedReward & { shareWei?: bigint };

/**
 * Reverses the referrals of `referredId` as a whole (a chargeback, a reversal event): each is
 * marked reversed, so it earns no more commissions, and every not-yet-reversed PAID reward of
 * them is reversed. Caller's transaction.
 */
async function reverseReferredRewards(tx: Tx, scope: Pick<Scope, "businessId" | "environment">, referredId: string, o: ReverseOptions) {
  // The pool first, then the referrals (marked reversed), as the worker's batches lock them.
  await lockPool(tx, scope.businessId, scope.environment);
  const referrals = await tx.referral.findMany({ where: { referredId, businessId: scope.businessId, environment: scope.environment }, select: { id: true }, orderBy: { id: "asc" } });
  await markReferralsReversed(tx, referrals.map((r) => r.id));
  const rewards = referrals.length
    ? await tx.$queryRaw<LockedReward[]>`
        SELECT "id", "participantId", "amountWei"::text AS "amountWei", "reversedWei"::text AS "reversedWei", "payoutStatus"::text AS "payoutStatus" FROM "Reward"
        WHERE "referralId" = ANY(${referrals.map((r) => r.id)}::text[]) AND "businessId" = ${scope.businessId}
          AND "status" = 'PAID' AND "payoutStatus" IS DISTINCT FROM 'REVERSED'
        ORDER BY "createdAt", "id" FOR UPDATE`
    : [];
  return reverseLockedRewards(tx, scope, rewards, o);
}

/**
 * Records that referrals are reversed as a whole (Referral.reversedAt, kept from the first
 * reversal): the commission rules pay them no more (rules/decide.ts). The caller has locked them.
 * A refund of one event (reverseEventRewards) reverses that event's share only and does not call this.
 */
async function markReferralsReversed(tx: Tx, referralIds: string[]) {
  if (referralIds.length) await tx.referral.updateMany({ where: { id: { in: referralIds }, reversedAt: null }, data: { reversedAt: new Date() } });
}

/** The reversal rule: a reward already paid out (or being paid) is clawed back; one still in the pool returns to it. */
const reversalOutcome = (payoutStatus: string | null) => (payoutStatus === "IN_PAYOUT" || payoutStatus === "PAID_OUT" ? "CLAWBACK" : "RETURNED_TO_POOL");

/**
 * Reverses PAID, not yet reversed rewards whose rows the caller locked (after the pool),
 * set-based for any number of rewards: one RewardReversal each for its share (all that is left
 * of it unless `shareWei` says less; nothing when that is zero), the ETH of those not paid out
 * back to the pool (one ledger insert), one reward.reversed webhook each (one outbox write).
 * A reward whose reversals reach its amount becomes REVERSED; a partial one keeps its state.
 */
async function reverseLockedRewards(tx: Tx, scope: Pick<Scope, "businessId" | "environment">, locked: ToReverse[], o: ReverseOptions) {
  const rewards = locked
    .map((r) => ({ ...r, share: r.shareWei ?? toBigInt(r.amountWei) - toBigInt(r.reversedWei) }))
    .filter((r) => r.share > 0n);
  if (!rewards.length) return { reversals: [] as ReversalOutput[], returnedWei: 0n, clawbackWei: 0n };
  const now = new Date();
  const asset = await readAsset(tx, scope.businessId, scope.environment);
  const whole = rewards.filter((r) => toBigInt(r.reversedWei) + r.share === toBigInt(r.amountWei)).map((r) => r.id);
  if (whole.length) await tx.reward.updateMany({ where: { id: { in: whole } }, data: { payoutStatus: "REVERSED", reversedAt: now, reversalReason: o.reason } });
  const revs = await tx.rewardReversal.createManyAndReturn({
    data: rewards.map((r) => ({
      id: newId(),
      businessId: scope.businessId,
      environment: scope.environment,
      rewardId: r.id,
      participantId: r.participantId,
      amountWei: r.share.toString(),
      outcome: reversalOutcome(r.payoutStatus),
      reason: o.reason,
      eventName: o.eventName ?? null,
      eventId: o.eventId ?? null,
      reversedByUserId: o.reversedByUserId ?? null,
      createdAt: now,
    })),
  });
  // Read after the reversals: the trigger has added them to the reward's reversedWei.
  const stored = new Map((await tx.reward.findMany({ where: { id: { in: rewards.map((r) => r.id) } } })).map((w) => [w.id, w]));
  const revOf = new Map(revs.map((v) => [v.rewardId, v]));
  let returned = 0n;
  let clawback = 0n;
  const credits: { amountWei: bigint; kind: "REVERSAL"; memo: string }[] = [];
  const out: ReversalOutput[] = [];
  for (const r of rewards) {
    const rev = revOf.get(r.id)!;
    if (rev.outcome === "CLAWBACK") clawback += r.share;
    else {
      returned += r.share;
      credits.push({ amountWei: r.share, kind: "REVERSAL", memo: clipText(`Reward ${r.id} reversed: ${o.reason}`, 500) });
    }
    out.push({
      reversalId: rev.id,
      rewardId: r.id,
      participantId: r.participantId,
      amountEth: amountOf(r.share, asset),
      outcome: rev.outcome,
      reason: rev.reason,
      eventName: rev.eventName,
      createdAt: rev.createdAt.toISOString(),
    });
  }
  await emitWebhookEvent(
    tx,
    rewards.map((r) => reversedRewardWebhook(stored.get(r.id)!, revOf.get(r.id)!, asset)),
  );
  if (credits.length) await creditLedgerMany(tx, scope, credits);
  return { reversals: out, returnedWei: returned, clawbackWei: clawback };
}

type RefundedEvent = { id: string; status: string; amount: string | null; currency: string | null; refundedAmount: string; referredId: string | null };

/**
 * A refund of one event: its PAID, not yet reversed rewards reverse the share of the event's
 * amount refunded so far (cumulative: floor(reward × refunded / amount) less what is reversed),
 * or all that is left of them without `amount` (or when the event has none). Caller's transaction.
 */
async function reverseEventRewards(tx: Tx, scope: Pick<Scope, "businessId" | "environment">, eventId: string, amount: string | undefined, o: ReverseOptions) {
  const find = () => tx.$queryRaw<RefundedEvent[]>`
    SELECT e."id", e."status"::text AS "status", e."amount"::text AS "amount", e."currency", e."refundedAmount"::text AS "refundedAmount", f."referredId"
    FROM "TrackedEvent" e LEFT JOIN "Referral" f ON f."id" = e."referralId"
    WHERE e."id" = ${eventId} AND e."businessId" = ${scope.businessId} AND e."environment" = ${scope.environment}::"Environment"`;
  if (!(await find()).length) throw new AppError("NOT_FOUND", "No event with this eventId in this environment");
  await lockPool(tx, scope.businessId, scope.environment);
  // Read again under the pool's lock, which every reversal takes first: refunds of one event queue here.
  const [event] = await find();
  if (event.status === "QUEUED") throw new AppError("CONFLICT", "This event is not processed yet, so it has no rewards to reverse: retry once it is");
  if (event.status === "FLAGGED") throw new AppError("UNPROCESSABLE", "This event is held for review: reject it in review, or refund it once it is released");
  let refunded: string | null = null;
  let total: string | null = null;
  if (event.amount !== null) {
    const currency = (event.currency ?? "ETH") as Currency;
    total = decimalText(event.amount);
    const totalUnits = unitsAt(total, 18);
    const before = unitsAt(event.refundedAmount, 18);
    let after = totalUnits;
    if (amount !== undefined) {
      const problem = amountProblem(amount, currency);
      if (problem) throw new AppError("VALIDATION_ERROR", "Request validation failed", [{ path: "amount", message: `${problem} (the event's currency is ${currency})` }]);
      after = before + unitsAt(amount, 18);
      if (after > totalUnits) {
        const left = `${decimalOfUnits(totalUnits - before, 18)} ${currency}`;
        throw new AppError("UNPROCESSABLE", `A refund of ${decimalText(amount)} ${currency} is more than the ${left} of this ${total} ${currency} event not yet refunded`, { refundedAmount: decimalOfUnits(before, 18), amount: total, currency });
      }
    }
    refunded = decimalOfUnits(after, 18);
    if (after !== before) await tx.$executeRaw`UPDATE "TrackedEvent" SET "refundedAmount" = ${refunded}::numeric WHERE "id" = ${event.id}`;
  } else if (amount !== undefined) {
    throw new AppError("UNPROCESSABLE", "This event has no amount, so it cannot be refunded in part: send no amount to reverse all its rewards");
  }
  const rewards = await tx.$queryRaw<LockedReward[]>`
    SELECT "id", "participantId", "amountWei"::text AS "amountWei", "reversedWei"::text AS "reversedWei", "payoutStatus"::text AS "payoutStatus" FROM "Reward"
    WHERE "eventId" = ${event.id} AND "businessId" = ${scope.businessId} AND "status" = 'PAID' AND "payoutStatus" IS DISTINCT FROM 'REVERSED'
    ORDER BY "createdAt", "id" FOR UPDATE`;
  const shares = rewards.map((r) => (refunded !== null && total !== null ? { ...r, shareWei: refundShareWei(toBigInt(r.amountWei), toBigInt(r.reversedWei), refunded, total) } : r));
  const r = await reverseLockedRewards(tx, scope, shares, o);
  return { ...r, referredId: event.referredId, eventId: event.id, refundedAmount: refunded };
}

/**
 * A refund reported as the event's cumulative refunded amount (a payment provider's running
 * total, in the event's currency; null: all of it, a chargeback): reverses only what is newly
 * refunded beyond what the event has reversed already, never more than its amount, so a repeated
 * or late report reverses nothing. Null when there was nothing new. Caller's transaction.
 */
export async function refundEventToTotal(tx: Tx, scope: Pick<Scope, "businessId" | "environment">, eventId: string, refundedTotal: string | null, o: ReverseOptions) {
  await lockPool(tx, scope.businessId, scope.environment);
  const [event] = await tx.$queryRaw<Array<{ amount: string | null; refundedAmount: string }>>`
    SELECT "amount"::text AS "amount", "refundedAmount"::text AS "refundedAmount" FROM "TrackedEvent"
    WHERE "id" = ${eventId} AND "businessId" = ${scope.businessId} AND "environment" = ${scope.environment}::"Environment"`;
  if (!event) throw new AppError("NOT_FOUND", "No event with this eventId in this environment");
  if (event.amount === null) return reverseEventRewards(tx, scope, eventId, undefined, o);
  const total = unitsAt(decimalText(event.amount), 18);
  const target = refundedTotal === null ? total : unitsAt(refundedTotal, 18) < total ? unitsAt(refundedTotal, 18) : total;
  const before = unitsAt(decimalText(event.refundedAmount), 18);
  if (target <= before) return null;
  return reverseEventRewards(tx, scope, eventId, refundedTotal === null ? undefined : decimalOfUnits(target - before, 18), o);
}

/** The reversals of one call and what they moved, as the API answers them. */
async function sums(tx: Tx, scope: Pick<Scope, "businessId" | "environment">, r: { reversals: ReversalOutput[]; returnedWei: bigint; clawbackWei: bigint }) {
  const [asset, balanceWei] = await Promise.all([readAsset(tx, scope.businessId, scope.environment), getBalanceWei(tx, scope.businessId, scope.environment)]);
  return {
    reversals: r.reversals,
    asset: assetTagOf(asset),
    returnedToPoolEth: amountOf(r.returnedWei, asset),
    clawbackEth: amountOf(r.clawbackWei, asset),
    balanceEth: amountOf(balanceWei, asset),
  };
}

/** POST /sdk/rewards/reverse: a referred user's rewards, or an event's (a refund, partial with amount). Idempotent with idempotencyKey (or the Idempotency-Key header). */
export async function reverseRewards(scope: Scope, input: ReverseRewardsInput): Promise<{ status: number; body: unknown }> {
  // A deadlock victim (a synchronous event holds the referral and waits for the pool) runs again.
  return transactionRetried(
    async (tx) => {
      let recordId: string | undefined;
      if (input.idempotencyKey) {
        const claim = await claimIdempotencyKey(tx, scope, input.idempotencyKey, ROUTE, requestHash(ROUTE, { ...input }));
        if (claim.replay) return claim.replay;
        recordId = claim.recordId;
      }
      const o = { reason: input.reason, eventName: input.eventName };
      let body: ReverseRewardsOutput;
      if (input.eventId !== undefined) {
        const r = await reverseEventRewards(tx, scope, input.eventId, input.amount, o);
        body = {
          referredParticipantId: r.referredId,
          eventId: r.eventId,
          refundedAmount: r.refundedAmount,
          ...(await sums(tx, scope, r)),
        };
      } else {
        const base = { businessId: scope.businessId, environment: scope.environment };
        const referred =
          (input.referredUserId ? await tx.participant.findUnique({ where: { businessId_environment_externalId: { ...base, externalId: input.referredUserId } } }) : null) ??
          (input.referredUserEmail ? await tx.participant.findUnique({ where: { businessId_environment_email: { ...base, email: input.referredUserEmail } } }) : null);
        if (!referred) throw new AppError("NOT_FOUND", "No referred user with this id or email in this environment");
        const r = await reverseReferredRewards(tx, scope, referred.id, o);
        body = { referredParticipantId: referred.id, ...(await sums(tx, scope, r)) };
      }
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
  const reason = clipText(typeof given === "string" && given.trim() ? given.trim() : `Event ${event.eventName}`, 500);
  return reverseReferredRewards(tx, scope, referredId, { reason, eventName: event.eventName, eventId: event.id });
}

/**
 * POST /business/rewards/:rewardId/reverse (owner): staff reverse one earned reward, with the
 * same outcome rules as the API. Held or refused rewards paid nothing (422); a reversed one → 409.
 */
export async function reverseOneReward(businessId: string, rewardId: string, reason: string, userId: string) {
  return transactionRetried(
    async (tx) => {
      const found = await tx.reward.findFirst({ where: { id: rewardId, businessId }, select: { environment: true, kind: true, referralId: true } });
      if (!found) throw notFound("Reward");
      const scope = { businessId, environment: found.environment };
      // Reversing a referral's one-time reward reverses the referral as a whole (it earns no more
      // commissions): marked after the pool lock, as the worker's batches lock them.
      const referralId = found.kind === "REFERRAL" || found.kind === "BONUS" ? found.referralId : null;
      await lockPool(tx, businessId, found.environment);
      const [row] = await tx.$queryRaw<Array<LockedReward & { status: string }>>`
        SELECT "id", "participantId", "amountWei"::text AS "amountWei", "reversedWei"::text AS "reversedWei", "payoutStatus"::text AS "payoutStatus", "status"::text AS "status"
        FROM "Reward" WHERE "id" = ${rewardId} AND "businessId" = ${businessId} FOR UPDATE`;
      if (row.status !== "PAID") throw new AppError("INVALID_TRANSITION", "Only an earned reward can be reversed: this one was held for review or refused and paid nothing");
      if (row.payoutStatus === "REVERSED") throw new AppError("CONFLICT", "This reward is already reversed");
      const r = await reverseLockedRewards(tx, scope, [row], { reason, reversedByUserId: userId });
      if (referralId) await markReferralsReversed(tx, [referralId]);
      return { reversalId: r.reversals[0].reversalId, balanceEth: amountOf(await getBalanceWei(tx, businessId, found.environment), await readAsset(tx, businessId, found.environment)) };
    },
    { timeout: 30_000, maxWait: 30_000 },
  );
}
