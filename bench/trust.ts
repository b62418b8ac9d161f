// npm run bench:trust [-- --entries 1000000 --participants 100000 --oz 10000]
// On the database the app uses (PGlite by default, PostgreSQL with DATABASE_URL):
//  - ledger verification: a chain of entries (seeded directly, see seedLedger), then GET /business/ledger/verify's
//    function (verifyStoredLedger), beside the baseline of reading the same pages without hashing;
//  - proof of liabilities: participants with rewards, then recordLiabilityProof (snapshot, tree,
//    EIP-712 signature, write) with a given chain reading (the three RPCs of a real build are not
//    timed), beside the tree alone and OpenZeppelin's StandardMerkleTree.of on --oz leaves.
// Figures go to bench/RESULTS.md.
import { createHash, randomUUID } from "node:crypto";
import { StandardMerkleTree } from "@openzeppelin/merkle-tree";
import { depositAccountFor } from "../server/chain/deposit-address";
import { db, dbReady, rawRows, txSql } from "../server/db/client";
import { ledgerCanonical, type LedgerExportEntry } from "../server/domain/ledger/export-format";
import { ledgerEntries, verifyStoredLedger } from "../server/domain/ledger/verify";
import { buildTree, LEAF_ENCODING, participantKey } from "../server/domain/trust/merkle";
import { recordLiabilityProof, type ProofBuildTimings } from "../server/domain/trust/proofs";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const ms = (t: number) => Math.round(performance.now() - t);

/**
 * Entries chained with the verifier's own encoding and written with triggers off (the bench
 * database's superuser: session_replication_role = replica), 20,000 per statement, then the
 * pool's head. Writing a million entries through the trigger takes far longer than verifying them;
 * the trigger's chain is checked against this encoding by server/domain/ledger/chain.test.ts.
 */
async function seedLedger(businessId: string, entries: number) {
  const base = Date.parse("2026-01-01T00:00:00.000Z");
  let prev = "0".repeat(64);
  await db.$transaction(
    async (tx) => {
      const sql = await txSql(tx);
      await sql.execute(`SET LOCAL session_replication_role = replica`);
      for (let done = 0; done < entries; ) {
        const n = Math.min(20_000, entries - done);
        const ids: string[] = [], seqs: string[] = [], amounts: string[] = [], times: string[] = [], hashes: string[] = [];
        for (let i = 0; i < n; i++) {
          const seq = String(++done);
          const e: LedgerExportEntry = { ledgerEntryId: `${businessId}-${seq}`, seq, businessId, environment: "TEST", kind: "FUNDING", amountWei: String(1000 + done), txHash: null, rewardId: null, memo: "bench", createdAt: new Date(base + done).toISOString(), hash: "" };
          prev = createHash("sha256").update(prev + ledgerCanonical(e), "utf8").digest("hex");
          ids.push(e.ledgerEntryId);
          seqs.push(seq);
          amounts.push(e.amountWei);
          times.push(e.createdAt);
          hashes.push(prev);
        }
        await sql.execute(
          `INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei", memo, seq, "createdAt", hash)
           SELECT u.id, $1, 'TEST', 'FUNDING', u.amount, 'bench', u.seq, u.at, u.hash
             FROM unnest($2::text[], $3::bigint[], $4::numeric[], $5::timestamp(3)[], $6::text[]) AS u(id, seq, amount, at, hash)`,
          businessId, ids, seqs, amounts, times, hashes,
        );
      }
      await sql.execute(
        `INSERT INTO "Pool" (id, "businessId", environment, "balanceWei", "ledgerSeq", "ledgerHead", "createdAt", "updatedAt")
         VALUES ($1, $2, 'TEST', 0, $3::bigint, $4, now(), now())`,
        randomUUID(), businessId, String(entries), prev,
      );
    },
    { timeout: 600_000 },
  );
}

async function ledgerBench(businessId: string, entries: number) {
  let t = performance.now();
  await seedLedger(businessId, entries);
  const writeMs = ms(t);
  t = performance.now();
  let read = 0;
  for await (const _ of ledgerEntries(businessId, "TEST", String(entries))) read++;
  const readOnlyMs = ms(t);
  t = performance.now();
  const verdict = await verifyStoredLedger(businessId, "TEST");
  const verifyMs = ms(t);
  return {
    entries,
    writeMs,
    readOnlyMs,
    verifyMs,
    projected1MVerifyS: Number((((verifyMs / entries) * 1e6) / 1000).toFixed(1)),
    ok: verdict.ok && read === entries,
  };
}

async function proofBench(businessId: string, participants: number, ozLeaves: number) {
  let t = performance.now();
  const chunk = 10_000;
  for (let done = 0; done < participants; done += chunk) {
    const n = Math.min(chunk, participants - done);
    await db.$executeRawUnsafe(
      `INSERT INTO "Participant" (id, "businessId", environment, "referralCode", "createdAt", "updatedAt")
       SELECT $1 || '-p' || ($2::int + g), $1, 'TEST', 'BP' || substr(md5($1), 1, 8) || ($2::int + g), now(), now() FROM generate_series(1, $3::int) g`,
      businessId,
      done,
      n,
    );
    // Two rewards each, one payable and one still on hold: both are owed.
    await db.$executeRawUnsafe(
      `INSERT INTO "Reward" (id, "businessId", environment, "participantId", kind, "requestedWei", "amountWei", status, "paidAt", "payoutStatus", "payableAt")
       SELECT $1 || '-r' || k || '-' || ($2::int + g), $1, 'TEST', $1 || '-p' || ($2::int + g), 'MANUAL', 1e15 + g, 1e15 + g, 'PAID', now(), s::"RewardPayoutStatus", now()
         FROM generate_series(1, $3::int) g, (VALUES (1, 'PAYABLE'), (2, 'ON_HOLD')) AS v(k, s)`,
      businessId,
      done,
      n,
    );
  }
  // Statistics, as autovacuum gathers them on a live database after such a load.
  await db.$executeRawUnsafe(`ANALYZE "Participant", "Reward", "Payout", "RewardReversal"`);
  const setupMs = ms(t);
  const { depositIndex } = await db.business.findUniqueOrThrow({ where: { id: businessId }, select: { depositIndex: true } });
  const account = depositAccountFor("TEST", depositIndex)!;
  t = performance.now();
  const parts: ProofBuildTimings = {};
  const proof = await recordLiabilityProof(businessId, "TEST", "MANUAL", { chainId: 31337, blockNumber: 1n, poolBalanceWei: 10n ** 24n }, account, parts);
  const buildMs = ms(t);

  const rows = await rawRows<{ id: string }>(`SELECT id FROM "Participant" WHERE "businessId" = $1 LIMIT $2`, businessId, participants);
  const leaves = rows.map((r, i) => ({ key: participantKey(r.id), owedWei: 10n ** 15n + BigInt(i) }));
  t = performance.now();
  await buildTree(leaves);
  const treeMs = ms(t);
  const some = leaves.slice(0, ozLeaves);
  t = performance.now();
  const ours = await buildTree(some);
  const oursSmallMs = ms(t);
  t = performance.now();
  const oz = ozLeaves > 0 ? StandardMerkleTree.of(some.map((l) => [l.key, l.owedWei.toString()]), [...LEAF_ENCODING]) : null;
  const ozMs = ms(t);
  return {
    participants,
    setupMs,
    proofBuildMs: buildMs,
    proofParts: parts,
    treeOnlyMs: treeMs,
    ozCompare: { leaves: some.length, oursMs: oursSmallMs, openZeppelinMs: ozMs, sameRoot: oz ? oz.root === ours.root : null },
    totalOwedWei: proof.totalOwedWei,
    covered: proof.covered,
  };
}

async function main() {
  // Removing the bench's business (every participant, reward and entry, one cascade) runs past the app's statement bound.
  process.env.DATABASE_STATEMENT_TIMEOUT_MS ??= "600000";
  await dbReady();
  const businessId = `bench-trust-${randomUUID()}`;
  await db.business.create({ data: { id: businessId, name: "Trust bench", ownerId: businessId } });
  try {
    const entries = arg("entries", 200_000);
    const participants = arg("participants", 100_000);
    const database = process.env.DATABASE_URL ? "postgresql" : "pglite";
    if (entries > 0) console.log(JSON.stringify({ database, ledger: await ledgerBench(businessId, entries) }));
    if (participants > 0) console.log(JSON.stringify({ database, proof: await proofBench(businessId, participants, arg("oz", 10_000)) }));
  } finally {
    await db.business.delete({ where: { id: businessId } });
  }
  process.exit(0);
}

void main();
