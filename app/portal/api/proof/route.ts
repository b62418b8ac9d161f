// GET /portal/api/proof: the signed-in participant's leaf and path in their environment's latest proof of liabilities.
import { portalProof } from "@/server/domain/trust/proofs";
import { withPortalAuth } from "@/server/portal/with-portal-auth";

export const { GET, OPTIONS } = withPortalAuth({ GET: async ({ auth }) => ({ body: await portalProof(auth) }) });
