import { z } from "zod";
import { environment } from "../../shared/environment";

const tokenAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "Must be a 0x-prefixed 20-byte contract address");

/** GET /business/config/asset?environment=TEST|LIVE (default LIVE). */
export const getAssetInput = z.object({ environment: environment.default("LIVE") });

/** PATCH /business/config/asset: ETH, or an ERC-20 token by its contract address. */
export const updateAssetInput = z
  .strictObject({ environment, asset: z.enum(["ETH", "ERC20"]), tokenAddress: tokenAddress.nullable().optional() })
  .superRefine((v, ctx) => {
    if (v.asset === "ERC20" && !v.tokenAddress) ctx.addIssue({ code: "custom", path: ["tokenAddress"], message: "An ERC20 asset needs its tokenAddress" });
    if (v.asset === "ETH" && v.tokenAddress) ctx.addIssue({ code: "custom", path: ["tokenAddress"], message: "ETH has no tokenAddress" });
  });
export type UpdateAssetInput = z.infer<typeof updateAssetInput>;

const suggestedToken = z.object({ symbol: z.string(), name: z.string(), decimals: z.number().int(), tokenAddress: z.string(), description: z.string() });

export const assetOutput = z.object({
  environment,
  asset: z.enum(["ETH", "ERC20"]),
  /** The ERC-20 contract; null for ETH. */
  tokenAddress: z.string().nullable(),
  symbol: z.string(),
  decimals: z.number().int(),
  /** True once the environment has a ledger entry: the asset can no longer change. */
  locked: z.boolean(),
  /** Tokens offered for this environment (the local TEST chain's test stablecoin); empty elsewhere. */
  suggestedTokens: z.array(suggestedToken),
});
export type AssetOutput = z.infer<typeof assetOutput>;
