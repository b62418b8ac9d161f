import { z } from "zod";
import { getCurrentMember } from "../domain/members/current";
import { memberRole } from "../domain/members/schemas";
import { businessProcedure, router } from "../trpc/init";

const meOutput = z.object({
  user: z.object({ id: z.string(), email: z.string(), name: z.string().nullable() }),
  business: z.object({ businessId: z.string(), name: z.string() }),
  role: memberRole,
});

export const meRouter = router({
  get: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/me", tags: ["members"], summary: "The caller: user, business and role", protect: true } })
    .input(z.object({}))
    .output(meOutput)
    .query(({ ctx }) => getCurrentMember(ctx.user, ctx.membership)),
});
