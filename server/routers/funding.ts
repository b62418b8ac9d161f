import { balanceInput, balanceOutput, testDepositInput, testDepositOutput, verifyFundingInput, verifyFundingOutput } from "../domain/funding/schemas";
import { getBalance, sendTestDeposit, verifyFunding } from "../domain/funding/service";
import { businessProcedure, ownerProcedure, router } from "../trpc/init";

export const fundingRouter = router({
  balance: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/balance", tags: ["funding"], summary: "Pool balance (ledger sum) and deposit address of an environment", protect: true } })
    .input(balanceInput)
    .output(balanceOutput)
    .query(({ ctx, input }) => getBalance(ctx.businessId, input.environment)),
  verify: ownerProcedure
    .meta({ openapi: { method: "POST", path: "/business/funding/verify", tags: ["funding"], summary: "Verify a deposit on chain and credit it once", protect: true } })
    .input(verifyFundingInput)
    .output(verifyFundingOutput)
    .mutation(({ ctx, input }) => verifyFunding(ctx.businessId, input)),
  testDeposit: ownerProcedure
    .meta({ openapi: { method: "POST", path: "/business/funding/test-deposit", tags: ["funding"], summary: "TEST only: send ETH from the local dev chain's prefunded account to the TEST deposit address", protect: true } })
    .input(testDepositInput)
    .output(testDepositOutput)
    .mutation(({ ctx, input }) => sendTestDeposit(ctx.businessId, input.amountEth)),
});
