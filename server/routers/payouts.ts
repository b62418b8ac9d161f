import { listPayoutsInput, listPayoutsOutput, runPayoutsInput, runPayoutsOutput } from "../domain/payouts/schemas";
import { listPayouts } from "../domain/payouts/list";
import { runPayouts } from "../domain/payouts/run";
import { businessProcedure, ownerProcedure, router } from "../trpc/init";

export const payoutsRouter = router({
  run: ownerProcedure
    .meta({ openapi: { method: "POST", path: "/business/payouts/run", tags: ["payouts"], summary: "Pay payable rewards on chain, one payout per participant with a wallet (owner)", protect: true } })
    .input(runPayoutsInput)
    .output(runPayoutsOutput)
    .mutation(({ ctx, input }) => runPayouts(ctx.businessId, input.environment)),
  list: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/payouts", tags: ["payouts"], summary: "Payouts, newest first (filters, cursor pagination)", protect: true } })
    .input(listPayoutsInput)
    .output(listPayoutsOutput)
    .query(({ ctx, input }) => listPayouts(ctx.businessId, input)),
});
