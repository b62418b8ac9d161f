import { z } from "zod";
import { requirePassword } from "../auth/reauth";
import { addMemberInput, changeMemberRoleInput, invitationOutput, invitationTokenInput, memberIdInput, memberOutput, transferOwnershipInput } from "../domain/members/schemas";
import { acceptInvitation, addMember, changeMemberRole, getInvitation, listMembers, removeMember, renewInviteLink, transferOwnership } from "../domain/members/service";
import { env } from "../shared/env";
import { businessProcedure, ownerProcedure, publicProcedure, router, signedInProcedure } from "../trpc/init";

export const membersRouter = router({
  list: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/members", tags: ["members"], summary: "List members", protect: true } })
    .input(z.object({}))
    .output(z.object({ data: z.array(memberOutput), nextCursor: z.null() }))
    .query(async ({ ctx }) => ({ data: await listMembers(ctx.businessId), nextCursor: null })),
  add: ownerProcedure
    .meta({ openapi: { method: "POST", path: "/business/members", tags: ["members"], summary: "Add (or invite) a member by email; an invitation answers with its one-time link", protect: true, successDescription: "The member" } })
    .input(addMemberInput)
    .output(memberOutput)
    .mutation(({ ctx, input }) => addMember(ctx.businessId, input, env.appUrl)),
  renewInvite: ownerProcedure
    .meta({ openapi: { method: "POST", path: "/business/members/{memberId}/invite-link", tags: ["members"], summary: "A new one-time invitation link (the previous one stops working)", protect: true } })
    .input(memberIdInput)
    .output(memberOutput)
    .mutation(({ ctx, input }) => renewInviteLink(ctx.businessId, input.memberId, env.appUrl)),
  changeRole: ownerProcedure
    .meta({ openapi: { method: "PATCH", path: "/business/members/{memberId}", tags: ["members"], summary: "Make a member an ADMIN (may change what the pool pays) or a MEMBER (reads and reviews) (owner)", protect: true } })
    .input(changeMemberRoleInput)
    .output(memberOutput)
    .mutation(({ ctx, input }) => changeMemberRole(ctx.businessId, input.memberId, input.role)),
  remove: ownerProcedure
    .meta({ openapi: { method: "DELETE", path: "/business/members/{memberId}", tags: ["members"], summary: "Remove a member or cancel an invitation (owner)", protect: true } })
    .input(memberIdInput)
    .output(memberOutput)
    .mutation(({ ctx, input }) => removeMember(ctx.businessId, input.memberId)),
  transferOwnership: ownerProcedure
    .meta({ openapi: { method: "POST", path: "/business/members/{memberId}/transfer-ownership", tags: ["members"], summary: "Make an active member the owner; the current owner becomes a member. Asks for the owner's password (403 REAUTHENTICATION_REQUIRED without it)", protect: true } })
    .input(transferOwnershipInput)
    .output(z.object({ data: z.array(memberOutput), nextCursor: z.null() }))
    .mutation(async ({ ctx, input }) => {
      await requirePassword(ctx.headers, ctx.user.id, input.password);
      return { data: await transferOwnership(ctx.businessId, ctx.user.id, input.memberId), nextCursor: null };
    }),
  // For the sign-up page of an invitation link (no session yet): which business and email it is for.
  invitation: publicProcedure
    .input(invitationTokenInput)
    .output(invitationOutput)
    .query(({ input }) => getInvitation(input.token)),
  // The sign-in page of an invitation link: a signed-in account with no business joins with the link's token.
  accept: signedInProcedure
    .input(invitationTokenInput)
    .output(z.object({ businessId: z.string(), role: z.enum(["OWNER", "ADMIN", "MEMBER"]) }))
    .mutation(({ ctx, input }) => acceptInvitation(ctx.user, input.token)),
});
