import { z } from "zod";
import { addMemberInput, memberOutput } from "../domain/members/schemas";
import { addMember, listMembers } from "../domain/members/service";
import { businessProcedure, ownerProcedure, router } from "../trpc/init";

export const membersRouter = router({
  list: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/members", tags: ["members"], summary: "List members", protect: true } })
    .input(z.object({}))
    .output(z.object({ data: z.array(memberOutput), nextCursor: z.null() }))
    .query(async ({ ctx }) => ({ data: await listMembers(ctx.businessId), nextCursor: null })),
  add: ownerProcedure
    .meta({ openapi: { method: "POST", path: "/business/members", tags: ["members"], summary: "Add (or invite) a member by email", protect: true, successDescription: "The member" } })
    .input(addMemberInput)
    .output(memberOutput)
    .mutation(({ ctx, input }) => addMember(ctx.businessId, input)),
});
