// The asset an environment's program counts its money in: the chain's native ETH (the default) or
// one ERC-20 token. Every amount is stored as an integer of the asset's base unit (wei for ETH, the
// token's smallest unit otherwise) and crosses the API as a decimal string with at most the asset's
// decimals. The rules core never looks at the asset: it counts base units.
import { z } from "zod";
import type { Address } from "viem";
import { fromBaseUnits } from "./money";

export interface Asset {
  asset: "ETH" | "ERC20";
  /** The token contract; null for ETH. */
  tokenAddress: Address | null;
  symbol: string;
  decimals: number;
}

export const ETH_ASSET: Asset = { asset: "ETH", tokenAddress: null, symbol: "ETH", decimals: 18 };

/** True for the chain's native coin, which pays its own gas. */
export const isNative = (a: Asset) => a.asset === "ETH";

/** What every answer that carries amounts says about them. */
export const assetTag = z.object({
  symbol: z.string(),
  decimals: z.number().int(),
  /** The ERC-20 contract; null for ETH. */
  tokenAddress: z.string().nullable(),
});
export type AssetTag = z.infer<typeof assetTag>;

export const assetTagOf = (a: Asset): AssetTag => ({ symbol: a.symbol, decimals: a.decimals, tokenAddress: a.tokenAddress });

/** Base units as stored (a Prisma Decimal), computed (bigint) or read (integer text). */
type Units = Parameters<typeof fromBaseUnits>[0];

/**
 * The one rule that turns a program amount (base units of its asset) into the API's decimal
 * string: at the asset's decimals ("1999000" of USDC → "1.999"). Gas is never a program amount: it
 * stays ETH (money.ts weiToEth).
 */
export const amountOf = (units: Units, asset: Pick<Asset, "decimals">): string => fromBaseUnits(units, asset.decimals);

/** A program amount in words, with the asset's symbol ("1.999 USDC"): messages, memos, emails, pages. */
export const amountText = (units: Units, asset: Pick<Asset, "decimals" | "symbol">): string => `${amountOf(units, asset)} ${asset.symbol}`;
