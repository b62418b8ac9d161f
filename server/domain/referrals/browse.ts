// The business's lists of referrals and participants (dashboard pages Referrals and
// Participants, GET /business/referrals…, /business/participants…): search, filters, cursor
// pagination, and detail views that put a referral's events, rewards and reasons on one timeline.
// Every lookup is scoped to the caller's business: another business's id is a 404.
import { amountOf, assetTagOf, type Asset } from "../../shared/asset";
import { readAsset } from "../assets/read";
import { db, type Prisma } from "../../db/client";
import { notFound } from "../../shared/errors";
import { checkCursor, pageArgs, toPage } from "../../shared/list-page";
import { toBigInt } from "../../shared/money";
import { participantTotals, type ParticipantTotals } from "../payouts/totals";
import type {
  BusinessParticipantOutput,
  BusinessReferralOutput,
  ListBusinessParticipantsInput,
  ListBusinessReferralsInput,
  ParticipantDetailOutput,
  ParticipantRef,
  ReferralDetailOutput,
  TimelineEntry,
} from "./browse-schemas";
import { earnedRewardWhere, rewardStateOf } from "../rewards/state";
import { toParticipantRef } from "../participants/schemas";
import { commissionBasisOf } from "../../shared/reward-basis";

/**
 * The term as literal text inside a LIKE pattern: Prisma's `contains` wraps it in % … % as it is,
 * so a % or _ typed into the search box would otherwise be a wildcard ("100%_" matched every code
 * with "100" and one more character in it). Backslash is PostgreSQL's default LIKE escape.
 */
const likeLiteral = (term: string) => term.replace(/[\\%_]/g, (ch) => `\\${ch}`);

/** Case-insensitive substring match on everything a person may be searched by. */
function participantMatches(term: string): Prisma.ParticipantWhereInput {
  const c = { contains: likeLiteral(term), mode: "insensitive" as const };
  return { OR: [{ email: c }, { name: c }, { referralCode: c }, { handle: c }, { externalId: c }, { walletAddress: c }] };
}

const referralInclude = {
  referrer: true,
  referred: true,
  apiKey: { select: { name: true, prefix: true } },
} satisfies Prisma.ReferralInclude;
type ReferralRow = Prisma.ReferralGetPayload<{ include: typeof referralInclude }>;

/**
 * ETH paid per referral or per event (PAID rewards of every kind, less what partial refunds
 * reversed), for one page of them: the `ethPaid` of the referrals list and of both CSV exports.
 */
export async function paidBy(by: "referralId" | "eventId", ids: string[]): Promise<Map<string, bigint>> {
  if (!ids.length) return new Map();
  const sums = await db.reward.groupBy({ by: [by], where: { [by]: { in: ids }, ...earnedRewardWhere }, _sum: { amountWei: true, reversedWei: true } });
  return new Map(sums.map((s) => [s[by]!, toBigInt(s._sum.amountWei ?? 0) - toBigInt(s._sum.reversedWei ?? 0)]));
}
const paidByReferral = (ids: string[]) => paidBy("referralId", ids);

function toBusinessReferral(r: ReferralRow, paid: Map<string, bigint>, asset: Asset): BusinessReferralOutput {
  return {
    asset: assetTagOf(asset),
    referralId: r.id,
    environment: r.environment,
    status: r.status,
    reason: r.reason,
    apiKeyId: r.apiKeyId,
    apiKeyName: r.apiKey ? (r.apiKey.name ?? r.apiKey.prefix) : null,
    source: r.source,
    campaign: r.campaign,
    referrer: toParticipantRef(r.referrer),
    referred: toParticipantRef(r.referred),
    ethPaid: amountOf(paid.get(r.id) ?? 0n, asset),
    createdAt: r.createdAt.toISOString(),
    qualifiedAt: r.qualifiedAt ? r.qualifiedAt.toISOString() : null,
  };
}

/** The filters of the referrals list (shared with the CSV export). */
export function referralWhere(businessId: string, q: Omit<ListBusinessReferralsInput, "limit" | "cursor">): Prisma.ReferralWhereInput {
  return {
    businessId,
    environment: q.environment,
    status: q.status,
    campaign: q.campaign,
    apiKeyId: q.apiKeyId,
    source: q.source,
    createdAt: q.from || q.to ? { gte: q.from, lt: q.to } : undefined,
    ...(q.search ? { OR: [{ referrer: participantMatches(q.search) }, { referred: participantMatches(q.search) }] } : {}),
  };
}

export async function listBusinessReferrals(businessId: string, q: ListBusinessReferralsInput) {
  await checkCursor(q.cursor, (id) => db.referral.findFirst({ where: { id, businessId, environment: q.environment }, select: { id: true } }));
  const rows = await db.referral.findMany({ where: referralWhere(businessId, q), include: referralInclude, ...pageArgs(q.limit, q.cursor) });
  const [paid, asset] = await Promise.all([paidByReferral(rows.slice(0, q.limit).map((r) => r.id)), readAsset(db, businessId, q.environment)]);
  return toPage(rows, q.limit, (r) => toBusinessReferral(r, paid, asset));
}

const rewardInclude = { participant: true } satisfies Prisma.RewardInclude;
type RewardRow = Prisma.RewardGetPayload<{ include: typeof rewardInclude }>;

const toRewardView = (w: RewardRow, asset: Asset) => ({
  rewardId: w.id,
  eventId: w.eventId,
  kind: w.kind,
  status: w.status,
  amountEth: amountOf(w.amountWei, asset),
  requestedEth: amountOf(w.requestedWei, asset),
  reason: w.reason,
  recipient: toParticipantRef(w.participant),
  createdAt: w.createdAt.toISOString(),
  paidAt: w.paidAt ? w.paidAt.toISOString() : null,
  state: rewardStateOf(w),
  reversedAt: w.reversedAt ? w.reversedAt.toISOString() : null,
  reversalReason: w.reversalReason,
  ...commissionBasisOf(w),
});

const KIND_WORD = { REFERRAL: "Referral reward", BONUS: "Bonus", MANUAL: "Manual reward", COMMISSION: "Commission" } as const;
const nameOf = (p: ParticipantRef) => p.name ?? p.email ?? p.userId ?? p.handle ?? p.referralCode;

/** One referral with its events and rewards, and a timeline of everything that happened to it. */
export async function getBusinessReferral(businessId: string, referralId: string): Promise<ReferralDetailOutput> {
  const r = await db.referral.findFirst({
    where: { id: referralId, businessId },
    include: {
      ...referralInclude,
      events: { orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: 200 },
      rewards: { include: rewardInclude, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: 200 },
    },
  });
  if (!r) throw notFound("Referral");
  const asset = await readAsset(db, businessId, r.environment);
  const base = toBusinessReferral(r, await paidByReferral([r.id]), asset);
  const rewards = r.rewards.map((w) => toRewardView(w, asset));
  const blank = { status: null, reason: null, eventId: null, rewardId: null, kind: null, amountEth: null, requestedEth: null, recipient: null };
  const timeline: TimelineEntry[] = [
    {
      ...blank,
      at: base.createdAt,
      type: "REFERRAL_CREATED",
      title: `${nameOf(base.referrer)} referred ${nameOf(base.referred)}${base.source ? ` (source: ${base.source})` : ""}${base.apiKeyName ? ` through key ${base.apiKeyName}` : ""}`,
    },
    ...r.events.map((e) => ({ ...blank, at: e.createdAt.toISOString(), type: "EVENT" as const, title: `Event “${e.eventName}”`, status: e.status, reason: e.reason, eventId: e.id })),
    ...rewards.map((w) => ({
      ...blank,
      at: w.paidAt ?? w.createdAt,
      type: "REWARD" as const,
      title: `${KIND_WORD[w.kind]} for ${nameOf(w.recipient)}`,
      status: w.state,
      reason: w.reason,
      eventId: w.eventId,
      rewardId: w.rewardId,
      kind: w.kind,
      amountEth: w.amountEth,
      requestedEth: w.requestedEth,
      recipient: w.recipient,
    })),
  ];
  for (const w of rewards) {
    if (w.reversedAt) timeline.push({ ...blank, at: w.reversedAt, type: "REVERSAL", title: `${KIND_WORD[w.kind]} for ${nameOf(w.recipient)} reversed`, status: "REVERSED", reason: w.reversalReason, eventId: w.eventId, rewardId: w.rewardId, kind: w.kind, amountEth: w.amountEth, requestedEth: w.amountEth, recipient: w.recipient });
  }
  if (r.qualifiedAt) timeline.push({ ...blank, at: r.qualifiedAt.toISOString(), type: "QUALIFIED", title: "Referral qualified", status: "QUALIFIED" });
  if (r.status === "REJECTED" || r.status === "FLAGGED") {
    timeline.push({ ...blank, at: r.updatedAt.toISOString(), type: "STATUS", title: r.status === "REJECTED" ? "Referral rejected" : "Referral held for review", status: r.status, reason: r.reason });
  }
  // Stable sort: entries of the same instant keep their natural order (referral, event, reward).
  timeline.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  return {
    ...base,
    events: r.events.map((e) => ({ eventId: e.id, eventName: e.eventName, status: e.status, reason: e.reason, source: e.source, createdAt: e.createdAt.toISOString() })),
    rewards,
    timeline,
  };
}

// ───────────── Participants ─────────────

const participantInclude = {
  _count: { select: { referralsMade: true } },
  // "Referred by": the first referral that was not rejected (a refused second code names nobody).
  referralsReceived: { where: { status: { not: "REJECTED" } }, include: { referrer: true }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: 1 },
} satisfies Prisma.ParticipantInclude;
type ParticipantRow = Prisma.ParticipantGetPayload<{ include: typeof participantInclude }>;

const noTotals = (asset: Asset): ParticipantTotals => ({ walletAddress: null, earnedEth: "0", owedEth: "0", paidOutEth: "0", clawbackOwedEth: "0", balanceEth: "0", asset: assetTagOf(asset) });

function toBusinessParticipant(p: ParticipantRow, totals: Map<string, ParticipantTotals>, asset: Asset): BusinessParticipantOutput {
  const by = p.referralsReceived[0]?.referrer;
  return {
    ...toParticipantRef(p),
    environment: p.environment,
    referralsMade: p._count.referralsMade,
    referredBy: by ? toParticipantRef(by) : null,
    ...(totals.get(p.id) ?? noTotals(asset)),
    walletAddress: p.walletAddress,
    createdAt: p.createdAt.toISOString(),
    walletVerified: p.walletVerified,
    stripeCustomerId: p.stripeCustomerId,
  };
}

export async function listBusinessParticipants(businessId: string, q: ListBusinessParticipantsInput) {
  await checkCursor(q.cursor, (id) => db.participant.findFirst({ where: { id, businessId, environment: q.environment }, select: { id: true } }));
  const rows = await db.participant.findMany({
    where: { businessId, environment: q.environment, ...(q.search ? participantMatches(q.search) : {}) },
    include: participantInclude,
    ...pageArgs(q.limit, q.cursor),
  });
  const [totals, asset] = await Promise.all([participantTotals(businessId, rows.slice(0, q.limit).map((p) => p.id)), readAsset(db, businessId, q.environment)]);
  return toPage(rows, q.limit, (p) => toBusinessParticipant(p, totals, asset));
}

/** One participant: who referred them, the referrals they made and the rewards they received (latest 100 each). */
export async function getBusinessParticipant(businessId: string, participantId: string): Promise<ParticipantDetailOutput> {
  const p = await db.participant.findFirst({ where: { id: participantId, businessId }, include: participantInclude });
  if (!p) throw notFound("Participant");
  const [referrals, rewards, totals, asset] = await Promise.all([
    db.referral.findMany({ where: { businessId, referrerId: p.id }, include: referralInclude, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 100 }),
    db.reward.findMany({ where: { businessId, participantId: p.id }, include: rewardInclude, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 100 }),
    participantTotals(businessId, [p.id]),
    readAsset(db, businessId, p.environment),
  ]);
  const paid = await paidByReferral(referrals.map((r) => r.id));
  return {
    ...toBusinessParticipant(p, totals, asset),
    referrals: referrals.map((r) => toBusinessReferral(r, paid, asset)),
    rewards: rewards.map((w) => toRewardView(w, asset)),
  };
}
