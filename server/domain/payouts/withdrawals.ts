// Withdrawals requested by the referrer (docs/payouts.md, Withdrawals). A request is a row that
// asks the next payout run to pay this participant: it enqueues that run at once (and the
// schedule enqueues one for every environment with a request waiting), so nothing here signs or
// sends. A trigger on Payout (migration 0240) links the participant's next payout to the request
// and follows it to PAID or FAILED; the run answers a request it could not pay (answerWithdrawals).
import { db, type Tx } from "../../db/client";
import { isUniqueViolation } from "../../db/unique-violation";
import { chainTarget } from "../../chain/clients";
import { env } from "../../shared/env";
import { AppError, notFound } from "../../shared/errors";
import { txUrlFor } from "../../shared/explorer";
import { newId } from "../../shared/ids";
import { checkCursor, pageArgs, toPage } from "../../shared/list-page";
import { toBigInt, weiToDb } from "../../shared/money";
import { assetTagOf } from "../../shared/asset";
import type { Environment } from "../../shared/environment";
import type { PortalAuth } from "../../shared/portal-auth";
import { amountOf, readAsset, sharedAmountUnits } from "../assets/read";
import { hashIp, recordAudit } from "../audit/service";
import { loadConfig } from "../effective-config/load";
import { dispatchJobs, insertJob, type QueuedJob } from "../jobs/queue";
import { walletProblem } from "../participants/wallet-rules";
import { payableNowSql } from "../rewards/state";
import { participantDebtWei } from "./create";
import type { SkippedPayout } from "./schemas";
import { withdrawalBlock, withdrawalMinimum, type WithdrawalFacts } from "./withdrawal-rules";
import type { WithdrawalRequested, WithdrawalsOutput } from "./withdrawal-schemas";

/** Requests a referrer may make in any 24 hours. */
const WITHDRAWALS_PER_DAY = 5;
const DAY_MS = 86_400_000;
const OPEN = ["REQUESTED", "SENT"] as const;

/** What a payout of the participant would pay now: payable rewards (ended holds included) not in a payout, less clawbacks owed. */
async function payableUnits(client: Tx | typeof db, participantId: string, businessId: string, environment: Environment, now: Date): Promise<bigint> {
  const [row] = await client.$queryRawUnsafe<Array<{ units: string }>>(
    `SELECT COALESCE(SUM(r."amountWei" - r."returnedWei"), 0)::text AS "units" FROM "Reward" r
      WHERE r."participantId" = $1 AND r."businessId" = $2 AND r."environment" = $3::"Environment"
        AND ${payableNowSql("r", "$4::timestamp(3)")} AND r."payoutId" IS NULL`,
    participantId,
    businessId,
    environment,
    now,
  );
  const payable = toBigInt(row?.units ?? 0);
  if (payable === 0n) return 0n;
  const debt = await participantDebtWei(client, participantId);
  return payable - (debt < payable ? debt : payable);
}

/** Everything withdrawalBlock decides on, for the session's participant (404 when they are not the session's business's). */
async function factsOf(client: Tx | typeof db, auth: PortalAuth, now: Date): Promise<WithdrawalFacts> {
  const p = await client.participant.findFirst({
    where: { id: auth.participantId, businessId: auth.businessId, environment: auth.environment },
    select: { walletAddress: true, walletVerified: true, walletFailure: true, walletFailedAt: true, business: { select: { depositIndex: true } } },
  });
  if (!p) throw notFound("Participant");
  const [cfg, asset, amountUnits] = [await loadConfig(client, auth.businessId, auth.environment), await readAsset(client, auth.businessId, auth.environment), await payableUnits(client, auth.participantId, auth.businessId, auth.environment, now)];
  const failure = p.walletAddress ? (p.walletFailedAt ? (p.walletFailure ?? "it refused a payout") : walletProblem(p.walletAddress, p.business.depositIndex)) : null;
  return {
    enabled: cfg.withdrawalsEnabled,
    walletAddress: p.walletAddress,
    walletVerified: p.walletVerified,
    requireVerifiedWallet: cfg.requireVerifiedWallet,
    walletFailure: failure,
    amountUnits,
    minUnits: withdrawalMinimum(cfg.minWithdrawalWei === null ? null : sharedAmountUnits(cfg.minWithdrawalWei, asset), sharedAmountUnits(cfg.minPayoutWei, asset)),
    asset,
  };
}

/** The open request and the requests of the last 24 hours; Retry-After (seconds) when the day's allowance is used. */
async function limitsOf(client: Tx | typeof db, participantId: string, now: Date) {
  const [open, recent] = await Promise.all([
    client.withdrawal.findFirst({ where: { participantId, status: { in: [...OPEN] } }, select: { id: true } }),
    client.withdrawal.findMany({ where: { participantId, createdAt: { gt: new Date(now.getTime() - DAY_MS) } }, select: { createdAt: true }, orderBy: { createdAt: "asc" } }),
  ]);
  const retryAfter = recent.length >= WITHDRAWALS_PER_DAY ? Math.max(1, Math.ceil((recent[recent.length - WITHDRAWALS_PER_DAY].createdAt.getTime() + DAY_MS - now.getTime()) / 1000)) : null;
  return { open: !!open, retryAfter };
}

const pending = () => new AppError("WITHDRAWAL_PENDING", "A withdrawal of yours is already open: it is paid by the next payout run");

/**
 * Enqueues the environment's payout run, due in WITHDRAWAL_RUN_DELAY_MS, unless one is already
 * queued to start by then (a running one may have passed this participant already).
 */
async function enqueueRun(tx: Tx, businessId: string, environment: Environment, now: Date): Promise<QueuedJob | null> {
  if ("problem" in chainTarget(environment)) return null;
  const runAt = new Date(now.getTime() + env.withdrawalRunDelayMs);
  const waiting = await tx.job.findFirst({ where: { businessId, environment, type: "REWARD_PAYOUT", status: "QUEUED", runAt: { lte: runAt } }, select: { id: true } });
  return waiting ? null : insertJob(tx, { businessId, environment, apiKeyId: null }, "REWARD_PAYOUT", { reason: "withdrawal" }, runAt);
}

/**
 * POST /portal/api/withdrawals: the participant's row is locked, so their requests are decided
 * one at a time (the open request and the day's count are exact); the partial unique index
 * Withdrawal_one_open holds the first rule for any writer.
 */
export async function requestWithdrawal(auth: PortalAuth, opts: { clientIp?: string | null } = {}, now = new Date()): Promise<WithdrawalRequested> {
  if (auth.readOnly) throw new AppError("FORBIDDEN", "A staff preview of the portal is read-only");
  let job: QueuedJob | null = null;
  const out = await db
    .$transaction(async (tx) => {
      await tx.$queryRaw`SELECT "id" FROM "Participant" WHERE "id" = ${auth.participantId} FOR UPDATE`;
      const facts = await factsOf(tx, auth, now);
      if (!facts.enabled) throw new AppError("WITHDRAWALS_DISABLED", withdrawalBlock(facts)!.message);
      const limits = await limitsOf(tx, auth.participantId, now);
      if (limits.open) throw pending();
      if (limits.retryAfter !== null) {
        throw new AppError("RATE_LIMITED", `At most ${WITHDRAWALS_PER_DAY} withdrawal requests in 24 hours; retry after the delay in Retry-After`, { limit: WITHDRAWALS_PER_DAY, retryAfterSeconds: limits.retryAfter }, { "Retry-After": String(limits.retryAfter) });
      }
      const block = withdrawalBlock(facts);
      if (block) throw new AppError(block.code, block.message);
      const w = await tx.withdrawal.create({
        data: { id: newId(), businessId: auth.businessId, environment: auth.environment, participantId: auth.participantId, amountWei: weiToDb(facts.amountUnits), createdAt: now, updatedAt: now },
      });
      const amountEth = amountOf(facts.amountUnits, facts.asset);
      await recordAudit(tx, {
        businessId: auth.businessId,
        environment: auth.environment,
        actor: { userId: null, email: null },
        action: "portal.withdrawal.request",
        target: `participantId:${auth.participantId}`,
        after: { withdrawalId: w.id, status: w.status, amountEth, asset: facts.asset.symbol, walletAddress: facts.walletAddress, portalSessionId: auth.sessionId },
        ipHash: hashIp(opts.clientIp),
      });
      job = await enqueueRun(tx, auth.businessId, auth.environment, now);
      return { withdrawalId: w.id, status: "REQUESTED" as const, amountEth, asset: assetTagOf(facts.asset) };
    })
    .catch((e: unknown) => {
      throw isUniqueViolation(e) ? pending() : e;
    });
  if (job) dispatchJobs([job]);
  return out;
}

/** GET /portal/api/withdrawals: the participant's requests, newest first, and whether they may make one now. */
export async function listWithdrawals(auth: PortalAuth, q: { limit: number; cursor?: string }, now = new Date()): Promise<WithdrawalsOutput> {
  const where = { participantId: auth.participantId, businessId: auth.businessId, environment: auth.environment };
  await checkCursor(q.cursor, (id) => db.withdrawal.findFirst({ where: { id, ...where }, select: { id: true } }));
  const [facts, limits, rows] = await Promise.all([
    factsOf(db, auth, now),
    limitsOf(db, auth.participantId, now),
    db.withdrawal.findMany({ where, include: { payout: { select: { amountWei: true, txHash: true } } }, ...pageArgs(q.limit, q.cursor) }),
  ]);
  const amount = (v: bigint | { toFixed(): string }) => amountOf(v, facts.asset);
  const block = withdrawalBlock(facts);
  const refusal = !facts.enabled ? block : limits.open ? { code: "WITHDRAWAL_PENDING", message: pending().message } : limits.retryAfter !== null ? { code: "RATE_LIMITED", message: `At most ${WITHDRAWALS_PER_DAY} requests in 24 hours` } : block;
  const page = toPage(rows, q.limit, (w) => ({
    withdrawalId: w.id,
    status: w.status,
    amountEth: amount(w.amountWei),
    paidEth: w.payout && w.status !== "FAILED" ? amount(w.payout.amountWei) : null,
    payoutId: w.payoutId,
    txHash: w.payout?.txHash ?? null,
    txUrl: txUrlFor(auth.environment, w.payout?.txHash ?? null),
    failureCode: w.failureCode,
    failure: w.failure,
    createdAt: w.createdAt.toISOString(),
    settledAt: w.settledAt?.toISOString() ?? null,
  }));
  const target = chainTarget(auth.environment);
  return {
    ...page,
    availability: {
      allowed: refusal === null,
      reason: refusal?.code ?? null,
      message: refusal?.message ?? null,
      amountEth: amount(facts.amountUnits),
      minWithdrawalEth: amount(facts.minUnits),
      asset: assetTagOf(facts.asset),
      runWithinSeconds: Math.ceil(env.withdrawalRunDelayMs / 1000),
      confirmations: "problem" in target ? 1 : target.confirmations,
    },
  };
}

/** Environments with a request waiting for its run (the schedule runs them whatever the business's schedule). */
export async function withdrawalsWaiting(): Promise<Array<{ businessId: string; environment: Environment }>> {
  return db.withdrawal.findMany({ where: { status: "REQUESTED" }, distinct: ["businessId", "environment"], select: { businessId: true, environment: true } });
}

/**
 * After a run: a request it did not pay is answered FAILED when its participant cannot be paid
 * (passed over with a reason, or no longer eligible: no wallet, a failed wallet, nothing payable
 * or below the minimum). A request of a participant the run did not reach (it stopped early)
 * stays REQUESTED for the next run. Each answer is in the audit log.
 */
export async function answerWithdrawals(businessId: string, environment: Environment, skipped: SkippedPayout[], now = new Date()): Promise<number> {
  const waiting = await db.withdrawal.findMany({ where: { businessId, environment, status: "REQUESTED", createdAt: { lte: now } }, select: { id: true, participantId: true } });
  let answered = 0;
  for (const w of waiting) {
    const passed = skipped.find((s) => s.participantId === w.participantId);
    const auth: PortalAuth = { sessionId: null, businessId, environment, participantId: w.participantId, returnUrl: null, expiresAt: now, readOnly: true };
    const block = passed ? null : withdrawalBlock({ ...(await factsOf(db, auth, now)), enabled: true });
    const reason = passed ? { code: passed.code, message: passed.message } : block;
    if (!reason) continue;
    await db.$transaction(async (tx) => {
      const r = await tx.withdrawal.updateMany({ where: { id: w.id, status: "REQUESTED" }, data: { status: "FAILED", failureCode: reason.code, failure: reason.message, settledAt: now, updatedAt: now } });
      if (r.count !== 1) return;
      answered++;
      await recordAudit(tx, { businessId, environment, actor: { userId: null, email: null }, action: "payouts.withdrawal.fail", target: `participantId:${w.participantId}`, after: { withdrawalId: w.id, status: "FAILED", failureCode: reason.code, failure: reason.message } });
    });
  }
  return answered;
}

/** Open requests by participant, for the payout queue (state REQUESTED). */
export async function openWithdrawals(businessId: string, environment: Environment, participantIds: string[]): Promise<Map<string, Date>> {
  const rows = await db.withdrawal.findMany({ where: { businessId, environment, status: "REQUESTED", participantId: { in: participantIds } }, select: { participantId: true, createdAt: true } });
  return new Map(rows.map((r) => [r.participantId, r.createdAt]));
}
