import { listBusinessParticipantsInput, listBusinessParticipantsOutput, participantDetailOutput, participantIdInput } from "../domain/referrals/browse-schemas";
import { getBusinessParticipant, listBusinessParticipants } from "../domain/referrals/browse";
import { participantWithTotalsOutput, updateParticipantInput, updateParticipantWallet } from "../domain/payouts/wallet";
import { participantClicksOutput } from "../domain/links/schemas";
import { getBusinessParticipantClicks } from "../domain/links/participant-clicks";
import { eraseParticipant, exportParticipant } from "../domain/participants/privacy";
import { participantErasedOutput, participantExportOutput } from "../domain/participants/schemas";
import { participantProofInput, participantProofOutput } from "../domain/trust/schemas";
import { getParticipantProof } from "../domain/trust/proofs";
import { participantPortalLink } from "../domain/portal-links/links";
import { portalLinkOutput, queuedEmailOutput } from "../domain/email/schemas";
import { emailPortalLink } from "../domain/email/service";
import { businessProcedure, ownerProcedure, router } from "../trpc/init";

export const participantsRouter = router({
  portalLink: ownerProcedure
    .meta({ openapi: { method: "POST", path: "/business/participants/{participantId}/portal-link", tags: ["participants"], summary: "A fresh single-use link to the participant's portal, valid 24 hours (owner)", protect: true } })
    .input(participantIdInput)
    .output(portalLinkOutput)
    .mutation(({ ctx, input }) => participantPortalLink(ctx.businessId, input.participantId)),
  emailPortalLink: businessProcedure
    .meta({ openapi: { method: "POST", path: "/business/participants/{participantId}/portal-link/email", tags: ["participants"], summary: "Email the participant a single-use link to their portal (PORTAL_SIGN_IN)", protect: true } })
    .input(participantIdInput)
    .output(queuedEmailOutput)
    .mutation(({ ctx, input }) => emailPortalLink(ctx.businessId, input.participantId)),
  list: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/participants", tags: ["participants"], summary: "List participants (referrers and referred users; search, cursor pagination)", protect: true } })
    .input(listBusinessParticipantsInput)
    .output(listBusinessParticipantsOutput)
    .query(({ ctx, input }) => listBusinessParticipants(ctx.businessId, input)),
  get: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/participants/{participantId}", tags: ["participants"], summary: "One participant: who referred them, their referrals and rewards", protect: true } })
    .input(participantIdInput)
    .output(participantDetailOutput)
    .query(({ ctx, input }) => getBusinessParticipant(ctx.businessId, input.participantId)),
  clicks: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/participants/{participantId}/clicks", tags: ["participants"], summary: "Counted clicks on a participant's referral link", protect: true } })
    .input(participantIdInput)
    .output(participantClicksOutput)
    .query(({ ctx, input }) => getBusinessParticipantClicks(ctx.businessId, input.participantId)),
  proof: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/participants/{participantId}/proof", tags: ["participants"], summary: "A participant's leaf and Merkle path in the latest (or a given) proof of liabilities", protect: true } })
    .input(participantProofInput)
    .output(participantProofOutput)
    .query(({ ctx, input }) => getParticipantProof(ctx.businessId, input.participantId, input.proofId)),
  update: ownerProcedure
    .meta({ openapi: { method: "PATCH", path: "/business/participants/{participantId}", tags: ["participants"], summary: "Set or clear a participant's payout wallet (owner)", protect: true } })
    .input(updateParticipantInput)
    .output(participantWithTotalsOutput)
    .mutation(({ ctx, input }) => updateParticipantWallet(ctx.businessId, input)),
  export: ownerProcedure
    .meta({ openapi: { method: "GET", path: "/business/participants/{participantId}/export", tags: ["participants"], summary: "Everything held about a participant, as JSON (owner)", protect: true } })
    .input(participantIdInput)
    .output(participantExportOutput)
    .query(({ ctx, input }) => exportParticipant(ctx.businessId, input.participantId)),
  erase: ownerProcedure
    .meta({ openapi: { method: "POST", path: "/business/participants/{participantId}/erase", tags: ["participants"], summary: "Erase a participant's personal data; ids, amounts, ledger and proofs stay (owner)", protect: true } })
    .input(participantIdInput)
    .output(participantErasedOutput)
    .mutation(({ ctx, input }) => eraseParticipant(ctx.businessId, input.participantId)),
});
