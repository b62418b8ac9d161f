// GET /proofs/:businessId/:environment/latest and GET /proofs/:businessId/:environment/:proofId:
// published proofs of liabilities, public (no key, no session). They carry the root and totals,
// never a leaf: a participant gets their own leaf and path from the portal or from staff.
import { getLiabilityProof } from "../../domain/trust/proofs";
import { proofOutput, publicProofParams } from "../../domain/trust/schemas";
import { errorResponse, notFound } from "../../shared/errors";

type Ctx = { params: Promise<{ businessId: string; environment: string; proofId?: string }> };

export async function GET(_req: Request, ctx: Ctx): Promise<Response> {
  try {
    const params = await ctx.params;
    const parsed = publicProofParams.safeParse({ ...params, proofId: params.proofId ?? "latest" });
    // A path that names no proof (an unknown environment included) is a 404, like an unknown id.
    if (!parsed.success) throw notFound("Proof");
    const q = parsed.data;
    const proof = proofOutput.parse(await getLiabilityProof(q.businessId, q.environment, q.proofId));
    // A proof never changes once published; "latest" moves on.
    const cache = q.proofId === "latest" ? "public, max-age=30" : "public, max-age=86400, immutable";
    return Response.json(proof, { headers: { "Cache-Control": cache, "Access-Control-Allow-Origin": "*" } });
  } catch (e) {
    return errorResponse(e, { "Cache-Control": "no-store", "Access-Control-Allow-Origin": "*" });
  }
}
