// What the portal shows one participant: their code and link, tier, earnings, referrals, rewards
// and payouts. Every query is bounded by the session's participant, business and environment;
// other people appear masked (mask.ts). Totals come from payouts/totals.ts, tiers from tiers/.
import { db } from "../../db/client";
import { notFound } from "../../shared/errors";
import { env } from "../../shared/env";
import { checkCursor, pageArgs, toPage } from "../../shared/list-page";
import { toBigInt, weiToEth } from "../../shared/money";
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

/** A transaction's page on the environment's block explorer, when one is configured. */
const txUrlFor = (environment: "TEST" | "LIVE", txHash: string | null) => {
  const base = env.explorerUrl(environment);
  return base && txHash ? `${base}/tx/${txHash}` : null;
};

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
            GROUP BY 1) x), '[]') AS "byStatus"
    FROM "Participant" p JOIN "Business" b ON b."id" = p."businessId"
   WHERE p."id" = ${auth.participantId} AND p."businessId" = ${auth.businessId} AND p."environment" = ${auth.environment}::"Environment"`;

export async function portalMe(auth: PortalAuth, now = new Date()): Promise<PortalMeOutput> {
  // Every read is bounded by the session's participant, business and environment, so they all go
  // out at once (one round of queries per request); the participant's row is the ownership check.
  const id = auth.participantId;
  const [[p], cfg, totals, tiers, clicks] = await Promise.all([
    readMe(auth),
    readConfig(db, auth.businessId, auth.environment),
    participantTotals(auth.businessId, [id]),
    listTiers(auth.businessId),
    getParticipantClicks(auth.businessId, auth.environment, id, now),
  ]);
  if (!p) throw notFound("Participant");
  const t = totals.get(p.id)!;
  const sumOf = (s: string) => toBigInt(p.byPayoutStatus.find(([k]) => k === s)?.[1] ?? 0);
  const countOf = (...s: string[]) => p.byStatus.filter(([k]) => s.includes(k)).reduce((a, [, n]) => a + n, 0);
  const qualified = countOf(...QUALIFIED_STATUSES);
  const tiered = cfg?.rewardStrategy === "TIERED" ? tiers : [];
  const current = tierFor(tiered, qualified);
  const next = tiered.find((x) => x.minReferrals > qualified) ?? null;
  return {
    participantId: p.id,
    environment: p.environment,
    business: { name: p.businessName },
    referralCode: p.referralCode,
    handle: p.handle,
    name: p.name,
    email: p.email,
    shareUrl: shareUrlFor({ linkDestinationUrl: cfg?.linkDestinationUrl, website: p.website }, p.referralCode),
    wallet: { address: p.walletAddress, verified: p.walletVerified, verifiedAt: p.walletVerifiedAt ? new Date(p.walletVerifiedAt).toISOString() : null, verificationRequired: cfg?.requireVerifiedWallet ?? false },
    clicks: { clicks: clicks.clicks, uniqueClicks: clicks.uniqueClicks, last30Days: clicks.days.reduce((n, d) => n + d.clicks, 0) },
    referrals: { total: countOf(...Object.keys(REFERRAL_WORDS)), qualified, pending: countOf("PENDING", "FLAGGED") },
    tier: {
      current: current && { name: current.name, minReferrals: current.minReferrals },
      next: next && { name: next.name, minReferrals: next.minReferrals, referralsToNext: next.minReferrals - qualified },
      qualifiedReferrals: qualified,
    },
    earnings: {
      earnedEth: t.earnedEth,
      onHoldEth: weiToEth(sumOf("ON_HOLD")),
      payableEth: weiToEth(sumOf("PAYABLE")),
      inPayoutEth: weiToEth(sumOf("IN_PAYOUT")),
      paidOutEth: t.paidOutEth,
      reversedEth: weiToEth(p.byPayoutStatus.reduce((a, [, , v]) => a + toBigInt(v), 0n)),
      owedBackEth: t.clawbackOwedEth,
      holds: p.holds.map(([until, wei]) => ({ amountEth: weiToEth(wei), until })),
    },
    explorerUrl: env.explorerUrl(p.environment),
    returnUrl: auth.returnUrl,
    expiresAt: auth.expiresAt.toISOString(),
    leaderboard: cfg?.leaderboardEnabled ? await leaderboardFor(auth, now) : null,
  };
}

export async function portalReferrals(auth: PortalAuth, q: PortalListInput) {
  const where = { referrerId: auth.participantId, ...own(auth) };
  await checkCursor(q.cursor, (id) => db.referral.findFirst({ where: { id, ...where }, select: { id: true } }));
  const rows = await db.referral.findMany({ where, include: { referred: { select: { email: true, name: true } } }, ...pageArgs(q.limit, q.cursor) });
  return toPage(
    rows,
    q.limit,
    (r): PortalReferral => ({
      referralId: r.id,
      status: r.status,
      statusText: REFERRAL_WORDS[r.status],
      referred: maskPerson(r.referred),
      createdAt: r.createdAt.toISOString(),
      qualifiedAt: r.qualifiedAt?.toISOString() ?? null,
    }),
  );
}

function rewardWords(status: "PAID" | "HELD" | "REFUSED", payoutStatus: keyof typeof PAYOUT_STATUS_WORDS | null): string {
  if (status === "HELD") return "Held for review";
  if (status === "REFUSED") return "Not granted";
  return payoutStatus ? PAYOUT_STATUS_WORDS[payoutStatus] : "Earned";
}

export async function portalRewards(auth: PortalAuth, q: PortalListInput) {
  // Refused rewards are the business's bookkeeping (pool, caps), not money the participant earned.
  const where = { participantId: auth.participantId, ...own(auth), status: { in: ["PAID" as const, "HELD" as const] } };
  await checkCursor(q.cursor, (id) => db.reward.findFirst({ where: { id, ...where }, select: { id: true } }));
  const rows = await db.reward.findMany({ where, ...pageArgs(q.limit, q.cursor) });
  return toPage(
    rows,
    q.limit,
    (w): PortalReward => ({
      rewardId: w.id,
      kind: w.kind,
      status: w.status,
      payoutStatus: w.payoutStatus,
      statusText: rewardWords(w.status, w.payoutStatus),
      amountEth: weiToEth(w.amountWei),
      reversedEth: weiToEth(w.reversedWei),
      holdUntil: w.payoutStatus === "ON_HOLD" && w.payableAt ? w.payableAt.toISOString() : null,
      createdAt: w.createdAt.toISOString(),
      reversedAt: w.reversedAt?.toISOString() ?? null,
    }),
  );
}

export async function portalPayouts(auth: PortalAuth, q: PortalListInput) {
  const where = { participantId: auth.participantId, ...own(auth) };
  await checkCursor(q.cursor, (id) => db.payout.findFirst({ where: { id, ...where }, select: { id: true } }));
  const rows = await db.payout.findMany({ where, ...pageArgs(q.limit, q.cursor) });
  return toPage(
    rows,
    q.limit,
    (o): PortalPayout => ({
      payoutId: o.id,
      amountEth: weiToEth(o.amountWei),
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
