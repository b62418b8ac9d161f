import { assertCanChangeSpend, changesPay, configOutput, getConfigInput, updateGeneralInput, updateSpendInput } from "../domain/config/schemas";
import { assertCanChangeMoney } from "../domain/members/service";
import { getConfig, updateGeneralConfig, updateSpendConfig } from "../domain/config/service";
import { getPricingInput, pricingOutput, updatePricingInput } from "../domain/commissions/schemas";
import { getPricing, updatePricing } from "../domain/commissions/pricing";
import { assetOutput, getAssetInput, updateAssetInput } from "../domain/config/asset-schemas";
import { getAsset, updateAsset } from "../domain/config/asset";
import { adminProcedure, businessProcedure, router } from "../trpc/init";

export const configRouter = router({
  get: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/config", tags: ["config"], summary: "Read configuration as it applies to one environment (?environment=TEST|LIVE, default LIVE)", protect: true } })
    .input(getConfigInput)
    .output(configOutput)
    .query(({ ctx, input }) => getConfig(ctx.businessId, input.environment)),
  updateGeneral: businessProcedure
    .meta({ openapi: { method: "PATCH", path: "/business/config/general", tags: ["config"], summary: "Update general configuration (name, website, processing, leaderboard: any member; reward, attribution and link fields: owner or admin)", protect: true } })
    .input(updateGeneralInput)
    .output(configOutput)
    .mutation(({ ctx, input }) => {
      if (changesPay(input)) assertCanChangeMoney(ctx.membership.role);
      return updateGeneralConfig(ctx.businessId, input);
    }),
  updateSpend: businessProcedure
    .meta({ openapi: { method: "PATCH", path: "/business/config/spend", tags: ["config"], summary: "Update spend configuration (owner; withdrawalsEnabled and minWithdrawalEth alone: owner or admin)", protect: true } })
    .input(updateSpendInput)
    .output(configOutput)
    .mutation(({ ctx, input }) => {
      assertCanChangeSpend(ctx.membership.role, input);
      return updateSpendConfig(ctx.businessId, input);
    }),
  pricing: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/config/pricing", tags: ["config"], summary: "How an environment prices 1 ETH for commissions, and the prices in force (?environment=TEST|LIVE, default LIVE)", protect: true } })
    .input(getPricingInput)
    .output(pricingOutput)
    .query(({ ctx, input }) => getPricing(ctx.businessId, input.environment)),
  updatePricing: adminProcedure
    .meta({ openapi: { method: "PATCH", path: "/business/config/pricing", tags: ["config"], summary: "Set an environment's pricing: FIXED rates or CHAINLINK feeds (owner or admin)", protect: true } })
    .input(updatePricingInput)
    .output(pricingOutput)
    .mutation(({ ctx, input }) => updatePricing(ctx.businessId, input)),
  asset: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/config/asset", tags: ["config"], summary: "The asset an environment's program counts its money in: ETH or an ERC-20 token (?environment=TEST|LIVE, default LIVE)", protect: true } })
    .input(getAssetInput)
    .output(assetOutput)
    .query(({ ctx, input }) => getAsset(ctx.businessId, input.environment)),
  updateAsset: adminProcedure
    .meta({ openapi: { method: "PATCH", path: "/business/config/asset", tags: ["config"], summary: "Choose an environment's asset: ETH or an ERC-20 token by address; locked once the environment has a ledger entry (owner or admin)", protect: true } })
    .input(updateAssetInput)
    .output(assetOutput)
    .mutation(({ ctx, input }) => updateAsset(ctx.businessId, input)),
});
