// Proofs of liabilities (docs/trust.md): a snapshot of what every participant of one business and
// environment is owed, as a Merkle tree (merkle.ts), with the deposit address's on-chain balance
// at one block and the ledger's head, signed EIP-712 by the deposit address (statement.ts).
// Published by POST /business/proofs, after payout runs and daily (LIABILITY_PROOF jobs); read
// publicly (root and totals) and per participant (their own leaf and path).
import type { Hex, LocalAccount } from "viem";
import { db, directSql, rawRows, txSql } from "../../db/client";
import { onChain, publicClientFor, requireChainTarget } from "../../chain/clients";
import { depositAccountFor } from "../../chain/deposit-address";
import { AppError, notFound } from "../../shared/errors";
import type { Environment } from "../../shared/environment";
import { newId } from "../../shared/ids";
import { alertPoolShort } from "../rules/debit";
import { owedOf, participantSumsCtes, type ParticipantSums } from "../payouts/totals";
import { buildParticipantTree, LEAF_ENCODING, LEAF_ENTRY_BYTES, leafTable, participantKey, pathIndices, readLeafEntry } from "./merkle";
import type { PortalAuth } from "../../shared/portal-auth";
import type { ProofReason } from "../jobs/proof-schedule";
import { readAsset } from "../assets/read";
import { assetBalanceOf } from "../payouts/asset-transfer";
import { assetTagOf, type Asset } from "../../shared/asset";
import { participantProofOutput, type ParticipantProofOutput, type ProofOutput } from "./schemas";
import { proofTypedData } from "./statement";


/** The snapshot statement: every participant's sums, plus one row (id NULL) with the ledger head, read together. */
const SNAPSHOT_SQL = `
  WITH ${participantSumsCtes(`p."businessId" = $1 AND p."environment" = $2::"Environment"`, `r."businessId" = $1 AND r."environment" = $2::"Environment"`)}
  SELECT p."id", COALESCE(rw.owed, 0)::text AS owed, COALESCE(rv.clawback, 0)::text AS clawback, COALESCE(po."offset", 0)::text AS "offset", NULL AS head
    FROM p LEFT JOIN rw ON rw.id = p."id" LEFT JOIN po ON po.id = p."id" LEFT JOIN rv ON rv.id = p."id"
  UNION ALL
  SELECT NULL, COALESCE((SELECT "ledgerSeq"::text FROM "Pool" WHERE "businessId" = $1 AND environment = $2::"Environment"), '0'), '0', '0',
         (SELECT "ledgerHead" FROM "Pool" WHERE "businessId" = $1 AND environment = $2::"Environment")`;

type SnapshotRow = Pick<ParticipantSums, "id" | "owed" | "clawback" | "offset"> & { head: string | null };

/**
 * The snapshot, with JIT compilation off: over a whole environment the planner's row estimates
 * for the CTE joins are far too high, and compiling the plan took longer than running it.
 */
async function readSnapshot(businessId: string, environment: Environment): Promise<SnapshotRow[]> {
  return db.$transaction(
    async (tx) => {
      const sql = await txSql(tx);
      await sql.execute(`SET LOCAL jit = off`);
      return sql.query<SnapshotRow>(SNAPSHOT_SQL, businessId, environment);
    },
    { timeout: 60_000 },
  );
}

/** Where a proof build spent its time (filled in when the caller passes it: bench:trust). */
export interface ProofBuildTimings {
  snapshotMs?: number;
  treeMs?: number;
  signMs?: number;
  writeMs?: number;
}

/** What a proof states about the chain: read before anything is written. */
export interface PoolReading {
  chainId: number;
  blockNumber: bigint;
  /** The deposit address's balance at blockNumber. */
  poolBalanceWei: bigint;
}

/**
 * POST /business/proofs and the LIABILITY_PROOF job: reads the chain (chain id, block, the deposit
 * address's balance at that block), then records the proof (recordLiabilityProof). No lock or
 * transaction is held while the chain answers.
 */
export async function publishLiabilityProof(businessId: string, environment: Environment, reason: ProofReason): Promise<ProofOutput> {
  const business = await db.business.findUnique({ where: { id: businessId }, select: { depositIndex: true } });
  if (!business) throw notFound("Business");
  const target = requireChainTarget(environment);
  const account = depositAccountFor(environment, business.depositIndex);
  if (!account) throw new AppError("CHAIN_UNAVAILABLE", `The ${environment} deposit address cannot be derived`, { environment });
  const client = publicClientFor(target.rpcUrl);
  const chainId = await onChain(target, "getChainId", () => client.getChainId());
  // cacheTime 0: viem otherwise answers a block number it read up to a polling interval ago.
  const blockNumber = await onChain(target, "getBlockNumber", () => client.getBlockNumber({ cacheTime: 0 }));
  // The pool in its asset: the deposit address's ETH, or its balanceOf the program's token.
  const asset = await readAsset(db, businessId, environment);
  const poolBalanceWei = await onChain(target, "balance", () => assetBalanceOf(client, asset, account.address, blockNumber));
  return recordLiabilityProof(businessId, environment, reason, { chainId, blockNumber, poolBalanceWei }, account);
}

/**
 * Snapshots every participant's owed balance and the ledger head (one statement), builds the
 * tree, signs the statement with `signer` (the deposit address's account) and stores proof and
 * leaves in one short transaction; a pool short of what is owed raises the low-pool alert there.
 */
export async function recordLiabilityProof(
  businessId: string,
  environment: Environment,
  reason: ProofReason,
  { chainId, blockNumber, poolBalanceWei }: PoolReading,
  account: Pick<LocalAccount, "address" | "signTypedData">,
  timings: ProofBuildTimings = {},
): Promise<ProofOutput> {
  let t = performance.now();
  const lap = () => {
    const now = performance.now();
    const ms = Math.round(now - t);
    t = now;
    return ms;
  };
  const rows = await readSnapshot(businessId, environment);
  const headRow = rows.find((r) => r.id === null)!;
  const ids: string[] = [];
  const owed: bigint[] = [];
  let totalOwedWei = 0n;
  for (const r of rows) {
    if (r.id === null) continue;
    const owedWei = owedOf(r).netOwedWei;
    ids.push(r.id);
    owed.push(owedWei);
    totalOwedWei += owedWei;
  }
  timings.snapshotMs = lap();
  const tree = await buildParticipantTree(ids, owed);
  const leaves = leafTable(tree);
  timings.treeMs = lap();
  const proofId = newId();
  const createdAt = new Date();
  const covered = totalOwedWei <= poolBalanceWei;
  const statement = {
    proofId,
    businessId,
    environment,
    root: tree.root,
    totalOwedWei,
    participants: ids.length,
    poolBalanceWei,
    blockNumber,
    ledgerHead: headRow.head,
    createdAt: createdAt.toISOString(),
    covered,
    chainId,
  };
  const signature = await account.signTypedData(proofTypedData(statement));
  timings.signMs = lap();

  await db.$transaction(
    async (tx) => {
      const direct = await directSql(tx);
      const sql = direct ?? (await txSql(tx));
      // Tree and leaves go as binary parameters on PostgreSQL's direct channel, as hex text through Prisma (PGlite).
      const bytea = (b: Buffer) => (direct ? b : b.toString("hex"));
      const asBytea = (n: number) => (direct ? `$${n}::bytea` : `decode($${n}, 'hex')`);
      await sql.execute(
        `INSERT INTO "LiabilityProof" (id, "businessId", environment, root, "totalOwedWei", participants, "poolBalanceWei", "blockNumber", "chainId",
           "ledgerSeq", "ledgerHead", signer, signature, covered, reason, "createdAt", tree, leaves)
         VALUES ($1, $2, $3::"Environment", $4, $5::numeric, $6::int, $7::numeric, $8::bigint, $9::int, $10::bigint, $11, $12, $13, $14, $15, $16::timestamp(3), ${asBytea(17)}, ${asBytea(18)})`,
        proofId,
        businessId,
        environment,
        tree.root,
        totalOwedWei.toString(),
        ids.length,
        poolBalanceWei.toString(),
        blockNumber.toString(),
        chainId,
        headRow.owed,
        headRow.head,
        account.address,
        signature,
        covered,
        reason,
        createdAt.toISOString(),
        bytea(tree.nodes),
        bytea(leaves),
      );
      if (!covered) await alertPoolShort(tx, businessId, environment, poolBalanceWei, totalOwedWei);
    },
    { timeout: 60_000 },
  );
  timings.writeMs = lap();
  const asset = await readAsset(db, businessId, environment);
  return {
    proofId,
    businessId,
    environment,
    asset: assetTagOf(asset),
    root: tree.root,
    leafEncoding: [...LEAF_ENCODING],
    totalOwedWei: totalOwedWei.toString(),
    participants: ids.length,
    poolBalanceWei: poolBalanceWei.toString(),
    blockNumber: Number(blockNumber),
    chainId,
    ledgerHead: headRow.head,
    ledgerEntries: Number(headRow.owed),
    signer: account.address,
    signature,
    covered,
    reason,
    createdAt: statement.createdAt,
  };
}

export interface ProofRow {
  id: string;
  businessId: string;
  environment: Environment;
  root: string;
  totalOwedWei: string;
  participants: number;
  poolBalanceWei: string;
  blockNumber: string;
  chainId: number;
  ledgerSeq: string;
  ledgerHead: string | null;
  signer: string;
  signature: string;
  covered: boolean;
  reason: ProofReason;
  createdAt: string;
}

export const PROOF_COLUMNS = `x.id, x."businessId", x.environment::text AS environment, x.root, x."totalOwedWei"::text AS "totalOwedWei", x.participants,
  x."poolBalanceWei"::text AS "poolBalanceWei", x."blockNumber"::text AS "blockNumber", x."chainId", x."ledgerSeq"::text AS "ledgerSeq", x."ledgerHead",
  x.signer, x.signature, x.covered, x.reason, to_char(x."createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"`;

export const toOutput = (r: ProofRow, asset: Asset): ProofOutput => ({
  proofId: r.id,
  businessId: r.businessId,
  environment: r.environment,
  asset: assetTagOf(asset),
  root: r.root,
  leafEncoding: [...LEAF_ENCODING],
  totalOwedWei: r.totalOwedWei,
  participants: r.participants,
  poolBalanceWei: r.poolBalanceWei,
  blockNumber: Number(r.blockNumber),
  chainId: r.chainId,
  ledgerHead: r.ledgerHead,
  ledgerEntries: Number(r.ledgerSeq),
  signer: r.signer,
  signature: r.signature,
  covered: r.covered,
  reason: r.reason,
  createdAt: r.createdAt,
});

/** A published proof ("latest" or by id) of one business and environment; 404 when there is none. */
export async function getLiabilityProof(businessId: string, environment: Environment, proofId: string): Promise<ProofOutput> {
  const rows =
    proofId === "latest"
      ? await rawRows<ProofRow>(
          `SELECT ${PROOF_COLUMNS} FROM "LiabilityProof" x WHERE x."businessId" = $1 AND x.environment = $2::"Environment" ORDER BY x."createdAt" DESC, x.id DESC LIMIT 1`,
          businessId,
          environment,
        )
      : await rawRows<ProofRow>(`SELECT ${PROOF_COLUMNS} FROM "LiabilityProof" x WHERE x.id = $3 AND x."businessId" = $1 AND x.environment = $2::"Environment"`, businessId, environment, proofId);
  if (!rows[0]) throw notFound("Proof");
  return toOutput(rows[0], await readAsset(db, businessId, environment));
}

/**
 * A participant's entry in a proof's leaf table: a binary search by participant key ($2, hex) over
 * slices of the stored column, one entry read per step. `legacy`: the proof predates the column
 * and keeps its leaves as LiabilityProofLeaf rows.
 */
const LEAF_ENTRY_SQL = `
  WITH RECURSIVE s(lo, hi) AS (
    SELECT 0, CASE WHEN x.leaves IS NULL THEN 0 ELSE x.participants END FROM "LiabilityProof" x WHERE x.id = $1
    UNION ALL
    SELECT CASE WHEN m.below THEN c.mid + 1 ELSE s.lo END, CASE WHEN m.below THEN s.hi ELSE c.mid END
      FROM s
      CROSS JOIN LATERAL (SELECT (s.lo + s.hi) / 2 AS mid) c
      CROSS JOIN LATERAL (SELECT substring(x.leaves FROM c.mid * ${LEAF_ENTRY_BYTES} + 1 FOR 32) < decode($2, 'hex') AS below FROM "LiabilityProof" x WHERE x.id = $1) m
     WHERE s.lo < s.hi
  )
  SELECT x.leaves IS NULL AS legacy, encode(substring(x.leaves FROM s.lo * ${LEAF_ENTRY_BYTES} + 1 FOR ${LEAF_ENTRY_BYTES}), 'hex') AS entry
    FROM s JOIN "LiabilityProof" x ON x.id = $1 WHERE s.lo = s.hi`;

/** A participant's leaf in a proof (its tree position and amount), or undefined when they are not in it. */
export async function findLeaf(proofId: string, participantId: string): Promise<{ treeIndex: number; owedWei: string } | undefined> {
  const key = participantKey(participantId);
  const [found] = await rawRows<{ legacy: boolean; entry: string | null }>(LEAF_ENTRY_SQL, proofId, key.slice(2));
  if (found?.legacy) {
    const [row] = await rawRows<{ treeIndex: number; owedWei: string }>(
      `SELECT "treeIndex", "owedWei"::text AS "owedWei" FROM "LiabilityProofLeaf" WHERE "proofId" = $1 AND "participantId" = $2`,
      proofId,
      participantId,
    );
    return row;
  }
  if (!found?.entry || found.entry.length !== 2 * LEAF_ENTRY_BYTES) return undefined;
  const entry = readLeafEntry(Buffer.from(found.entry, "hex"));
  return entry.participantKey === key ? { treeIndex: entry.treeIndex, owedWei: entry.owedWei.toString() } : undefined;
}

/**
 * One participant's leaf and path in a proof of their environment (the latest unless proofId):
 * read from the stored leaf table and the 32-byte slices of the stored tree on the way to the root.
 */
export async function getParticipantProof(businessId: string, participantId: string, proofId?: string): Promise<ParticipantProofOutput> {
  const p = await db.participant.findFirst({ where: { id: participantId, businessId }, select: { environment: true } });
  if (!p) throw notFound("Participant");
  const proof = await getLiabilityProof(businessId, p.environment, proofId ?? "latest");
  const leaf = await findLeaf(proof.proofId, participantId);
  if (!leaf) throw new AppError("NOT_FOUND", "This participant is not in the proof (they joined after it was built)", { proofId: proof.proofId });
  const siblings = pathIndices(leaf.treeIndex);
  let path: Hex[] = [];
  if (siblings.length) {
    const [r] = await rawRows<{ path: string }>(
      `SELECT string_agg(encode(substring(x.tree FROM s.i * 32 + 1 FOR 32), 'hex'), ',' ORDER BY s.ord) AS path
         FROM "LiabilityProof" x, unnest($2::int[]) WITH ORDINALITY AS s(i, ord) WHERE x.id = $1`,
      proof.proofId,
      siblings,
    );
    path = r.path.split(",").map((h): Hex => `0x${h}`);
  }
  return { proof, leaf: { participantId, participantKey: participantKey(participantId), owedWei: leaf.owedWei }, path };
}

/** GET /portal/api/proof: the session's participant, in the latest proof of their environment. */
export async function portalProof(auth: Pick<PortalAuth, "businessId" | "participantId">): Promise<ParticipantProofOutput> {
  return participantProofOutput.parse(await getParticipantProof(auth.businessId, auth.participantId));
}
