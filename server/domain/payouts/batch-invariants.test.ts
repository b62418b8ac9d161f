// The database's own guards of batch payouts (migration 0220), whatever code writes: a batch's
// payout takes a status only when its batch has it and never changes batch; a nonce of a sending
// address is live once, in a single payout or a batch; a payment batch pays at least two.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { testBusiness } from "../../../tests/support/jobs-fixtures";
import { upsertParticipant } from "../participants/service";

const FROM = "0x3333333333333333333333333333333333333333";
const TO = "0x4444444444444444444444444444444444444444";
const HASH = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

async function setup() {
  const scope = await testBusiness();
  const p = await upsertParticipant(scope, { userId: `batch-${Math.random().toString(36).slice(2)}` });
  const batch = (nonce: number, extra: Record<string, unknown> = {}) =>
    db.payoutBatch.create({
      data: { businessId: scope.businessId, environment: scope.environment, kind: "ETH", fromAddress: FROM, contractAddress: TO, chainId: 31337, nonce, txHash: HASH(nonce + 1000), rawTx: "0x02", recipients: 2, amountWei: "2", ...extra },
    });
  const payout = (extra: Record<string, unknown>) =>
    db.payout.create({
      data: { businessId: scope.businessId, environment: scope.environment, participantId: p.participantId, walletAddress: TO, fromAddress: FROM, amountWei: "1", rewardsWei: "1", chainId: 31337, ...extra },
    });
  return { batch, payout };
}

describe("batch payouts in the database", () => {
  it("a batch's payout follows its batch's status and never changes batch", async () => {
    const { batch, payout } = await setup();
    const b = await batch(0);
    const p = await payout({ batchId: b.id, status: "PENDING", nonce: 0, txHash: b.txHash });
    await expect(db.payout.update({ where: { id: p.id }, data: { status: "CONFIRMED" } })).rejects.toThrow(/BATCH_STATUS/);
    await expect(payout({ batchId: b.id, status: "SENT", nonce: 0, txHash: b.txHash })).rejects.toThrow(/BATCH_STATUS/);
    await db.payoutBatch.update({ where: { id: b.id }, data: { status: "SENT" } });
    await db.payout.update({ where: { id: p.id }, data: { status: "SENT" } });
    const other = await batch(1);
    await expect(db.payout.update({ where: { id: p.id }, data: { batchId: other.id } })).rejects.toThrow(/batch never changes/);
    await db.payoutBatch.update({ where: { id: b.id }, data: { status: "CONFIRMED" } });
    await db.payout.update({ where: { id: p.id }, data: { status: "CONFIRMED" } });
  });

  it("a nonce is live once: in a single payout or a batch, not both; a failed one frees it", async () => {
    const { batch, payout } = await setup();
    await payout({ status: "PENDING", nonce: 5, txHash: HASH(5), rawTx: "0x02" });
    await expect(batch(5)).rejects.toThrow(/NONCE_TAKEN/);
    await expect(batch(6)).resolves.toMatchObject({ nonce: 6 });
    await expect(batch(6, { txHash: HASH(99) })).rejects.toThrow();
    await expect(payout({ status: "PENDING", nonce: 6, txHash: HASH(6), rawTx: "0x02" })).rejects.toThrow(/NONCE_TAKEN/);
    await batch(7, { status: "FAILED" });
    await expect(payout({ status: "PENDING", nonce: 7, txHash: HASH(7), rawTx: "0x02" })).resolves.toMatchObject({ nonce: 7 });
  });

  it("a payment batch pays at least two; an approval pays nobody", async () => {
    const { batch } = await setup();
    await expect(batch(10, { recipients: 1 })).rejects.toThrow();
    await expect(batch(11, { kind: "APPROVAL", recipients: 0, amountWei: "0" })).rejects.toThrow(); // no token
    await expect(batch(12, { kind: "APPROVAL", recipients: 0, amountWei: "0", tokenAddress: TO })).resolves.toMatchObject({ kind: "APPROVAL" });
  });
});
