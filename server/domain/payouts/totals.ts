// Where every wei is: per participant (earned, owed, paid out, clawbacks still to offset) and
// per pool (owed, paid out, gas, available, and the deposit address's on-chain balance).
//
// At rest (no payout PENDING or SENT) and with every deposit credited:
//   onChainBalance = available (ledger sum) + owed
// because rewards debit the pool when earned, payouts send what was earned (less clawback
// offsets, which the ledger gets back as REVERSAL credits), and gas is debited as GAS.
import type { z } from "zod";
import { db } from "../../db/client";
import type { participantPayoutTotals } from "../participants/schemas";
import { onChain, publicClientFor, chainTarget } from "../../chain/clients";
import { depositAddressFor } from "../../chain/deposit-address";
import type { Environment } from "../../shared/environment";
import { toBigInt, weiToEth } from "../../shared/money";
import { getBalanceWei } from "../ledger/service";

/** Wallet and totals of one participant (the fields are described on participantPayoutTotals). */
export type ParticipantTotals = z.infer<typeof participantPayoutTotals>;

/**
 * Totals of some participants of one business (ids of other businesses are ignored), keyed by
 * participant id. For list and detail views: GET /business/participants adds these fields.
 */
export async function participantTotals(businessId: string, participantIds: string[]): Promise<Map<string, ParticipantTotals>> {
  const out = new Map<string, ParticipantTotals>();
  if (participantIds.length === 0) return out;
  const rows = await db.$queryRaw<Array<{ id: string; walletAddress: string | null; earned: string; owed: string; paidOut: string; clawback: string; offset: string }>>`
    SELECT p."id", p."walletAddress",
      COALESCE((SELECT SUM(r."amountWei") FROM "Reward" r WHERE r."participantId" = p."id" AND r."status" = 'PAID' AND r."payoutStatus" IS DISTINCT FROM 'REVERSED'), 0)::text AS "earned",
      COALESCE((SELECT SUM(r."amountWei") FROM "Reward" r WHERE r."participantId" = p."id" AND r."status" = 'PAID' AND r."payoutStatus" IN ('ON_HOLD', 'PAYABLE', 'IN_PAYOUT')), 0)::text AS "owed",
      COALESCE((SELECT SUM(o."amountWei") FROM "Payout" o WHERE o."participantId" = p."id" AND o."status" = 'CONFIRMED'), 0)::text AS "paidOut",
      COALESCE((SELECT SUM(v."amountWei") FROM "RewardReversal" v WHERE v."participantId" = p."id" AND v."outcome" = 'CLAWBACK'), 0)::text AS "clawback",
      COALESCE((SELECT SUM(o."offsetWei") FROM "Payout" o WHERE o."participantId" = p."id" AND o."status" <> 'FAILED'), 0)::text AS "offset"
    FROM "Participant" p
    WHERE p."businessId" = ${businessId} AND p."id" = ANY(${participantIds}::text[])`;
  for (const r of rows) {
    const owed = toBigInt(r.owed);
    let debt = toBigInt(r.clawback) - toBigInt(r.offset);
    if (debt < 0n) debt = 0n;
    out.set(r.id, {
      walletAddress: r.walletAddress,
      earnedEth: weiToEth(r.earned),
      owedEth: weiToEth(owed),
      paidOutEth: weiToEth(r.paidOut),
      clawbackOwedEth: weiToEth(debt),
      balanceEth: weiToEth(owed - debt),
    });
  }
  return out;
}

export interface PoolFigures {
  /** The deposit address's balance on chain; null when the chain is not configured or not reachable. */
  onChainBalanceEth: string | null;
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

export async function poolFigures(businessId: string, environment: Environment, depositIndex: number): Promise<PoolFigures> {
  const [availableWei, sums] = await Promise.all([
    getBalanceWei(db, businessId, environment),
    db.$queryRaw<Array<{ owed: string; paidOut: string; gas: string }>>`
      SELECT
        COALESCE((SELECT SUM("amountWei") FROM "Reward" WHERE "businessId" = ${businessId} AND "environment" = ${environment}::"Environment" AND "status" = 'PAID' AND "payoutStatus" IN ('ON_HOLD', 'PAYABLE', 'IN_PAYOUT')), 0)::text AS "owed",
        COALESCE((SELECT SUM("amountWei") FROM "Payout" WHERE "businessId" = ${businessId} AND "environment" = ${environment}::"Environment" AND "status" = 'CONFIRMED'), 0)::text AS "paidOut",
        COALESCE((SELECT -SUM("amountWei") FROM "LedgerEntry" WHERE "businessId" = ${businessId} AND "environment" = ${environment}::"Environment" AND "kind" = 'GAS'), 0)::text AS "gas"`,
  ]);
  const owedWei = toBigInt(sums[0].owed);
  const onChainWei = await onChainBalanceWei(environment, depositIndex);
  return {
    onChainBalanceEth: onChainWei === null ? null : weiToEth(onChainWei),
    owedEth: weiToEth(owedWei),
    paidOutEth: weiToEth(sums[0].paidOut),
    gasSpentEth: weiToEth(sums[0].gas),
    availableEth: weiToEth(availableWei),
    reconciled: onChainWei === null ? null : onChainWei === availableWei + owedWei,
    unreconciledEth: onChainWei === null ? null : weiToEth(onChainWei - availableWei - owedWei),
  };
}

/** The deposit address's on-chain balance, or null when the chain is not configured or down. */
async function onChainBalanceWei(environment: Environment, depositIndex: number): Promise<bigint | null> {
  const target = chainTarget(environment);
  const address = depositAddressFor(environment, depositIndex);
  if ("problem" in target || !address) return null;
  try {
    return await onChain(target, "getBalance", () => publicClientFor(target.rpcUrl).getBalance({ address }));
  } catch {
    return null;
  }
}
