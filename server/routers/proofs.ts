import { createProofInput, listProofsInput, listProofsOutput, proofOutput } from "../domain/trust/schemas";
import { publishLiabilityProof } from "../domain/trust/proofs";
import { listProofs } from "../domain/trust/list";
import { businessProcedure, ownerProcedure, router } from "../trpc/init";

export const proofsRouter = router({
  list: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/proofs", tags: ["proofs"], summary: "The proofs of liabilities published for one environment, newest first", protect: true } })
    .input(listProofsInput)
    .output(listProofsOutput)
    .query(({ ctx, input }) => listProofs(ctx.businessId, input)),
  create: ownerProcedure
    .meta({ openapi: { method: "POST", path: "/business/proofs", tags: ["proofs"], summary: "Build, sign and publish a proof of liabilities now (owner)", protect: true } })
    .input(createProofInput)
    .output(proofOutput)
    .mutation(({ ctx, input }) => publishLiabilityProof(ctx.businessId, input.environment, "MANUAL")),
});
