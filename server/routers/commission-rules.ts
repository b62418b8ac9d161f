import { z } from "zod";
import { commissionRuleOutput, createRuleInput, listRulesInput, ruleIdInput, simulateInput, simulateOutput, updateRuleInput } from "../domain/commissions/schemas";
import { createRule, deleteRule, listRules, updateRule } from "../domain/commissions/service";
import { simulateRule } from "../domain/commissions/simulate";
import { adminProcedure, businessProcedure, router } from "../trpc/init";

export const commissionRulesRouter = router({
  list: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/commission-rules", tags: ["commissions"], summary: "List an environment's commission rules (?environment=TEST|LIVE, default LIVE)", protect: true } })
    .input(listRulesInput)
    .output(z.object({ data: z.array(commissionRuleOutput) }))
    .query(async ({ ctx, input }) => ({ data: await listRules(ctx.businessId, input.environment) })),
  create: adminProcedure
    .meta({ openapi: { method: "POST", path: "/business/commission-rules", tags: ["commissions"], summary: "Create a commission rule (owner or admin; 201)", protect: true, successDescription: "201 Created" } })
    .input(createRuleInput)
    .output(commissionRuleOutput)
    .mutation(({ ctx, input }) => createRule(ctx.businessId, input)),
  simulate: businessProcedure
    .meta({ openapi: { method: "POST", path: "/business/commission-rules/simulate", tags: ["commissions"], summary: "What a rule would have paid over stored events in [from, to), without writing anything", protect: true } })
    .input(simulateInput)
    .output(simulateOutput)
    .mutation(({ ctx, input }) => simulateRule(ctx.businessId, input)),
  update: adminProcedure
    .meta({ openapi: { method: "PATCH", path: "/business/commission-rules/{ruleId}", tags: ["commissions"], summary: "Update a commission rule (owner or admin); rewards already granted never change", protect: true } })
    .input(updateRuleInput)
    .output(commissionRuleOutput)
    .mutation(({ ctx, input }) => updateRule(ctx.businessId, input)),
  delete: adminProcedure
    .meta({ openapi: { method: "DELETE", path: "/business/commission-rules/{ruleId}", tags: ["commissions"], summary: "Delete a commission rule (owner or admin); rewards already granted keep its id", protect: true } })
    .input(ruleIdInput)
    .output(commissionRuleOutput)
    .mutation(({ ctx, input }) => deleteRule(ctx.businessId, input.ruleId)),
});
