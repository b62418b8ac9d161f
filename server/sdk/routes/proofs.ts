// GET /proofs/:businessId/:environment/latest and GET /proofs/:businessId/:environment/:proofId:
// published proofs of liabilities, public (no key, no session). They carry the root and totals,
// never a leaf: a participant gets their own leaf and path from the portal or from staff.
// Rate-limited per client address, at the publishable keys' rate (429 with Retry-After past it).
// A browser (Accept: text/html) gets the proof as a page (proof-page.ts); every other client JSON.
import { proofWithBusiness } from "../../domain/trust/list";
import { proofOutput, publicProofParams } from "../../domain/trust/schemas";
import { CLIENT_IP_HEADER, normalizeIp } from "../../shared/client-ip";
import { AppError, errorResponse, notFound } from "../../shared/errors";
import { consumeRateLimit } from "../rate-limit";
import { renderProofPage, wantsHtml } from "./proof-page";

type Ctx = { params: Promise<{ businessId: string; environment: string; proofId?: string }> };

export async function GET(req: Request, ctx: Ctx): Promise<Response> {
  let rate: Record<string, string> = {};
  try {
    const decision = await consumeRateLimit(`proofs:${normalizeIp(req.headers.get(CLIENT_IP_HEADER)) ?? "unknown"}`, "PUBLISHABLE");
    rate = decision.headers;
    if (!decision.allowed) throw new AppError("RATE_LIMITED", "Too many requests from this address; retry after the delay in Retry-After");
    const params = await ctx.params;
    const parsed = publicProofParams.safeParse({ ...params, proofId: params.proofId ?? "latest" });
    // A path that names no proof (an unknown environment included) is a 404, like an unknown id.
    if (!parsed.success) throw notFound("Proof");
    const q = parsed.data;
    const found = await proofWithBusiness(q.businessId, q.environment, q.proofId);
    const proof = proofOutput.parse(found.proof);
    // A proof never changes once published; "latest" moves on. One address, two representations: Vary.
    const cache = q.proofId === "latest" ? "public, max-age=30" : "public, max-age=86400, immutable";
    const headers = { ...rate, "Cache-Control": cache, "Access-Control-Allow-Origin": "*", Vary: "Accept" };
    if (wantsHtml(req)) return renderProofPage(req, proof, found.businessName, headers);
    return Response.json(proof, { headers });
  } catch (e) {
    return errorResponse(e, { ...rate, "Cache-Control": "no-store", "Access-Control-Allow-Origin": "*" });
  }
}
