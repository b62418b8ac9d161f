// Where every wei is: per participant (earned, owed, paid out, clawbacks still to offset) and
// per pool (owed, paid out, gas, available, and the deposit address's on-chain balance).
//
// At rest (no payout PENDING or SENT) and with every deposit credited:
//   onChainBalance = available (ledger sum) + owed
// because rewards debit the pool when earned, payouts send what was earned (less clawback
// offsets, which the ledger gets back as REVERSAL credits), and gas is debited as GAS.
import type { z } from "zod";
import { db, rawRows } from "../../db/client";
import type { participantPayoutTotals } from "../participants/schemas";
import { onChain, publicClientFor, chainTarget } from "../../chain/clients";
import { depositAddressFor } from "../../chain/deposit-address";
import type { Environment } from "../../shared/environment";
import { toBigInt, weiToEth } from "../../shared/money";
import { getBalanceWei } from "../ledger/service";
import type { Address, PublicClient } from "viem";
import { assetTagOf, type Asset } from "../../shared/asset";
import { amountOf, readAsset, readAssets } from "../assets/read";
import { assetBalanceOf, gasBalanceOf } from "./asset-transfer";

/** Wallet and totals of one participant (the fields are described on participantPayoutTotals). */
export type ParticipantTotals = z.infer<typeof participantPayoutTotals>;

/** A participant's sums as the database adds them up (wei as decimal strings). */
export interface ParticipantSums {
  id: string;
  environment: Environment;
  walletAddress: string | null;
  earned: string;
  owed: string;
  paidOut: string;
  clawback: string;
  offset: string;
}

/**
 * The per-participant sums, set-based: CTEs over the participants that `where` selects (on
 * "Participant" p, with the caller's $n parameters), then `participantSumsSelect`. One query shape
 * for the totals of a page of participants and for a proof's snapshot of all of them. A reward
 * earns its amount less all its reversals, and is owed less what they returned to the pool.
 * A clawback is owed back once the payout that sent its reward is CONFIRMED: while that payout
 * may still fail (SENT), a failure returns the clawback to the pool instead, so offsetting it
 * earlier would credit the pool twice and underpay the participant.
 * For a whole business and environment, `tenantRewards` (on "Reward" r, the same business and
 * environment) replaces the rewards' join to p: a reward's tenant key ties it to a participant of
 * its own business and environment, so the sums are the same, read from that tenant's rewards alone.
 */
export const participantSumsCtes = (where: string, tenantRewards?: string) => `
  p AS (SELECT p."id", p."walletAddress", p."environment" FROM "Participant" p WHERE ${where}),
  rw AS (SELECT r."participantId" AS id,
           SUM(r."amountWei" - r."reversedWei") AS earned,
           SUM(r."amountWei" - r."returnedWei") FILTER (WHERE r."payoutStatus" IN ('ON_HOLD', 'PAYABLE', 'IN_PAYOUT')) AS owed
         FROM "Reward" r ${tenantRewards ? `WHERE ${tenantRewards} AND` : `JOIN p ON p."id" = r."participantId" WHERE`} r."status" = 'PAID' GROUP BY r."participantId"),
  po AS (SELECT o."participantId" AS id,
           SUM(o."amountWei") FILTER (WHERE o."status" = 'CONFIRMED') AS "paidOut",
           SUM(o."offsetWei") FILTER (WHERE o."status" <> 'FAILED') AS "offset"
         FROM "Payout" o JOIN p ON p."id" = o."participantId" GROUP BY o."participantId"),
  rv AS (SELECT v."participantId" AS id, SUM(v."amountWei") AS clawback
         FROM "RewardReversal" v JOIN p ON p."id" = v."participantId"
         JOIN "Reward" cr ON cr."id" = v."rewardId" JOIN "Payout" co ON co."id" = cr."payoutId" AND co."status" = 'CONFIRMED'
         WHERE v."outcome" = 'CLAWBACK' GROUP BY v."participantId")`;

export const participantSumsSelect = `
  SELECT p."id", p."walletAddress", p."environment"::text AS "environment",
    COALESCE(rw.earned, 0)::text AS earned, COALESCE(rw.owed, 0)::text AS owed, COALESCE(po."paidOut", 0)::text AS "paidOut",
    COALESCE(rv.clawback, 0)::text AS clawback, COALESCE(po."offset", 0)::text AS "offset"
  FROM p LEFT JOIN rw ON rw.id = p."id" LEFT JOIN po ON po.id = p."id" LEFT JOIN rv ON rv.id = p."id"`;

/**
 * What a participant is owed, the one computation: owed (earned, not yet paid out) less what they
 * owe back (clawbacks not yet offset by a payout, never below zero). `balanceWei` may be negative
 * (they owe more than they are owed); `netOwedWei` is that balance floored at zero, the amount a
 * proof of liabilities commits to.
 */
export function owedOf(s: Pick<ParticipantSums, "owed" | "clawback" | "offset">): { owedWei: bigint; owedBackWei: bigint; balanceWei: bigint; netOwedWei: bigint } {
  const owedWei = toBigInt(s.owed);
  let owedBackWei = toBigInt(s.clawback) - toBigInt(s.offset);
  if (owedBackWei < 0n) owedBackWei = 0n;
  const balanceWei = owedWei - owedBackWei;
  return { owedWei, owedBackWei, balanceWei, netOwedWei: balanceWei > 0n ? balanceWei : 0n };
}

/**
 * Totals of some participants of one business (ids of other businesses are ignored), keyed by
 * participant id. For list and detail views: GET /business/participants adds these fields.
 */
export async function participantTotals(businessId: string, participantIds: string[]): Promise<Map<string, ParticipantTotals>> {
  const out = new Map<string, ParticipantTotals>();
  if (participantIds.length === 0) return out;
  const rows = await rawRows<ParticipantSums>(
    `WITH ${participantSumsCtes(`p."businessId" = $1 AND p."id" = ANY($2::text[])`)} ${participantSumsSelect}`,
    businessId,
    participantIds,
  );
  const assets = await readAssets(db, businessId);
  for (const r of rows) {
    const o = owedOf(r);
    const asset = assets[r.environment];
    out.set(r.id, {
      walletAddress: r.walletAddress,
      earnedEth: amountOf(r.earned, asset),
      owedEth: amountOf(o.owedWei.toString(), asset),
      paidOutEth: amountOf(r.paidOut, asset),
      clawbackOwedEth: amountOf(o.owedBackWei.toString(), asset),
      balanceEth: amountOf(o.balanceWei.toString(), asset),
      asset: assetTagOf(asset),
    });
  }
  return out;
}

export interface PoolFigures {
  /** The deposit address's balance of the asset on chain (balanceOf for a token); null when the chain is not configured or not reachable. */
  onChainBalanceEth: string | null;
  /** The deposit address's ETH, which pays the gas of payouts (for an ETH program, its pool's coin too); null when unreadable. */
  gasBalanceEth: string | null;
  /** Earned by participants, not yet paid out (on hold, payable, in a payout). */
  owedEth: string;
  /** Sent to wallets by confirmed payouts. */
  paidOutEth: string;
  /** Gas paid from the pool (reserves of unfinished payouts included until they settle). */
  gasSpentEth: string;
  /** What new rewards can still draw on: the ledger sum. */
  availableEth: string;
  /** onChainBalanceEth = availableEth + owedEth; null when the chain cannot be read. */
  reconciled: boolean | null;
  /** onChainBalanceEth − (availableEth + owedEth): ETH on chain not (yet) in the ledger, e.g. an unverified deposit; negative means a shortfall. */
  unreconciledEth: string | null;
}

export async function poolFigures(businessId: string, environment: Environment, depositIndex: number, known?: Asset): Promise<PoolFigures> {
  const asset = known ?? (await readAsset(db, businessId, environment));
  const [availableWei, sums] = await Promise.all([
    getBalanceWei(db, businessId, environment),
    db.$queryRaw<Array<{ owed: string; paidOut: string; gas: string }>>`
      SELECT
        COALESCE((SELECT SUM("amountWei" - "returnedWei") FROM "Reward" WHERE "businessId" = ${businessId} AND "environment" = ${environment}::"Environment" AND "status" = 'PAID' AND "payoutStatus" IN ('ON_HOLD', 'PAYABLE', 'IN_PAYOUT')), 0)::text AS "owed",
        COALESCE((SELECT SUM("amountWei") FROM "Payout" WHERE "businessId" = ${businessId} AND "environment" = ${environment}::"Environment" AND "status" = 'CONFIRMED'), 0)::text AS "paidOut",
        COALESCE((SELECT -SUM("amountWei") FROM "LedgerEntry" WHERE "businessId" = ${businessId} AND "environment" = ${environment}::"Environment" AND "kind" = 'GAS'), 0)::text AS "gas"`,
  ]);
  const owedWei = toBigInt(sums[0].owed);
  const [onChainWei, gasWei] = await Promise.all([onChainRead(environment, depositIndex, (c, a) => assetBalanceOf(c, asset, a)), onChainRead(environment, depositIndex, gasBalanceOf)]);
  const amount = (v: bigint | string) => amountOf(v.toString(), asset);
  return {
    onChainBalanceEth: onChainWei === null ? null : amount(onChainWei),
    gasBalanceEth: gasWei === null ? null : weiToEth(gasWei),
    owedEth: amount(owedWei),
    paidOutEth: amount(sums[0].paidOut),
    gasSpentEth: weiToEth(sums[0].gas),
    availableEth: amount(availableWei),
    reconciled: onChainWei === null ? null : onChainWei === availableWei + owedWei,
    unreconciledEth: onChainWei === null ? null : amount(onChainWei - availableWei - owedWei),
  };
}

/** A read of the deposit address on chain, or null when the chain is not configured or down. */
async function onChainRead(environment: Environment, depositIndex: number, read: (c: PublicClient, a: Address) => Promise<bigint>): Promise<bigint | null> {
  const target = chainTarget(environment);
  const address = depositAddressFor(environment, depositIndex);
  if ("problem" in target || !address) return null;
  try {
    return await onChain(target, "balance", () => read(publicClientFor(target.rpcUrl), address));
  } catch {
    return null;
  }
}
