import { z } from "zod";
import { listLedgerInput, listLedgerOutput, verifyLedgerInput, verifyLedgerOutput } from "../domain/ledger/schemas";
import { listLedger } from "../domain/ledger/list";
import { verifyStoredLedger } from "../domain/ledger/verify";
import { createRewardInput, createRewardOutput, listRewardsInput, listRewardsOutput, rewardOutput } from "../domain/rewards/schemas";
import { getOwnedReward, grantManualReward, listRewards } from "../domain/rewards/service";
import { listReversalsInput, listReversalsOutput, reverseRewardInput, reverseRewardOutput } from "../domain/reversals/reversal-schemas";
import { getReversal, listReversals } from "../domain/reversals/reversal-list";
import { reverseOneReward } from "../domain/reversals/reversals";
import { businessProcedure, ownerProcedure, router } from "../trpc/init";

export const rewardsRouter = router({
  create: ownerProcedure
    .meta({ openapi: { method: "POST", path: "/business/rewards", tags: ["rewards"], summary: "Grant a manual reward (owner; daily cap and pool apply)", protect: true } })
    .input(createRewardInput)
    .output(createRewardOutput)
    .mutation(({ ctx, input }) => grantManualReward(ctx.businessId, input)),
  list: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/rewards", tags: ["rewards"], summary: "List rewards (paid, held, refused)", protect: true } })
    .input(listRewardsInput)
    .output(listRewardsOutput)
    .query(({ ctx, input }) => listRewards(ctx.businessId, input)),
  get: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/rewards/{rewardId}", tags: ["rewards"], summary: "One reward", protect: true } })
    .input(z.strictObject({ rewardId: z.string().min(1).max(64) }))
    .output(rewardOutput)
    .query(({ ctx, input }) => getOwnedReward(ctx.businessId, input.rewardId)),
  reverse: ownerProcedure
    .meta({ openapi: { method: "POST", path: "/business/rewards/{rewardId}/reverse", tags: ["rewards"], summary: "Reverse an earned reward (owner): back to the pool if not paid out, else a clawback offset by the next payouts", protect: true } })
    .input(reverseRewardInput)
    .output(reverseRewardOutput)
    .mutation(async ({ ctx, input }) => {
      const r = await reverseOneReward(ctx.businessId, input.rewardId, input.reason, ctx.user.id);
      return { ...(await getReversal(ctx.businessId, r.reversalId)), balanceEth: r.balanceEth };
    }),
  reversals: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/reversals", tags: ["rewards"], summary: "Reversals, newest first, with reason and outcome (filters, cursor pagination)", protect: true } })
    .input(listReversalsInput)
    .output(listReversalsOutput)
    .query(({ ctx, input }) => listReversals(ctx.businessId, input)),
  ledger: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/ledger", tags: ["rewards"], summary: "Pool ledger entries and balance of one environment", protect: true } })
    .input(listLedgerInput)
    .output(listLedgerOutput)
    .query(({ ctx, input }) => listLedger(ctx.businessId, input)),
  verifyLedger: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/ledger/verify", tags: ["rewards"], summary: "Recompute the ledger's hash chain of one environment", protect: true } })
    .input(verifyLedgerInput)
    .output(verifyLedgerOutput)
    .query(({ ctx, input }) => verifyStoredLedger(ctx.businessId, input.environment)),
});
