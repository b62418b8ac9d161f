// Step 1 of a payout: the next participant's payable rewards become one transfer, signed and
// recorded (PENDING) in one transaction under the sender lock, with its gas reserve debited.
import type { Address } from "viem";
import { db, type Tx } from "../../db/client";
import { onChain } from "../../chain/clients";
import { AppError } from "../../shared/errors";
import { toBigInt, weiToDb, weiToEth } from "../../shared/money";
import { loadConfig } from "../config/effective";
import { creditLedger, debitLedger, getBalanceWei, lockPool } from "../ledger/service";
import { emitWebhookEvent } from "../webhooks/emit";
import { payoutWebhook, type PayoutRow } from "./list";
import { gasLimitFor, quoteFees, recordTransaction, signTransfer, TX_OPTIONS, type Sender } from "./sender";

async function lockSender(tx: Tx, s: Sender) {
  await tx.$executeRaw`
    INSERT INTO "PayoutSender" ("environment", "address", "businessId", "createdAt")
    VALUES (${s.environment}::"Environment", ${s.address}, ${s.businessId}, now())
    ON CONFLICT ("environment", "address") DO NOTHING`;
  await tx.$queryRaw`SELECT "address" FROM "PayoutSender" WHERE "environment" = ${s.environment}::"Environment" AND "address" = ${s.address} FOR UPDATE`;
}

/** What a participant still owes back from reversed rewards that had been paid out, not yet offset by a payout. */
export async function participantDebtWei(client: Tx | typeof db, participantId: string): Promise<bigint> {
  const rows = await client.$queryRaw<Array<{ debt: string }>>`
    SELECT (
      COALESCE((SELECT SUM("amountWei") FROM "RewardReversal" WHERE "participantId" = ${participantId} AND "outcome" = 'CLAWBACK'), 0)
      - COALESCE((SELECT SUM("offsetWei") FROM "Payout" WHERE "participantId" = ${participantId} AND "status" <> 'FAILED'), 0)
    )::text AS "debt"`;
  const d = toBigInt(rows[0]?.debt ?? "0");
  return d > 0n ? d : 0n;
}

/** The next nonce: the chain's pending count, never below the highest live nonce already recorded. */
async function nextNonce(tx: Tx, s: Sender): Promise<number> {
  const chain = await onChain(s.target, "getTransactionCount", () => s.client.getTransactionCount({ address: s.address, blockTag: "pending" }));
  const rows = await tx.$queryRaw<Array<{ n: number | null }>>`
    SELECT MAX("nonce") AS "n" FROM "Payout"
    WHERE "environment" = ${s.environment}::"Environment" AND "fromAddress" = ${s.address} AND "status" <> 'FAILED'`;
  const recorded = rows[0]?.n;
  return Math.max(chain, recorded === null || recorded === undefined ? 0 : Number(recorded) + 1);
}

export type CreateStep = { kind: "none" } | { kind: "pending"; payout: PayoutRow } | { kind: "created"; payout: PayoutRow };

interface Candidate {
  participantId: string;
  walletAddress: string;
  totalWei: bigint;
}

async function candidates(tx: Tx, s: Sender, exclude: Set<string>): Promise<Candidate[]> {
  const rows = await tx.$queryRaw<Array<{ participantId: string; walletAddress: string; total: string }>>`
    SELECT r."participantId", p."walletAddress", SUM(r."amountWei")::text AS "total"
    FROM "Reward" r JOIN "Participant" p ON p."id" = r."participantId"
    WHERE r."businessId" = ${s.businessId} AND r."environment" = ${s.environment}::"Environment"
      AND r."payoutStatus" = 'PAYABLE' AND r."payoutId" IS NULL AND p."walletAddress" IS NOT NULL
    GROUP BY r."participantId", p."walletAddress"
    ORDER BY MIN(r."payableAt"), r."participantId"`;
  return rows.filter((r) => !exclude.has(r.participantId)).map((r) => ({ participantId: r.participantId, walletAddress: r.walletAddress, totalWei: toBigInt(r.total) }));
}

/**
 * One payout, signed and recorded in one transaction under the sender lock; or the sender's
 * PENDING payout (to be broadcast first); or nothing left to pay. Participants that cannot be
 * paid now (below minPayoutEth, or refused for lack of ETH) are added to `exclude`.
 */
export async function createNextPayout(s: Sender, exclude: Set<string>, now = new Date()): Promise<CreateStep> {
  // Cheap look first, without the lock: most concurrent runs find nothing to do.
  const [pendingNow, payableNow] = await Promise.all([
    db.payout.findFirst({ where: { environment: s.environment, fromAddress: s.address, status: "PENDING" }, select: { id: true } }),
    db.reward.findFirst({
      where: { businessId: s.businessId, environment: s.environment, payoutStatus: "PAYABLE", payoutId: null, participantId: { notIn: [...exclude] }, participant: { walletAddress: { not: null } } },
      select: { id: true },
    }),
  ]);
  if (!pendingNow && !payableNow) return { kind: "none" };
  return db.$transaction(async (tx): Promise<CreateStep> => {
    await lockSender(tx, s);
    const pending = await tx.payout.findFirst({ where: { environment: s.environment, fromAddress: s.address, status: "PENDING" }, orderBy: { nonce: "asc" } });
    if (pending) return { kind: "pending", payout: pending };
    const cfg = await loadConfig(tx, s.businessId, s.environment);
    const minPayout = toBigInt(cfg.minPayoutWei);
    for (const c of await candidates(tx, s, exclude)) {
      // Lock this participant's payable rewards and re-sum them under the lock.
      const rewards = await tx.$queryRaw<Array<{ id: string; amountWei: string }>>`
        SELECT "id", "amountWei"::text AS "amountWei" FROM "Reward"
        WHERE "participantId" = ${c.participantId} AND "businessId" = ${s.businessId} AND "environment" = ${s.environment}::"Environment"
          AND "payoutStatus" = 'PAYABLE' AND "payoutId" IS NULL
        ORDER BY "payableAt", "id" FOR UPDATE`;
      if (rewards.length === 0) continue;
      const rewardsWei = rewards.reduce((a, r) => a + toBigInt(r.amountWei), 0n);
      const debt = await participantDebtWei(tx, c.participantId);
      const offsetWei = debt < rewardsWei ? debt : rewardsWei;
      const amountWei = rewardsWei - offsetWei;
      if (amountWei > 0n && amountWei < minPayout) {
        exclude.add(c.participantId);
        continue;
      }
      exclude.add(c.participantId);
      const rewardIds = rewards.map((r) => r.id);
      const base = {
        businessId: s.businessId,
        environment: s.environment,
        participantId: c.participantId,
        walletAddress: c.walletAddress,
        fromAddress: s.address,
        rewardsWei: weiToDb(rewardsWei),
        offsetWei: weiToDb(offsetWei),
        amountWei: weiToDb(amountWei),
        rewardIds,
        createdAt: now,
      };
      const pool = await lockPool(tx, s.businessId, s.environment);

      if (amountWei === 0n) {
        // Entirely offset by earlier clawbacks: settled without a transaction.
        const payout = await tx.payout.create({ data: { ...base, status: "CONFIRMED", sentAt: now, confirmedAt: now, gasWei: "0" } });
        await claimRewards(tx, payout.id, rewardIds, "PAID_OUT");
        await creditLedger(tx, { businessId: s.businessId, environment: s.environment, amountWei: offsetWei, kind: "REVERSAL", memo: `Payout ${payout.id}: ${weiToEth(offsetWei)} ETH of rewards offset against clawed-back rewards` });
        return { kind: "created", payout };
      }

      const chainId = s.chainId ?? (await onChain(s.target, "getChainId", () => s.client.getChainId()));
      const nonce = await nextNonce(tx, s);
      const fees = s.fees ?? (await quoteFees(s));
      const gasLimit = await gasLimitFor(s, c.walletAddress as Address, amountWei);
      const reserveWei = gasLimit * fees.maxFeePerGas;
      const onChainWei = await onChain(s.target, "getBalance", () => s.client.getBalance({ address: s.address, blockTag: "pending" }));
      const poolWei = await getBalanceWei(tx, s.businessId, s.environment);
      let refusal: string | null = null;
      if (onChainWei < amountWei + reserveWei) {
        refusal = `INSUFFICIENT_FUNDS: the deposit address holds ${weiToEth(onChainWei)} ETH; this payout needs ${weiToEth(amountWei)} ETH plus up to ${weiToEth(reserveWei)} ETH of gas`;
      } else if (poolWei < reserveWei) {
        refusal = `INSUFFICIENT_POOL_FOR_GAS: the pool has ${weiToEth(poolWei)} ETH available; gas needs up to ${weiToEth(reserveWei)} ETH`;
      }
      if (refusal) {
        // Nothing signed: recorded as FAILED with its reason; the rewards stay PAYABLE.
        const payout = await tx.payout.create({ data: { ...base, status: "FAILED", error: refusal, failedAt: now, chainId } });
        await emitWebhookEvent(tx, payoutWebhook("payout.failed", payout)); // webhook
        return { kind: "created", payout };
      }
      const signed = await signTransfer(s, { to: c.walletAddress as Address, value: amountWei, nonce, gasLimit, fees, chainId });
      const payout = await tx.payout.create({
        data: { ...base, status: "PENDING", chainId, nonce, txHash: signed.txHash, rawTx: signed.rawTx, gasReservedWei: weiToDb(reserveWei) },
      });
      await recordTransaction(tx, payout.id, signed);
      await claimRewards(tx, payout.id, rewardIds, "IN_PAYOUT");
      await debitLedger(tx, pool, {
        businessId: s.businessId,
        environment: s.environment,
        amountWei: reserveWei,
        kind: "GAS",
        memo: `Gas reserved for payout ${payout.id} (tx ${signed.txHash})`,
      });
      return { kind: "created", payout };
    }
    return { kind: "none" };
  }, TX_OPTIONS);
}

/** Moves exactly these PAYABLE rewards into the payout; any of them already taken aborts the transaction. */
async function claimRewards(tx: Tx, payoutId: string, rewardIds: string[], to: "IN_PAYOUT" | "PAID_OUT") {
  const r = await tx.reward.updateMany({ where: { id: { in: rewardIds }, payoutStatus: "PAYABLE", payoutId: null }, data: { payoutStatus: to, payoutId } });
  if (r.count !== rewardIds.length) throw new AppError("CONFLICT", "A reward of this payout was taken by another payout; retry");
}

