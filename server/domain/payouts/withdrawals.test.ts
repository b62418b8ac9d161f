// Withdrawals on the database: a request enqueues the environment's payout run within the
// minute; one open request per participant is the database's rule (partial unique index), and
// the Payout trigger links the participant's next payout and follows it to PAID or FAILED. The
// run's answer to a request it could not pay names the reason.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { newId } from "../../shared/ids";
import type { PortalAuth } from "../../shared/portal-auth";
import { domainBusiness, participant, trackReferral } from "../../../tests/support/domain";
import { schedulePayoutJobs } from "./schedule";
import { answerWithdrawals, listWithdrawals, requestWithdrawal } from "./withdrawals";

const WALLET = "0x1111111111111111111111111111111111111111";

async function requester(spend: Record<string, unknown> = { withdrawalsEnabled: true }) {
  const { businessId, scope } = await domainBusiness({ fundEth: "1", spend });
  const p = await participant(scope, { walletAddress: WALLET });
  expect((await trackReferral(scope, p.referralCode)).status).toBe(200);
  const auth: PortalAuth = { sessionId: null, businessId, environment: "TEST", participantId: p.participantId, returnUrl: null, expiresAt: new Date(Date.now() + 600_000), readOnly: false };
  return { businessId, participantId: p.participantId, auth };
}

const payoutRow = (businessId: string, participantId: string, status: "PENDING" | "FAILED") => ({
  id: newId(),
  businessId,
  environment: "TEST" as const,
  participantId,
  walletAddress: WALLET,
  fromAddress: "0x2222222222222222222222222222222222222222",
  amountWei: "10000000000000000",
  rewardsWei: "10000000000000000",
  status,
  error: status === "FAILED" ? "INSUFFICIENT_FUNDS: the deposit address holds 0 ETH" : null,
  ...(status === "PENDING" ? { txHash: `0x${"ab".repeat(32)}`, rawTx: "0x02", nonce: Math.floor(Math.random() * 1e9) } : {}),
});

describe("withdrawals", () => {
  it("a request enqueues the payout run within the minute, and a second is refused while the first is open", async () => {
    const { businessId, auth } = await requester();
    const before = Date.now();
    const w = await requestWithdrawal(auth);
    expect(w).toMatchObject({ status: "REQUESTED", amountEth: "0.01", asset: { symbol: "ETH" } });
    const job = await db.job.findFirst({ where: { businessId, environment: "TEST", type: "REWARD_PAYOUT", status: "QUEUED" } });
    expect(job).not.toBeNull();
    expect(job!.runAt.getTime()).toBeLessThanOrEqual(before + 60_000);
    await expect(requestWithdrawal(auth)).rejects.toMatchObject({ code: "WITHDRAWAL_PENDING" });
    // A second request does not queue a second run while the first waits.
    expect(await db.job.count({ where: { businessId, type: "REWARD_PAYOUT", status: "QUEUED" } })).toBe(1);
    const audit = await db.auditLog.findFirst({ where: { businessId, action: "portal.withdrawal.request" } });
    expect(audit?.target).toBe(`participantId:${auth.participantId}`);
  });

  it("one open request per participant is the database's rule, whoever writes (Withdrawal_one_open)", async () => {
    const { businessId, participantId } = await requester();
    const row = () => ({ id: newId(), businessId, environment: "TEST" as const, participantId, amountWei: "1" });
    await db.withdrawal.create({ data: row() });
    await expect(db.withdrawal.create({ data: row() })).rejects.toThrow();
    // A settled one does not count.
    await db.withdrawal.updateMany({ where: { participantId }, data: { status: "FAILED" } });
    await db.withdrawal.create({ data: row() });
  });

  it("the participant's next payout takes the request (trigger): SENT, then PAID on confirmation; a refused payout fails it", async () => {
    const { businessId, participantId, auth } = await requester();
    const w = await requestWithdrawal(auth);
    const p = await db.payout.create({ data: payoutRow(businessId, participantId, "PENDING") });
    expect(await db.withdrawal.findUniqueOrThrow({ where: { id: w.withdrawalId } })).toMatchObject({ status: "SENT", payoutId: p.id });
    await db.payout.update({ where: { id: p.id }, data: { status: "SENT" } });
    await db.payout.update({ where: { id: p.id }, data: { status: "CONFIRMED", confirmedAt: new Date() } });
    const paid = await listWithdrawals(auth, { limit: 10 });
    expect(paid.data[0]).toMatchObject({ withdrawalId: w.withdrawalId, status: "PAID", paidEth: "0.01", txHash: `0x${"ab".repeat(32)}`, payoutId: p.id });
    expect(paid.data[0].settledAt).not.toBeNull();

    // Paid: a new request may be made; a payout refused before signing fails it with the reason.
    await db.reward.updateMany({ where: { participantId }, data: { payoutStatus: "PAYABLE", payoutId: null } });
    const again = await requestWithdrawal(auth);
    await db.payout.create({ data: payoutRow(businessId, participantId, "FAILED") });
    expect(await db.withdrawal.findUniqueOrThrow({ where: { id: again.withdrawalId } })).toMatchObject({ status: "FAILED", failureCode: "PAYOUT_FAILED", failure: expect.stringMatching(/^INSUFFICIENT_FUNDS/) });
  });

  it("the run answers a request it could not pay with the reason, and leaves one it did not reach", async () => {
    const { businessId, participantId, auth } = await requester();
    const w = await requestWithdrawal(auth);
    // Eligible and not passed over: still waiting for a run.
    expect(await answerWithdrawals(businessId, "TEST", [])).toBe(0);
    expect((await db.withdrawal.findUniqueOrThrow({ where: { id: w.withdrawalId } })).status).toBe("REQUESTED");
    // Passed over with a reason: answered with it.
    expect(await answerWithdrawals(businessId, "TEST", [{ participantId, code: "GAS_TOO_HIGH", message: "Held back: its gas would exceed the share" }])).toBe(1);
    expect(await db.withdrawal.findUniqueOrThrow({ where: { id: w.withdrawalId } })).toMatchObject({ status: "FAILED", failureCode: "GAS_TOO_HIGH" });
    // The wallet removed since the request: NO_WALLET.
    const w2 = await requestWithdrawal(auth);
    await db.participant.update({ where: { id: participantId }, data: { walletAddress: null } });
    expect(await answerWithdrawals(businessId, "TEST", [])).toBe(1);
    expect(await db.withdrawal.findUniqueOrThrow({ where: { id: w2.withdrawalId } })).toMatchObject({ status: "FAILED", failureCode: "NO_WALLET" });
    expect(await db.auditLog.count({ where: { businessId, action: "payouts.withdrawal.fail" } })).toBe(2);
  });

  it("the schedule runs an environment with a request waiting, without autoPayoutEnabled", async () => {
    const { businessId, participantId } = await requester();
    await schedulePayoutJobs();
    expect(await db.job.count({ where: { businessId, type: "REWARD_PAYOUT" } })).toBe(0);
    await db.withdrawal.create({ data: { id: newId(), businessId, environment: "TEST", participantId, amountWei: "1" } });
    await schedulePayoutJobs();
    expect(await db.job.count({ where: { businessId, environment: "TEST", type: "REWARD_PAYOUT", status: "QUEUED" } })).toBe(1);
  });
});
