import { listBatchesInput, listBatchesOutput, listPayoutsInput, listPayoutsOutput, payoutQueueInput, payoutQueueOutput, runPayoutsInput, runPayoutsOutput } from "../domain/payouts/schemas";
import { payoutQueue } from "../domain/payouts/queue";
import { listBatches, listPayouts } from "../domain/payouts/list";
import { runPayouts } from "../domain/payouts/run";
import { businessProcedure, ownerProcedure, router } from "../trpc/init";

export const payoutsRouter = router({
  run: ownerProcedure
    .meta({ openapi: { method: "POST", path: "/business/payouts/run", tags: ["payouts"], summary: "Pay payable rewards on chain, one payout per participant with a wallet, in batch transactions where cheaper (owner)", protect: true } })
    .input(runPayoutsInput)
    .output(runPayoutsOutput)
    .mutation(({ ctx, input }) => runPayouts(ctx.businessId, input.environment)),
  list: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/payouts", tags: ["payouts"], summary: "Payouts, newest first (filters, cursor pagination)", protect: true } })
    .input(listPayoutsInput)
    .output(listPayoutsOutput)
    .query(({ ctx, input }) => listPayouts(ctx.businessId, input)),
  batches: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/payouts/batches", tags: ["payouts"], summary: "Batch transactions that paid many participants at once, newest first (cursor pagination)", protect: true } })
    .input(listBatchesInput)
    .output(listBatchesOutput)
    .query(({ ctx, input }) => listBatches(ctx.businessId, input)),
  queue: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/payouts/queue", tags: ["payouts"], summary: "Who is owed ETH not yet in a payout, and why the next run pays them or not", protect: true } })
    .input(payoutQueueInput)
    .output(payoutQueueOutput)
    .query(({ ctx, input }) => payoutQueue(ctx.businessId, input.environment)),
});
