// GET /business/payouts/queue: every participant owed ETH that no payout holds yet, in one of
// six states (requested by the participant, ready, on hold until a date, below the minimum, no
// wallet, wallet failed), with
// the reason in words. The dashboard's Balance page shows it, and says why a run paid nothing.
// A participant owed only rewards as the referred person of their referrals (customer bonuses,
// commissions to the referred) is a customer: those without a wallet are counted as a group.
import { db } from "../../db/client";
import { toBigInt } from "../../shared/money";
import { assetTagOf } from "../../shared/asset";
import { amountOf, readAsset, sharedAmountUnits } from "../assets/read";
import type { Environment } from "../../shared/environment";
import { notFound } from "../../shared/errors";
import { loadConfig } from "../effective-config/load";
import { walletProblem } from "../participants/wallet-rules";
import { toParticipantRef } from "../participants/schemas";
import { belowMinimumMessage, participantDebtWei } from "./create";
import type { PayoutQueueOutput, QueueState } from "./schemas";
import { payableNowSql } from "../rewards/state";
import { openWithdrawals } from "./withdrawals";

const ITEMS = 100;
const ORDER: QueueState[] = ["REQUESTED", "READY", "BELOW_MINIMUM", "ON_HOLD", "WALLET_FAILED", "NO_WALLET"];

export async function payoutQueue(businessId: string, environment: Environment, now = new Date()): Promise<PayoutQueueOutput> {
  const b = await db.business.findUnique({ where: { id: businessId }, select: { depositIndex: true } });
  if (!b) throw notFound("Business");
  const [cfg, asset] = await Promise.all([loadConfig(db, businessId, environment), readAsset(db, businessId, environment)]);
  const minWei = sharedAmountUnits(cfg.minPayoutWei, asset);
  const amount = (v: bigint) => amountOf(v, asset);
  // A reward ON_HOLD whose payableAt has passed is payable: the next run releases it first. Each
  // pays its amount less what partial refunds returned to the pool.
  const rows = await db.$queryRawUnsafe<Array<{ participantId: string; payable: string; onHold: string; nextPayableAt: Date | null; customer: boolean }>>(
    `SELECT r."participantId",
      COALESCE(SUM(r."amountWei" - r."returnedWei") FILTER (WHERE ${payableNowSql("r", "$3::timestamp(3)")}), 0)::text AS "payable",
      COALESCE(SUM(r."amountWei" - r."returnedWei") FILTER (WHERE r."payoutStatus" = 'ON_HOLD' AND r."payableAt" > $3::timestamp(3)), 0)::text AS "onHold",
      MIN(r."payableAt") FILTER (WHERE r."payoutStatus" = 'ON_HOLD' AND r."payableAt" > $3::timestamp(3)) AS "nextPayableAt",
      bool_and(f."referredId" IS NOT NULL AND f."referredId" = r."participantId") AS "customer"
    FROM "Reward" r LEFT JOIN "Referral" f ON f."id" = r."referralId"
    WHERE r."businessId" = $1 AND r."environment" = $2::"Environment"
      AND r."payoutStatus" IN ('PAYABLE', 'ON_HOLD') AND r."payoutId" IS NULL
    GROUP BY r."participantId"`,
    businessId,
    environment,
    now,
  );
  const people = new Map(
    (await db.participant.findMany({ where: { id: { in: rows.map((r) => r.participantId) }, businessId } })).map((p) => [p.id, p]),
  );
  const requested = await openWithdrawals(businessId, environment, [...people.keys()]);
  const items = [];
  for (const r of rows) {
    const p = people.get(r.participantId);
    if (!p) continue;
    const payableWei = toBigInt(r.payable);
    const onHoldWei = toBigInt(r.onHold);
    let amountWei = 0n;
    if (payableWei > 0n) {
      const debt = await participantDebtWei(db, p.id);
      amountWei = payableWei - (debt < payableWei ? debt : payableWei);
    }
    const problem = p.walletAddress ? (p.walletFailure ?? walletProblem(p.walletAddress, b.depositIndex)) : null;
    let state: QueueState;
    let reason: string;
    if (!p.walletAddress) {
      state = "NO_WALLET";
      reason = r.customer
        ? "A referred customer without a payout wallet: they can add one in their portal (send them a portal link), or set one on the participant's page"
        : "No payout wallet: set one on the participant's page, or send walletAddress with POST /sdk/participants";
    } else if (cfg.requireVerifiedWallet && !p.walletVerified) {
      state = "NO_WALLET";
      reason = "Wallet not verified: payouts need a wallet the participant proved by signature in the portal";
    } else if (p.walletFailedAt || problem) {
      state = "WALLET_FAILED";
      reason = problem ?? "The wallet refused a payout";
    } else if (payableWei === 0n) {
      state = "ON_HOLD";
      reason = `On hold until ${r.nextPayableAt?.toISOString() ?? "the holding period ends"}`;
    } else if (amountWei > 0n && amountWei < minWei) {
      state = "BELOW_MINIMUM";
      reason = belowMinimumMessage(amountWei, minWei, asset);
    } else if (requested.has(p.id)) {
      state = "REQUESTED";
      reason = `Withdrawal requested in the portal at ${requested.get(p.id)!.toISOString()}: paid by the run it started`;
    } else {
      state = "READY";
      reason = cfg.autoPayoutEnabled ? "Paid by the next scheduled run" : "Paid when payouts run";
    }
    items.push({
      participant: toParticipantRef(p),
      walletAddress: p.walletAddress,
      state,
      payableEth: amount(payableWei),
      amountEth: amount(amountWei),
      onHoldEth: amount(onHoldWei),
      nextPayableAt: r.nextPayableAt?.toISOString() ?? null,
      reason,
      customer: r.customer,
      owedWei: payableWei + onHoldWei,
    });
  }
  const totals = Object.fromEntries(ORDER.map((s) => [s, { count: 0, eth: "0" }])) as PayoutQueueOutput["totals"];
  for (const s of ORDER) {
    const of = items.filter((i) => i.state === s);
    totals[s] = { count: of.length, eth: amount(of.reduce((a, i) => a + i.owedWei, 0n)) };
  }
  // Listed only while someone asked to be paid: the five states stay the queue's usual shape.
  if (!totals.REQUESTED?.count) delete totals.REQUESTED;
  const walletless = items.filter((i) => i.state === "NO_WALLET" && i.customer && !i.walletAddress);
  const customersWithoutWallet = { count: walletless.length, eth: amount(walletless.reduce((a, i) => a + i.owedWei, 0n)) };
  items.sort((a, b) => ORDER.indexOf(a.state) - ORDER.indexOf(b.state) || (b.owedWei > a.owedWei ? 1 : b.owedWei < a.owedWei ? -1 : 0) || a.participant.participantId.localeCompare(b.participant.participantId));
  return {
    environment,
    asset: assetTagOf(asset),
    minPayoutEth: amount(minWei),
    payoutHoldDays: cfg.payoutHoldDays,
    autoPayoutEnabled: cfg.autoPayoutEnabled,
    totals,
    customersWithoutWallet,
    items: items.slice(0, ITEMS).map(({ owedWei: _owed, ...i }) => i),
    truncated: items.length > ITEMS,
  };
}
