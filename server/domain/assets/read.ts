// The asset of one business's environment (EnvironmentAsset; no row: ETH), read by everything
// that turns base units into words or moves them on chain. The rules core never reads it, except
// commissions, which convert an event's amount into the asset's base units.
import { getAddress } from "viem";
import type { Db, Tx } from "../../db/client";
import { ETH_ASSET, type Asset } from "../../shared/asset";
import type { Environment } from "../../shared/environment";
import { AppError } from "../../shared/errors";
import { assetAmountProblem, rescaleUnits, toBaseUnits, toBigInt } from "../../shared/money";

export async function readAsset(client: Tx | Db, businessId: string, environment: Environment): Promise<Asset> {
  const row = await client.environmentAsset.findUnique({ where: { businessId_environment: { businessId, environment } } });
  if (!row || row.asset !== "ERC20" || !row.tokenAddress) return ETH_ASSET;
  return { asset: "ERC20", tokenAddress: getAddress(row.tokenAddress), symbol: row.symbol, decimals: row.decimals };
}

/** Both environments' assets of a business. */
export async function readAssets(client: Tx | Db, businessId: string): Promise<Record<Environment, Asset>> {
  const [TEST, LIVE] = await Promise.all([readAsset(client, businessId, "TEST"), readAsset(client, businessId, "LIVE")]);
  return { TEST, LIVE };
}

/** An amount typed in the asset → its base units; 400 VALIDATION_ERROR (naming `field`) when it has more decimals than the asset. */
export function unitsOfInput(amount: string, asset: Asset, field: string): bigint {
  const problem = assetAmountProblem(amount, asset.decimals, asset.symbol);
  if (problem) throw new AppError("VALIDATION_ERROR", "Request validation failed", [{ path: field, message: problem }]);
  return toBaseUnits(amount, asset.decimals);
}

/** Base units of the asset → the decimal string the API answers (the rule lives in shared/asset.ts). */
export { amountOf } from "../../shared/asset";

/**
 * A business-wide amount typed by a person (minPayoutEth, tier amounts: one number for both
 * environments) → its stored base units at ETH's 18 decimals; 400 VALIDATION_ERROR (naming
 * `field`) when it has more decimals than the fewer of the two environments' assets.
 */
export async function sharedUnitsOfInput(client: Tx | Db, businessId: string, amount: string, field: string): Promise<bigint> {
  const assets = await readAssets(client, businessId);
  unitsOfInput(amount, assets.TEST.decimals <= assets.LIVE.decimals ? assets.TEST : assets.LIVE, field);
  return unitsOfInput(amount, ETH_ASSET, field);
}

/**
 * A business-wide amount (minPayoutWei, tier amounts: one number for both environments, stored at
 * ETH's 18 decimals) in base units of an environment's asset, rounded down.
 */
export const sharedAmountUnits = (stored: bigint | { toFixed(): string }, asset: Asset): bigint => rescaleUnits(toBigInt(stored), 18, asset.decimals);
