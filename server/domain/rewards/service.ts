// Business-facing rewards: the manual grant (POST /business/rewards, under the same daily cap
// and pool rules as the engine) and the rewards list.
import { db, type Prisma } from "../../db/client";
import { AppError, notFound } from "../../shared/errors";
import { assetTagOf, type Asset } from "../../shared/asset";
import { amountOf, readAsset, unitsOfInput } from "../assets/read";
import { checkCursor, pageArgs, toPage } from "../../shared/list-page";
import type { Environment } from "../../shared/environment";
import { loadConfig } from "../effective-config/load";
import { getBalanceWei, lockPool } from "../ledger/service";
import { REWARD_REASONS } from "../rules/pay";
import { payReward } from "./payout";
import type { CreateRewardInput, RewardOutput } from "./schemas";
import { commissionBasisOf } from "../../shared/reward-basis";
import { rewardStateOf } from "./state";
import { payableNow } from "./state";

const withParticipant = { participant: { select: { referralCode: true, email: true, name: true, externalId: true } } } as const;
type Row = Prisma.RewardGetPayload<{ include: typeof withParticipant }>;

const toRewardOutput = (r: Row, asset: Asset): RewardOutput => ({
  asset: assetTagOf(asset),
  rewardId: r.id,
  environment: r.environment,
  participantId: r.participantId,
  participant: r.participant,
  kind: r.kind,
  status: r.status,
  requestedEth: amountOf(r.requestedWei, asset),
  amountEth: amountOf(r.amountWei, asset),
  reason: r.reason,
  note: r.note,
  eventId: r.eventId,
  referralId: r.referralId,
  createdAt: r.createdAt.toISOString(),
  paidAt: r.paidAt ? r.paidAt.toISOString() : null,
  payoutStatus: payableNow(r, new Date()) ? "PAYABLE" : r.payoutStatus,
  payableAt: r.payableAt ? r.payableAt.toISOString() : null,
  payoutId: r.payoutId,
  reversedAt: r.reversedAt ? r.reversedAt.toISOString() : null,
  reversalReason: r.reversalReason,
  reversedEth: amountOf(r.reversedWei, asset),
  state: rewardStateOf(r),
  ...commissionBasisOf(r),
});

/** recipient = participant id, referral code or email, within the business and environment. */
async function resolveRecipient(businessId: string, environment: Environment, recipient: string) {
  const p = await db.participant.findFirst({
    where: {
      businessId,
      environment,
      OR: [{ id: recipient }, { referralCode: recipient }, ...(recipient.includes("@") ? [{ email: recipient.toLowerCase() }] : [])],
    },
    select: { id: true },
  });
  if (!p) throw new AppError("NOT_FOUND", `No ${environment} participant has the id, referral code or email "${recipient}"`);
  return p.id;
}

/**
 * Grants a MANUAL reward. The daily cap per participant and the pool apply (per-event caps are
 * for event rewards). A refusal is recorded first (status REFUSED with its reason) and then
 * answered with 422 carrying the recorded rewardId: never silently dropped.
 */
export async function grantManualReward(businessId: string, input: CreateRewardInput) {
  const participantId = await resolveRecipient(businessId, input.environment, input.recipient);
  const asset = await readAsset(db, businessId, input.environment);
  const requestedWei = unitsOfInput(input.amountEth, asset, "amountEth");
  const now = new Date();
  const { reward, balanceWei } = await db.$transaction(
    async (tx) => {
      const cfg = await loadConfig(tx, businessId, input.environment);
      const pool = await lockPool(tx, businessId, input.environment);
      const created = await payReward(tx, pool, cfg, {
        businessId,
        environment: input.environment,
        participantId,
        kind: "MANUAL",
        requestedWei,
        note: input.reason,
        now,
      });
      return {
        reward: await tx.reward.findUniqueOrThrow({ where: { id: created.id }, include: withParticipant }),
        balanceWei: await getBalanceWei(tx, businessId, input.environment),
      };
    },
    { timeout: 30_000, maxWait: 30_000 },
  );
  const out = { ...toRewardOutput(reward, asset), balanceEth: amountOf(balanceWei, asset) };
  if (reward.status === "REFUSED") {
    const pool = reward.reason?.includes(REWARD_REASONS.INSUFFICIENT_POOL);
    throw new AppError(
      pool ? "INSUFFICIENT_POOL" : "DAILY_CAP_REACHED",
      pool
        ? `The ${input.environment} pool (${amountOf(balanceWei, asset)} ${asset.symbol}) cannot cover ${input.amountEth} ${asset.symbol}; the refusal was recorded`
        : "The participant's daily reward cap is reached; the refusal was recorded",
      out,
    );
  }
  return out;
}

export interface RewardFilters {
  environment: "TEST" | "LIVE";
  status?: "PAID" | "HELD" | "REFUSED";
  kind?: "REFERRAL" | "BONUS" | "MANUAL" | "COMMISSION";
  participantId?: string;
  eventId?: string;
  from?: Date;
  to?: Date;
}

export const rewardWhere = (businessId: string, q: RewardFilters): Prisma.RewardWhereInput => ({
  businessId,
  environment: q.environment,
  status: q.status,
  kind: q.kind,
  participantId: q.participantId,
  eventId: q.eventId,
  createdAt: q.from || q.to ? { gte: q.from, lt: q.to } : undefined,
});

export async function listRewards(
  businessId: string,
  q: RewardFilters & { limit: number; cursor?: string },
) {
  await checkCursor(q.cursor, (id) => db.reward.findFirst({ where: { id, businessId, environment: q.environment }, select: { id: true } }));
  const rows = await db.reward.findMany({
    where: rewardWhere(businessId, q),
    include: withParticipant,
    ...pageArgs(q.limit, q.cursor),
  });
  const asset = await readAsset(db, businessId, q.environment);
  return toPage(rows, q.limit, (r) => toRewardOutput(r, asset));
}

export async function getOwnedReward(businessId: string, rewardId: string) {
  const r = await db.reward.findFirst({ where: { id: rewardId, businessId }, include: withParticipant });
  if (!r) throw notFound("Reward");
  return toRewardOutput(r, await readAsset(db, businessId, r.environment));
}
