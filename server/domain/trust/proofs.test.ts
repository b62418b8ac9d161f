// Proofs of liabilities on the database (PGlite and PostgreSQL): the snapshot of what each
// participant is owed (the totals' own computation), the tree and paths against OpenZeppelin's
// library, the EIP-712 signature, the public view, a short pool (covered: false and the low-pool
// alert), erasure (every total and published proof unchanged), the append-only and covered
// guards, and the daily schedule. The chain reading is given (HTTP tests read a real chain).
import { StandardMerkleTree } from "@openzeppelin/merkle-tree";
import { recoverTypedDataAddress, type Hex } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { domainBusiness, fund, trackReferral } from "../../../tests/support/domain";
import { liabilityRootOf } from "../../../sdk/src/proofs";
import { depositAccountFor } from "../../chain/deposit-address";
import { db } from "../../db/client";
import { ethToWei } from "../../shared/money";
import { eraseParticipant } from "../participants/privacy";
import { upsertParticipant } from "../participants/service";
import { participantTotals } from "../payouts/totals";
import { LEAF_ENCODING } from "./merkle";
import { findLeaf, getLiabilityProof, getParticipantProof, recordLiabilityProof, type PoolReading } from "./proofs";
import { scheduleDailyProofs } from "../jobs/proof-schedule";
import { proofTypedData } from "./statement";
import type { ProofOutput } from "./schemas";

const reading = (poolEth: string): PoolReading => ({ chainId: 31337, blockNumber: 42n, poolBalanceWei: ethToWei(poolEth) });

async function program() {
  const { businessId, scope } = await domainBusiness({ referralRewardEth: "0.01", fundEth: "1" });
  const a = await upsertParticipant(scope, { email: "alice@example.com" });
  const b = await upsertParticipant(scope, { email: "bob@example.com" });
  const idle = await upsertParticipant(scope, { email: "idle@example.com" });
  for (const code of [a.referralCode, a.referralCode, b.referralCode]) expect((await trackReferral(scope, code)).status).toBe(200);
  const { depositIndex } = await db.business.findUniqueOrThrow({ where: { id: businessId }, select: { depositIndex: true } });
  const account = depositAccountFor("TEST", depositIndex)!;
  return { businessId, scope, a, b, idle, account };
}

const statementOf = (p: ProofOutput) =>
  proofTypedData({ ...p, root: p.root as Hex, totalOwedWei: BigInt(p.totalOwedWei), poolBalanceWei: BigInt(p.poolBalanceWei), blockNumber: BigInt(p.blockNumber) });

describe("proofs of liabilities", () => {
  let f: Awaited<ReturnType<typeof program>>;
  beforeAll(async () => {
    f = await program();
  });

  it("commits every participant's owed balance (the totals' computation), signed by the deposit address", async () => {
    const p = await recordLiabilityProof(f.businessId, "TEST", "MANUAL", reading("1"), f.account);
    expect(p).toMatchObject({ totalOwedWei: ethToWei("0.03").toString(), participants: 6, covered: true, blockNumber: 42, signer: f.account.address, reason: "MANUAL" });
    expect(await recoverTypedDataAddress({ ...statementOf(p), signature: p.signature as Hex })).toBe(f.account.address);
    const head = await db.pool.findFirstOrThrow({ where: { businessId: f.businessId, environment: "TEST" } });
    expect(p.ledgerHead).toBe(head.ledgerHead);
    expect(p.ledgerEntries).toBe(Number(head.ledgerSeq));

    const totals = await participantTotals(f.businessId, [f.a.participantId, f.idle.participantId]);
    for (const who of [f.a, f.idle]) {
      const mine = await getParticipantProof(f.businessId, who.participantId);
      expect(mine.proof).toEqual(p);
      expect(BigInt(mine.leaf.owedWei)).toBe(ethToWei(totals.get(who.participantId)!.balanceEth));
      expect(StandardMerkleTree.verify(p.root, [...LEAF_ENCODING], [mine.leaf.participantKey, mine.leaf.owedWei], mine.path)).toBe(true);
      expect(liabilityRootOf(mine.leaf, mine.path)).toBe(p.root);
      // A tampered amount does not lead to the root.
      expect(StandardMerkleTree.verify(p.root, [...LEAF_ENCODING], [mine.leaf.participantKey, (BigInt(mine.leaf.owedWei) + 1n).toString()], mine.path)).toBe(false);
      expect(liabilityRootOf({ ...mine.leaf, owedWei: "999" }, mine.path)).not.toBe(p.root);
    }
    expect((await getParticipantProof(f.businessId, f.a.participantId)).leaf.owedWei).toBe(ethToWei("0.02").toString());

    // The public view: the same statement, no leaves.
    expect(await getLiabilityProof(f.businessId, "TEST", "latest")).toEqual(p);
    expect(await getLiabilityProof(f.businessId, "TEST", p.proofId)).toEqual(p);
    expect(JSON.stringify(p)).not.toContain(f.a.participantId);
    await expect(getLiabilityProof(f.businessId, "LIVE", "latest")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(getLiabilityProof("another-business", "TEST", p.proofId)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(getParticipantProof("another-business", f.a.participantId)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("a pool short of what is owed is published covered: false and raises the low-pool alert once", async () => {
    const p = await recordLiabilityProof(f.businessId, "TEST", "DAILY", reading("0.01"), f.account);
    expect(p).toMatchObject({ covered: false, poolBalanceWei: ethToWei("0.01").toString() });
    expect(await getLiabilityProof(f.businessId, "TEST", "latest")).toEqual(p);
    const alerts = await db.alert.findMany({ where: { businessId: f.businessId, environment: "TEST", kind: "LOW_POOL" } });
    expect(alerts).toHaveLength(1);
    expect(alerts[0].message).toBe("Pool balance 0.01 ETH fell below the alert threshold of 0.03 ETH");
    await recordLiabilityProof(f.businessId, "TEST", "DAILY", reading("0.01"), f.account);
    expect(await db.alert.count({ where: { businessId: f.businessId, kind: "LOW_POOL" } })).toBe(1);
  });

  it("erasure leaves every total and every published proof unchanged", async () => {
    const before = await recordLiabilityProof(f.businessId, "TEST", "MANUAL", reading("1"), f.account);
    const leafBefore = await getParticipantProof(f.businessId, f.a.participantId, before.proofId);
    await eraseParticipant(f.businessId, f.a.participantId);
    expect(await getLiabilityProof(f.businessId, "TEST", before.proofId)).toEqual(before);
    expect(await getParticipantProof(f.businessId, f.a.participantId, before.proofId)).toEqual(leafBefore);
    const after = await recordLiabilityProof(f.businessId, "TEST", "MANUAL", reading("1"), f.account);
    expect({ root: after.root, totalOwedWei: after.totalOwedWei, participants: after.participants }).toEqual({
      root: before.root,
      totalOwedWei: before.totalOwedWei,
      participants: before.participants,
    });
  });

  it("published proofs and leaves can be neither changed nor deleted; covered always follows the amounts", async () => {
    const p = await getLiabilityProof(f.businessId, "TEST", "latest");
    await expect(db.liabilityProof.update({ where: { id: p.proofId }, data: { root: "0x00" } })).rejects.toThrow(/append-only/);
    await expect(db.liabilityProof.delete({ where: { id: p.proofId } })).rejects.toThrow(/append-only/);
    const insert = (id: string, covered: boolean, leavesHex: string | null = "") =>
      db.$executeRawUnsafe(
        `INSERT INTO "LiabilityProof" (id, "businessId", environment, root, "totalOwedWei", participants, "poolBalanceWei", "blockNumber", "chainId", "ledgerSeq", signer, signature, covered, reason, tree, leaves)
         VALUES ($1, $2, 'TEST', '0x', 10, 0, 1, 1, 1, 0, '0x', '0x', $3, 'MANUAL', decode(repeat('00', 32), 'hex'), decode($4, 'hex'))`,
        id,
        f.businessId,
        covered,
        leavesHex,
      );
    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: { message?: string; meta?: unknown; cause?: { message?: string } }) => `${e.message} ${JSON.stringify(e.meta ?? {})} ${e.cause?.message ?? ""}`,
      );
    expect(await refusal(insert("forged", true))).toMatch(/LiabilityProof_covered_check/);
    // A proof carries one leaf entry per participant: none, or one too many, is refused.
    expect(await refusal(insert("no-leaves", false, null))).toMatch(/LiabilityProof_leaves_check/);
    expect(await refusal(insert("extra-leaf", false, "00".repeat(68)))).toMatch(/LiabilityProof_leaves_check/);
    // The same row with covered telling the truth is accepted: the guard is the only difference.
    await insert("honest", false);
  });

  it("a participant's leaf is found among many (binary search of the leaf table); someone not in the proof gets a 404", async () => {
    const { scope, businessId } = await domainBusiness({ referralRewardEth: "0.01", fundEth: "1" });
    const people = [];
    for (let i = 0; i < 40; i++) people.push(await upsertParticipant(scope, { email: `p${i}@example.com` }));
    for (const who of people.slice(0, 7)) expect((await trackReferral(scope, who.referralCode)).status).toBe(200);
    const { depositIndex } = await db.business.findUniqueOrThrow({ where: { id: businessId }, select: { depositIndex: true } });
    const p = await recordLiabilityProof(businessId, "TEST", "MANUAL", reading("1"), depositAccountFor("TEST", depositIndex)!);
    const totals = await participantTotals(businessId, people.map((x) => x.participantId));
    for (const who of people) {
      const mine = await getParticipantProof(businessId, who.participantId, p.proofId);
      expect(BigInt(mine.leaf.owedWei)).toBe(ethToWei(totals.get(who.participantId)!.balanceEth));
      expect(liabilityRootOf(mine.leaf, mine.path)).toBe(p.root);
    }
    const late = await upsertParticipant(scope, { email: "late@example.com" });
    await expect(getParticipantProof(businessId, late.participantId, p.proofId)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("a proof published before the leaf table answers from its leaf rows", async () => {
    const p = await recordLiabilityProof(f.businessId, "TEST", "MANUAL", reading("1"), f.account);
    const mine = await getParticipantProof(f.businessId, f.b.participantId, p.proofId);
    const at = (await findLeaf(p.proofId, f.b.participantId))!;
    expect(at.owedWei).toBe(mine.leaf.owedWei);
    // Such a row as migration 0140 found it: no leaves column, its leaves as LiabilityProofLeaf rows.
    await db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`ALTER TABLE "LiabilityProof" DROP CONSTRAINT "LiabilityProof_leaves_check"`);
      await tx.$executeRawUnsafe(
        `INSERT INTO "LiabilityProof" (id, "businessId", environment, root, "totalOwedWei", participants, "poolBalanceWei", "blockNumber", "chainId", "ledgerSeq", "ledgerHead", signer, signature, covered, reason, "createdAt", tree)
         SELECT 'legacy-' || id, "businessId", environment, root, "totalOwedWei", participants, "poolBalanceWei", "blockNumber", "chainId", "ledgerSeq", "ledgerHead", signer, signature, covered, reason, "createdAt" - interval '1 day', tree
           FROM "LiabilityProof" WHERE id = $1`,
        p.proofId,
      );
      await tx.$executeRawUnsafe(
        `INSERT INTO "LiabilityProofLeaf" ("proofId", "participantId", "treeIndex", "owedWei") VALUES ($1, $2, $3, $4::numeric)`,
        `legacy-${p.proofId}`,
        f.b.participantId,
        at.treeIndex,
        at.owedWei,
      );
      await tx.$executeRawUnsafe(
        `ALTER TABLE "LiabilityProof" ADD CONSTRAINT "LiabilityProof_leaves_check" CHECK ("leaves" IS NOT NULL AND length("leaves") = 68 * "participants") NOT VALID`,
      );
    });
    await expect(db.liabilityProofLeaf.updateMany({ where: { proofId: `legacy-${p.proofId}` }, data: { owedWei: 0 } })).rejects.toThrow(/append-only/);
    const old = await getParticipantProof(f.businessId, f.b.participantId, `legacy-${p.proofId}`);
    expect({ leaf: old.leaf, path: old.path }).toEqual({ leaf: mine.leaf, path: mine.path });
    await expect(getParticipantProof(f.businessId, f.a.participantId, `legacy-${p.proofId}`)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("the daily schedule queues one proof per pool without a proof in the last day", async () => {
    const other = await domainBusiness({ fundEth: "0.5" });
    await fund(other.businessId, "TEST", "0.1");
    const jobs = await scheduleDailyProofs();
    const mine = await db.job.findMany({ where: { id: { in: jobs.map((j) => j.id) } } });
    expect(mine.filter((j) => j.businessId === other.businessId)).toHaveLength(1);
    expect(mine.filter((j) => j.businessId === f.businessId)).toHaveLength(0);
    expect(mine.every((j) => j.type === "LIABILITY_PROOF")).toBe(true);
    // Already queued: not again.
    const again = await scheduleDailyProofs();
    expect(again.filter((j) => mine.some((m) => m.id === j.id))).toHaveLength(0);
    expect(await db.job.count({ where: { businessId: other.businessId, type: "LIABILITY_PROOF" } })).toBe(1);
  });
});
