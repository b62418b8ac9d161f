// What the portal shows one participant: their code and link, tier, earnings, referrals, rewards
// and payouts. Every query is bounded by the session's participant, business and environment;
// other people appear masked (mask.ts). Totals come from payouts/totals.ts, tiers from tiers/.
import { db } from "../../db/client";
import { notFound } from "../../shared/errors";
import { env } from "../../shared/env";
import { checkCursor, pageArgs, toPage } from "../../shared/list-page";
import { toBigInt, weiToEth } from "../../shared/money";
import { readConfig } from "../effective-config/load";
import { participantTotals } from "../payouts/totals";
import { listTiers } from "../tiers/service";
import { leaderboardFor } from "./leaderboard";
import { shareUrlFor } from "./links";
import { maskPerson } from "./mask";
import type { PortalAuth } from "./sessions";
import type { PortalListInput, PortalMeOutput, PortalPayout, PortalReferral, PortalReward } from "./schemas";

const REFERRAL_WORDS = { PENDING: "Pending", QUALIFIED: "Qualified", REWARDED: "Rewarded", FLAGGED: "Under review", REJECTED: "Not eligible" } as const;
const PAYOUT_STATUS_WORDS = { ON_HOLD: "On hold", PAYABLE: "Payable", IN_PAYOUT: "In payout", PAID_OUT: "Paid out", REVERSED: "Reversed" } as const;
const PAYOUT_WORDS = { PENDING: "Being prepared", SENT: "Sent", CONFIRMED: "Paid out", FAILED: "Failed" } as const;

const own = (a: PortalAuth) => ({ businessId: a.businessId, environment: a.environment });

/** A transaction's page on the environment's block explorer, when one is configured. */
const txUrlFor = (environment: "TEST" | "LIVE", txHash: string | null) => {
  const base = env.explorerUrl(environment);
  return base && txHash ? `${base}/tx/${txHash}` : null;
};

export async function portalMe(auth: PortalAuth, now = new Date()): Promise<PortalMeOutput> {
  const p = await db.participant.findFirst({ where: { id: auth.participantId, ...own(auth) }, include: { business: { select: { name: true, website: true } } } });
  if (!p) throw notFound("Participant");
  const [cfg, totals, byPayoutStatus, holds, byStatus, tiers] = await Promise.all([
    readConfig(db, auth.businessId, auth.environment),
    participantTotals(auth.businessId, [p.id]),
    db.reward.groupBy({ by: ["payoutStatus"], where: { participantId: p.id, ...own(auth), status: "PAID" }, _sum: { amountWei: true } }),
    db.reward.groupBy({
      by: ["payableAt"],
      where: { participantId: p.id, ...own(auth), status: "PAID", payoutStatus: "ON_HOLD" },
      _sum: { amountWei: true },
      orderBy: { payableAt: "asc" },
      take: 20,
    }),
    db.referral.groupBy({ by: ["status"], where: { referrerId: p.id, ...own(auth) }, _count: { _all: true } }),
    listTiers(auth.businessId),
  ]);
  const t = totals.get(p.id)!;
  const sumOf = (s: string) => toBigInt(byPayoutStatus.find((r) => r.payoutStatus === s)?._sum.amountWei ?? 0);
  const countOf = (...s: string[]) => byStatus.filter((r) => s.includes(r.status)).reduce((a, r) => a + r._count._all, 0);
  const qualified = countOf("QUALIFIED", "REWARDED");
  const tiered = cfg?.rewardStrategy === "TIERED" ? tiers : [];
  const current = [...tiered].reverse().find((x) => x.minReferrals <= qualified) ?? null;
  const next = tiered.find((x) => x.minReferrals > qualified) ?? null;
  return {
    participantId: p.id,
    environment: p.environment,
    business: { name: p.business.name },
    referralCode: p.referralCode,
    handle: p.handle,
    name: p.name,
    email: p.email,
    shareUrl: shareUrlFor(p.business.website, p.referralCode),
    wallet: { address: p.walletAddress, verified: p.walletVerified, verifiedAt: p.walletVerifiedAt?.toISOString() ?? null, verificationRequired: cfg?.requireVerifiedWallet ?? false },
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
      reversedEth: weiToEth(sumOf("REVERSED")),
      owedBackEth: t.clawbackOwedEth,
      holds: holds.filter((h) => h.payableAt).map((h) => ({ amountEth: weiToEth(h._sum.amountWei ?? 0), until: h.payableAt!.toISOString() })),
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
