// GET /business/proofs: the proofs of liabilities published for one environment, newest first,
// as the public route answers each one (root, totals, covered), for the dashboard's Proofs page.
import { db } from "../../db/client";
import { checkCursor } from "../../shared/list-page";
import type { Environment } from "../../shared/environment";
import { getLiabilityProof, PROOF_COLUMNS, toOutput, type ProofRow } from "./proofs";
import { readAsset } from "../assets/read";
import type { ProofOutput } from "./schemas";

export async function listProofs(businessId: string, q: { environment: Environment; limit: number; cursor?: string }): Promise<{ data: ProofOutput[]; nextCursor: string | null }> {
  await checkCursor(q.cursor, (id) => db.liabilityProof.findFirst({ where: { id, businessId, environment: q.environment }, select: { id: true } }));
  // Keyset on (createdAt, id), the index's order; the tree and leaves are not read.
  const after = q.cursor ? `AND (x."createdAt", x.id) < (SELECT c."createdAt", c.id FROM "LiabilityProof" c WHERE c.id = $3)` : "";
  const rows = await db.$queryRawUnsafe<ProofRow[]>(
    `SELECT ${PROOF_COLUMNS} FROM "LiabilityProof" x WHERE x."businessId" = $1 AND x.environment = $2::"Environment" ${after}
     ORDER BY x."createdAt" DESC, x.id DESC LIMIT ${q.limit + 1}`,
    businessId,
    q.environment,
    ...(q.cursor ? [q.cursor] : []),
  );
  const more = rows.length > q.limit;
  const page = more ? rows.slice(0, q.limit) : rows;
  const asset = await readAsset(db, businessId, q.environment);
  return { data: page.map((r) => toOutput(r, asset)), nextCursor: more ? page[page.length - 1].id : null };
}

/** A published proof with the name of the business that signed it (the public page shows both). */
export async function proofWithBusiness(businessId: string, environment: Environment, proofId: string): Promise<{ proof: ProofOutput; businessName: string }> {
  const [proof, business] = await Promise.all([getLiabilityProof(businessId, environment, proofId), db.business.findUnique({ where: { id: businessId }, select: { name: true } })]);
  return { proof, businessName: business?.name ?? "" };
}
