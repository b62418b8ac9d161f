import { createProofInput, proofOutput } from "../domain/trust/schemas";
import { publishLiabilityProof } from "../domain/trust/proofs";
import { ownerProcedure, router } from "../trpc/init";

export const proofsRouter = router({
  create: ownerProcedure
    .meta({ openapi: { method: "POST", path: "/business/proofs", tags: ["proofs"], summary: "Build, sign and publish a proof of liabilities now (owner)", protect: true } })
    .input(createProofInput)
    .output(proofOutput)
    .mutation(({ ctx, input }) => publishLiabilityProof(ctx.businessId, input.environment, "MANUAL")),
});
