// The checks every fault experiment ends with: no accepted event lost, none doubled, every event
// processed, no reward or payout twice, the ledger and audit chains verify, and the books
// reconcile with the chain (deposit address balance = ledger balance + owed).
import type { Sql } from "../../tests/support/database";
import type { Shop } from "./kit";

/** What the app answers about its books (asked while it runs). */
export async function answeredBooks(s: Pick<Shop, "call">) {
  const ledger = await s.call("GET", "/business/ledger/verify?environment=TEST");
  const audit = await s.call("GET", "/business/audit-log/verify");
  const balance = await s.call("GET", "/business/balance?environment=TEST");
  return {
    ledgerChainOk: ledger.body?.ok === true,
    auditChainOk: audit.body?.ok === true,
    reconciled: balance.body?.reconciled === true,
    unreconciledEth: (balance.body?.unreconciledEth as string | null) ?? null,
  };
}

const count = async (sql: Sql, text: string, params: unknown[]) => Number((await sql(`SELECT count(*)::int AS n FROM (${text}) x`, params))[0].n);

/**
 * What the database holds for business `businessId` (read with `sql`, on PGlite while the app is
 * down): `acknowledged` are the idempotency keys whose events a client was told were accepted.
 * Each reward is one per (event, participant, kind, rule) and debited once; a payout pays a reward
 * once (no reward in two payouts that did not fail; no participant paid more than earned).
 */
export async function storedBooks(sql: Sql, businessId: string, acknowledged: string[]) {
  const stored = new Set((await sql(`SELECT "idempotencyKey" AS k FROM "TrackedEvent" WHERE "businessId" = $1 AND "idempotencyKey" IS NOT NULL`, [businessId])).map((r) => String(r.k)));
  const b = [businessId];
  return {
    acknowledged: acknowledged.length,
    lost: acknowledged.filter((k) => !stored.has(k)).length,
    doubledEvents: await count(sql, `SELECT 1 FROM "TrackedEvent" WHERE "businessId" = $1 AND "idempotencyKey" IS NOT NULL GROUP BY "environment", "idempotencyKey" HAVING count(*) > 1`, b),
    unprocessedEvents: await count(sql, `SELECT 1 FROM "TrackedEvent" WHERE "businessId" = $1 AND status = 'QUEUED'`, b),
    unfinishedJobs: await count(sql, `SELECT 1 FROM "Job" WHERE "businessId" = $1 AND type IN ('EVENT_PROCESS', 'SDK_REFERRAL_APPLY') AND status IN ('QUEUED', 'RUNNING')`, b),
    failedJobs: await count(sql, `SELECT 1 FROM "Job" WHERE "businessId" = $1 AND type IN ('EVENT_PROCESS', 'SDK_REFERRAL_APPLY') AND status = 'FAILED'`, b),
    doubledReferrals: await count(sql, `SELECT 1 FROM "Referral" WHERE "businessId" = $1 GROUP BY "referredId" HAVING count(*) > 1`, b),
    rewards: await count(sql, `SELECT 1 FROM "Reward" WHERE "businessId" = $1 AND status = 'PAID'`, b),
    doubledRewards: await count(
      sql,
      `SELECT 1 FROM "Reward" WHERE "businessId" = $1 AND "eventId" IS NOT NULL GROUP BY "eventId", "participantId", kind, "ruleId" HAVING count(*) > 1`,
      b,
    ),
    doubledDebits: await count(sql, `SELECT 1 FROM "LedgerEntry" WHERE "businessId" = $1 AND "rewardId" IS NOT NULL GROUP BY "rewardId", kind HAVING count(*) > 1`, b),
    rewardsInTwoPayouts: await count(
      sql,
      `SELECT 1 FROM "Payout" p, unnest(p."rewardIds") AS r(id) WHERE p."businessId" = $1 AND p.status <> 'FAILED' GROUP BY r.id HAVING count(*) > 1`,
      b,
    ),
    overpaidParticipants: await count(
      sql,
      `SELECT 1 FROM "Payout" p WHERE p."businessId" = $1 AND p.status = 'CONFIRMED' GROUP BY p."participantId"
        HAVING sum(p."amountWei") > (SELECT COALESCE(sum(r."amountWei" - r."reversedWei"), 0) FROM "Reward" r WHERE r."participantId" = p."participantId" AND r.status = 'PAID')`,
      b,
    ),
  };
}

export type StoredBooks = Awaited<ReturnType<typeof storedBooks>>;
export type AnsweredBooks = Awaited<ReturnType<typeof answeredBooks>>;

/** The invariants that broke (empty: all held). `expectRewards`: one reward per accepted event. */
export function brokenInvariants(stored: StoredBooks, answered: AnsweredBooks, expectRewards?: number): string[] {
  const broken: string[] = [];
  if (stored.lost) broken.push(`${stored.lost} accepted events lost`);
  if (stored.doubledEvents) broken.push(`${stored.doubledEvents} events doubled`);
  if (stored.doubledReferrals) broken.push(`${stored.doubledReferrals} referred users referred twice`);
  if (stored.unprocessedEvents || stored.unfinishedJobs) broken.push(`${stored.unprocessedEvents} events / ${stored.unfinishedJobs} jobs not processed`);
  if (stored.failedJobs) broken.push(`${stored.failedJobs} jobs FAILED`);
  if (expectRewards !== undefined && stored.rewards !== expectRewards) broken.push(`${stored.rewards} rewards, expected ${expectRewards}`);
  if (stored.doubledRewards || stored.doubledDebits) broken.push(`${stored.doubledRewards} rewards / ${stored.doubledDebits} debits twice`);
  if (stored.rewardsInTwoPayouts || stored.overpaidParticipants) broken.push(`${stored.rewardsInTwoPayouts} rewards in two payouts, ${stored.overpaidParticipants} participants overpaid`);
  if (!answered.ledgerChainOk) broken.push("ledger chain does not verify");
  if (!answered.auditChainOk) broken.push("audit chain does not verify");
  if (!answered.reconciled) broken.push(`books do not reconcile with the chain (${answered.unreconciledEth} ETH)`);
  return broken;
}
