import { z } from "zod";
import { createTierInput, tierCategorizationInput, tierCategorizationOutput, tierIdInput, tierOutput, updateTierInput } from "../domain/tiers/schemas";
import { createTier, deleteTier, listTiers, tierCategorization, updateTier } from "../domain/tiers/service";
import { adminProcedure, businessProcedure, router } from "../trpc/init";

export const tiersRouter = router({
  list: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/config/tiers", tags: ["tiers"], summary: "List reward tiers (by threshold)", protect: true } })
    .input(z.object({}))
    .output(z.object({ data: z.array(tierOutput), nextCursor: z.null() }))
    .query(async ({ ctx }) => ({ data: await listTiers(ctx.businessId), nextCursor: null })),
  create: adminProcedure
    .meta({ openapi: { method: "POST", path: "/business/config/tiers", tags: ["tiers"], summary: "Create a tier (thresholds must be distinct; owner or admin)", protect: true } })
    .input(createTierInput)
    .output(tierOutput)
    .mutation(({ ctx, input }) => createTier(ctx.businessId, input)),
  update: adminProcedure
    .meta({ openapi: { method: "PATCH", path: "/business/config/tiers/{tierId}", tags: ["tiers"], summary: "Update a tier (owner or admin)", protect: true } })
    .input(updateTierInput)
    .output(tierOutput)
    .mutation(({ ctx, input }) => updateTier(ctx.businessId, input)),
  delete: adminProcedure
    .meta({ openapi: { method: "DELETE", path: "/business/config/tiers/{tierId}", tags: ["tiers"], summary: "Delete a tier (owner or admin)", protect: true } })
    .input(tierIdInput)
    .output(tierOutput)
    .mutation(({ ctx, input }) => deleteTier(ctx.businessId, input.tierId)),
  categorization: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/config/tier-categorization", tags: ["tiers"], summary: "Participants per tier and who is closest to the next", protect: true } })
    .input(tierCategorizationInput)
    .output(tierCategorizationOutput)
    .query(({ ctx, input }) => tierCategorization(ctx.businessId, input.environment)),
});
