// What the portal shows one participant: their code and link, tier, earnings, referrals, rewards
// and payouts. Every query is bounded by the session's participant, business and environment;
// other people appear masked (mask.ts). Totals come from payouts/totals.ts and shared/totals.ts,
// tiers from tiers/. Each reward says what it was for (rewardStory), each referral whether a
// refund or reversal took its rewards back.
import { db, rawRows } from "../../db/client";
import { AppError, notFound } from "../../shared/errors";
import { env } from "../../shared/env";
import { txUrlFor } from "../../shared/explorer";
import { checkCursor, pageArgs, toPage } from "../../shared/list-page";
import { parseDecimal, decimalOfUnits, decimalText, toBigInt, WEI_PER_ETH } from "../../shared/money";
import { assetTagOf } from "../../shared/asset";
import { amountOf, readAsset } from "../assets/read";
import { countsAsReferral, earnedWeiSql, rewardedSql } from "../../shared/totals";
import { findLeaf, getLiabilityProof } from "../trust/proofs";
import { readConfig } from "../effective-config/load";
import { getParticipantClicks } from "../links/funnel";
import { participantTotals } from "../payouts/totals";
import { listTiers } from "../tiers/service";
import { leaderboardFor } from "./leaderboard";
import { shareUrlFor } from "./links";
import { maskPerson } from "./mask";
import type { PortalAuth } from "../../shared/portal-auth";
import type { PortalListInput, PortalMeOutput, PortalPayout, PortalReferral, PortalReward } from "./schemas";
import { QUALIFIED_STATUSES, tierFor } from "../../shared/referral-rules";

const REFERRAL_WORDS = { PENDING: "Pending", QUALIFIED: "Qualified", REWARDED: "Rewarded", FLAGGED: "Under review", REJECTED: "Not eligible" } as const;
const PAYOUT_STATUS_WORDS = { ON_HOLD: "On hold", PAYABLE: "Payable", IN_PAYOUT: "In payout", PAID_OUT: "Paid out", REVERSED: "Reversed" } as const;
const PAYOUT_WORDS = { PENDING: "Being prepared", SENT: "Sent", CONFIRMED: "Paid out", FAILED: "Failed" } as const;

const own = (a: PortalAuth) => ({ businessId: a.businessId, environment: a.environment });

interface MeRow {
  id: string;
  environment: "TEST" | "LIVE";
  referralCode: string;
  handle: string | null;
  name: string | null;
  email: string | null;
  walletAddress: string | null;
  walletVerified: boolean;
  walletVerifiedAt: Date | null;
  businessName: string;
  website: string | null;
  /** [payoutStatus, wei still paid as text, wei reversed as text] of the participant's granted rewards. */
  byPayoutStatus: [string, string, string][];
  /** [ISO date the hold ends, wei as text], earliest first, up to 20. */
  holds: [string, string][];
  /** [referral status, count] of the participant's referrals. */
  byStatus: [string, number][];
  /** Statuses of the referrals that brought the participant in. */
  received: string[];
}

/** The participant, their business, and their rewards and referrals grouped: one statement. */
const readMe = (auth: PortalAuth) => db.$queryRaw<MeRow[]>`
  SELECT p."id", p."environment"::text AS "environment", p."referralCode", p."handle", p."name", p."email",
         p."walletAddress", p."walletVerified", p."walletVerifiedAt", b."name" AS "businessName", b."website",
         COALESCE((SELECT json_agg(json_build_array(x.s, x.w, x.v)) FROM (
           SELECT r."payoutStatus"::text AS s, sum(r."amountWei" - r."returnedWei")::text AS w, sum(r."reversedWei")::text AS v FROM "Reward" r
            WHERE r."participantId" = p."id" AND r."businessId" = p."businessId" AND r."environment" = p."environment" AND r."status" = 'PAID'
            GROUP BY 1) x), '[]') AS "byPayoutStatus",
         COALESCE((SELECT json_agg(json_build_array(to_char(x.u, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), x.w) ORDER BY x.u) FROM (
           SELECT r."payableAt" AS u, sum(r."amountWei" - r."returnedWei")::text AS w FROM "Reward" r
            WHERE r."participantId" = p."id" AND r."businessId" = p."businessId" AND r."environment" = p."environment"
              AND r."status" = 'PAID' AND r."payoutStatus" = 'ON_HOLD' AND r."payableAt" IS NOT NULL
            GROUP BY 1 ORDER BY 1 LIMIT 20) x), '[]') AS "holds",
         COALESCE((SELECT json_agg(json_build_array(x.s, x.n)) FROM (
           SELECT f."status"::text AS s, count(*)::int AS n FROM "Referral" f
            WHERE f."referrerId" = p."id" AND f."businessId" = p."businessId" AND f."environment" = p."environment"
            GROUP BY 1) x), '[]') AS "byStatus",
         COALESCE((SELECT json_agg(g."status"::text) FROM "Referral" g
            WHERE g."referredId" = p."id" AND g."businessId" = p."businessId" AND g."environment" = p."environment"), '[]') AS "received"
    FROM "Participant" p JOIN "Business" b ON b."id" = p."businessId"
   WHERE p."id" = ${auth.participantId} AND p."businessId" = ${auth.businessId} AND p."environment" = ${auth.environment}::"Environment"`;

/** Earned per UTC month of the reward (the totals rule: rewarded less reversed), the last 24 months with earnings. */
async function earningsByMonth(auth: PortalAuth): Promise<PortalMeOutput["earningsByMonth"]> {
  const asset = await readAsset(db, auth.businessId, auth.environment);
  const amt = (v: Parameters<typeof amountOf>[0] | bigint) => amountOf(typeof v === "bigint" ? v.toString() : v, asset);
  const rows = await rawRows<{ month: string; wei: string }>(
    `SELECT x.month, x.wei FROM (
       SELECT to_char(r."createdAt", 'YYYY-MM') AS month, sum(${earnedWeiSql("r")})::text AS wei FROM "Reward" r
        WHERE r."participantId" = $1 AND r."businessId" = $2 AND r."environment" = $3::"Environment" AND ${rewardedSql("r")}
        GROUP BY 1 ORDER BY 1 DESC LIMIT 24) x ORDER BY x.month`,
    auth.participantId,
    auth.businessId,
    auth.environment,
  );
  return rows.map((r) => ({ month: r.month, earnedEth: amt(r.wei) }));
}

/** The environment's latest proof of liabilities as the participant may trust it, or null before the first. */
async function latestProof(auth: PortalAuth): Promise<PortalMeOutput["proof"]> {
  const asset = await readAsset(db, auth.businessId, auth.environment);
  const amt = (v: Parameters<typeof amountOf>[0] | bigint) => amountOf(typeof v === "bigint" ? v.toString() : v, asset);
  const proof = await getLiabilityProof(auth.businessId, auth.environment, "latest").catch((e: unknown) => {
    if (e instanceof AppError && e.code === "NOT_FOUND") return null;
    throw e;
  });
  if (!proof) return null;
  const leaf = await findLeaf(proof.proofId, auth.participantId);
  return {
    proofId: proof.proofId,
    blockNumber: proof.blockNumber,
    covered: proof.covered,
    createdAt: proof.createdAt,
    yourShareIncluded: !!leaf,
    yourOwedEth: leaf ? amt(leaf.owedWei) : null,
    verifyUrl: `${env.appUrl}/proofs/${encodeURIComponent(auth.businessId)}/${auth.environment}/latest`,
  };
}

export async function portalMe(auth: PortalAuth, now = new Date()): Promise<PortalMeOutput> {
  const asset = await readAsset(db, auth.businessId, auth.environment);
  const amt = (v: Parameters<typeof amountOf>[0] | bigint) => amountOf(typeof v === "bigint" ? v.toString() : v, asset);
  // Every read is bounded by the session's participant, business and environment, so they all go
  // out at once (one round of queries per request); the participant's row is the ownership check.
  const id = auth.participantId;
  const [[p], cfg, totals, tiers, clicks, byMonth, proof] = await Promise.all([
    readMe(auth),
    readConfig(db, auth.businessId, auth.environment),
    participantTotals(auth.businessId, [id]),
    listTiers(auth.businessId),
    getParticipantClicks(auth.businessId, auth.environment, id, now),
    earningsByMonth(auth),
    latestProof(auth),
  ]);
  if (!p) throw notFound("Participant");
  const t = totals.get(p.id)!;
  const sumOf = (s: string) => toBigInt(p.byPayoutStatus.find(([k]) => k === s)?.[1] ?? 0);
  const countOf = (...s: string[]) => p.byStatus.filter(([k]) => s.includes(k)).reduce((a, [, n]) => a + n, 0);
  const qualified = countOf(...QUALIFIED_STATUSES);
  const counted = p.byStatus.filter(([k]) => countsAsReferral(k)).reduce((a, [, n]) => a + n, 0);
  const referred = p.received.some(countsAsReferral);
  const tiered = cfg?.rewardStrategy === "TIERED" ? tiers : [];
  const current = tierFor(tiered, qualified);
  const next = tiered.find((x) => x.minReferrals > qualified) ?? null;
  return {
    participantId: p.id,
    audience: referred && counted === 0 ? "CUSTOMER" : "REFERRER",
    environment: p.environment,
    business: { name: p.businessName },
    referralCode: p.referralCode,
    handle: p.handle,
    name: p.name,
    email: p.email,
    shareUrl: shareUrlFor({ linkDestinationUrl: cfg?.linkDestinationUrl, website: p.website }, p.referralCode),
    wallet: { address: p.walletAddress, verified: p.walletVerified, verifiedAt: p.walletVerifiedAt ? new Date(p.walletVerifiedAt).toISOString() : null, verificationRequired: cfg?.requireVerifiedWallet ?? false },
    clicks: { clicks: clicks.clicks, uniqueClicks: clicks.uniqueClicks, last30Days: clicks.days.reduce((n, d) => n + d.clicks, 0) },
    referrals: { total: counted, qualified, pending: countOf("PENDING", "FLAGGED"), notCounted: countOf(...Object.keys(REFERRAL_WORDS)) - counted },
    tier: {
      current: current && { name: current.name, minReferrals: current.minReferrals },
      next: next && { name: next.name, minReferrals: next.minReferrals, referralsToNext: next.minReferrals - qualified },
      qualifiedReferrals: qualified,
    },
    earnings: {
      earnedEth: t.earnedEth,
      onHoldEth: amt(sumOf("ON_HOLD")),
      payableEth: amt(sumOf("PAYABLE")),
      inPayoutEth: amt(sumOf("IN_PAYOUT")),
      paidOutEth: t.paidOutEth,
      reversedEth: amt(p.byPayoutStatus.reduce((a, [, , v]) => a + toBigInt(v), 0n)),
      owedBackEth: t.clawbackOwedEth,
      holds: p.holds.map(([until, wei]) => ({ amountEth: amt(wei), until })),
      asset: assetTagOf(asset),
    },
    earningsByMonth: byMonth,
    proof,
    explorerUrl: env.explorerUrl(p.environment),
    returnUrl: auth.returnUrl,
    expiresAt: auth.expiresAt.toISOString(),
    leaderboard: cfg?.leaderboardEnabled ? await leaderboardFor(auth, now) : null,
  };
}

/** A referral's status in words: not counted when rejected; refunds and reversals say so, not "Rewarded". */
function referralWords(r: { status: keyof typeof REFERRAL_WORDS; reason: string | null; reversedAt: Date | null }, amountWei: bigint, reversedWei: bigint): string {
  if (!countsAsReferral(r.status)) return r.reason === "SELF_REFERRAL" ? "Not counted: your own sign-up" : "Not eligible (not counted)";
  if (r.reversedAt) return "Reversed (refunded or charged back)";
  if (reversedWei > 0n && reversedWei >= amountWei) return "Refunded";
  if (reversedWei > 0n) return "Partly refunded";
  return REFERRAL_WORDS[r.status];
}

export async function portalReferrals(auth: PortalAuth, q: PortalListInput) {
  const asset = await readAsset(db, auth.businessId, auth.environment);
  const amt = (v: Parameters<typeof amountOf>[0] | bigint) => amountOf(typeof v === "bigint" ? v.toString() : v, asset);
  const where = { referrerId: auth.participantId, ...own(auth) };
  await checkCursor(q.cursor, (id) => db.referral.findFirst({ where: { id, ...where }, select: { id: true } }));
  const rows = await db.referral.findMany({ where, include: { referred: { select: { email: true, name: true } } }, ...pageArgs(q.limit, q.cursor) });
  // The participant's own rewarded rewards of these referrals: what refunds and reversals took back.
  const sums = await db.reward.groupBy({
    by: ["referralId"],
    where: { participantId: auth.participantId, ...own(auth), status: "PAID", referralId: { in: rows.map((r) => r.id) } },
    _sum: { amountWei: true, reversedWei: true },
  });
  const sumOf = new Map(sums.map((x) => [x.referralId, { amount: toBigInt(x._sum.amountWei ?? 0), reversed: toBigInt(x._sum.reversedWei ?? 0) }]));
  return toPage(rows, q.limit, (r): PortalReferral => {
    const s = sumOf.get(r.id) ?? { amount: 0n, reversed: 0n };
    return {
      referralId: r.id,
      status: r.status,
      statusText: referralWords(r, s.amount, s.reversed),
      referred: maskPerson(r.referred),
      createdAt: r.createdAt.toISOString(),
      qualifiedAt: r.qualifiedAt?.toISOString() ?? null,
      counted: countsAsReferral(r.status),
      reversedAt: r.reversedAt?.toISOString() ?? null,
      refundedEth: amt(s.reversed),
    };
  });
}

function rewardWords(status: "PAID" | "HELD" | "REFUSED", payoutStatus: keyof typeof PAYOUT_STATUS_WORDS | null): string {
  if (status === "HELD") return "Held for review";
  if (status === "REFUSED") return "Not granted";
  return payoutStatus ? PAYOUT_STATUS_WORDS[payoutStatus] : "Earned";
}

/**
 * A percentage commission's rate, in percent to two decimals, from what the reward recorded: the
 * wei asked for (before caps), the purchase amount and the price of 1 ETH then. Rounded to the
 * nearest hundredth, which undoes the rounding down to the wei of the commission itself.
 */
function commissionPercent(requestedWei: bigint, baseAmount: string, rate: string): string | null {
  const b = parseDecimal(baseAmount);
  const r = parseDecimal(rate);
  if (b.units === 0n || r.units === 0n) return null;
  const num = requestedWei * r.units * 10n ** BigInt(b.scale) * 10_000n;
  const den = b.units * 10n ** BigInt(r.scale) * WEI_PER_ETH;
  return decimalOfUnits((num * 2n + den) / (2n * den), 2);
}

type RewardRow = Awaited<ReturnType<typeof readRewards>>[number];
const readRewards = (where: object, q: PortalListInput) =>
  db.reward.findMany({
    where,
    include: {
      referral: { select: { referrerId: true, referredId: true, referred: { select: { email: true, name: true } } } },
      event: { select: { eventName: true, amount: true, currency: true } },
      rule: { select: { type: true } },
    },
    ...pageArgs(q.limit, q.cursor),
  });

/** What a reward was for, as fields and in words (the referred person masked; one's own bonus names nobody). */
function rewardStory(w: RewardRow): Pick<PortalReward, "forWhat" | "description"> {
  const asCustomer = !!w.referral && w.referral.referredId === w.participantId;
  const referred = w.referral && !asCustomer ? maskPerson(w.referral.referred) : null;
  const eventName = w.event?.eventName ?? null;
  const base = w.kind === "COMMISSION" && w.baseAmount ? { amount: decimalText(w.baseAmount), currency: w.baseCurrency } : w.event?.amount ? { amount: decimalText(w.event.amount), currency: w.event.currency } : null;
  const percent = w.kind === "COMMISSION" && w.rule?.type === "PERCENT" && w.baseAmount && w.rate ? commissionPercent(toBigInt(w.requestedWei), decimalText(w.baseAmount), decimalText(w.rate)) : null;
  const forWhat = { referred, eventName, purchaseAmount: base?.amount ?? null, purchaseCurrency: base?.currency ?? null, commissionPercent: percent };
  const whose = referred ? `${referred}'s` : "your";
  const purchase = base ? `${whose} ${eventName ?? "purchase"} of ${base.amount} ${base.currency ?? ""}`.trim() : `${whose} ${eventName ?? "event"}`;
  let description: string;
  if (w.kind === "COMMISSION") description = percent ? `Commission: ${percent} % of ${purchase}` : `Commission on ${purchase}`;
  else if (w.kind === "REFERRAL") description = `Referral reward: ${referred ?? "someone"} joined${eventName ? ` (${eventName})` : ""}`;
  else if (w.kind === "BONUS") description = `Welcome bonus: you joined through a referral${eventName ? ` (${eventName})` : ""}`;
  // A manual reward's note is the staff's reason, not shown to the participant.
  else description = "A reward from the business";
  return { forWhat, description };
}

export async function portalRewards(auth: PortalAuth, q: PortalListInput) {
  const asset = await readAsset(db, auth.businessId, auth.environment);
  const amt = (v: Parameters<typeof amountOf>[0] | bigint) => amountOf(typeof v === "bigint" ? v.toString() : v, asset);
  // Refused rewards are the business's bookkeeping (pool, caps), not money the participant earned.
  const where = { participantId: auth.participantId, ...own(auth), status: { in: ["PAID" as const, "HELD" as const] } };
  await checkCursor(q.cursor, (id) => db.reward.findFirst({ where: { id, ...where }, select: { id: true } }));
  const rows = await readRewards(where, q);
  return toPage(
    rows,
    q.limit,
    (w): PortalReward => ({
      rewardId: w.id,
      kind: w.kind,
      status: w.status,
      payoutStatus: w.payoutStatus,
      statusText: rewardWords(w.status, w.payoutStatus),
      amountEth: amt(w.amountWei),
      reversedEth: amt(w.reversedWei),
      holdUntil: w.payoutStatus === "ON_HOLD" && w.payableAt ? w.payableAt.toISOString() : null,
      createdAt: w.createdAt.toISOString(),
      reversedAt: w.reversedAt?.toISOString() ?? null,
      ...rewardStory(w),
    }),
  );
}

export async function portalPayouts(auth: PortalAuth, q: PortalListInput) {
  const asset = await readAsset(db, auth.businessId, auth.environment);
  const amt = (v: Parameters<typeof amountOf>[0] | bigint) => amountOf(typeof v === "bigint" ? v.toString() : v, asset);
  const where = { participantId: auth.participantId, ...own(auth) };
  await checkCursor(q.cursor, (id) => db.payout.findFirst({ where: { id, ...where }, select: { id: true } }));
  const rows = await db.payout.findMany({ where, ...pageArgs(q.limit, q.cursor) });
  return toPage(
    rows,
    q.limit,
    (o): PortalPayout => ({
      payoutId: o.id,
      amountEth: amt(o.amountWei),
      status: o.status,
      statusText: PAYOUT_WORDS[o.status],
      walletAddress: o.walletAddress,
      txHash: o.txHash,
      txUrl: txUrlFor(o.environment, o.txHash),
      createdAt: o.createdAt.toISOString(),
      confirmedAt: o.confirmedAt?.toISOString() ?? null,
    }),
  );
}
