// GET and PATCH /business/config/asset (config/asset-schemas.ts): which asset an environment's program counts its money in.
// A token is read on the environment's chain (symbol(), decimals()); the choice locks once the
// environment has a ledger entry (a credit or a reward), here with 422 ASSET_LOCKED and in the
// database by a trigger (migration 0210). Switching rescales the environment's amounts so that
// the numbers as typed stay ("0.01" ETH becomes "0.01" USDC).
import { erc20Abi, getAddress, type Address } from "viem";
import { db, type Tx } from "../../db/client";
import { onChain, publicClientFor, requireChainTarget, chainTarget, LOCAL_DEV_CHAIN_IDS } from "../../chain/clients";
import { ensureLocalDeployments, LOCAL_TEST_USDC } from "../../chain/local-deploy";
import { ETH_ASSET, type Asset } from "../../shared/asset";
import type { Environment } from "../../shared/environment";
import { AppError } from "../../shared/errors";
import { rescaleUnits, toBigInt } from "../../shared/money";
import { loadConfig, ENVIRONMENT_FIELDS } from "../effective-config/load";
import { lockPool } from "../ledger/service";
import { readAsset } from "../assets/read";
import type { AssetOutput, UpdateAssetInput } from "./asset-schemas";

const hasLedger = async (client: Tx | typeof db, businessId: string, environment: Environment) =>
  (await client.ledgerEntry.findFirst({ where: { businessId, environment }, select: { id: true } })) !== null;

/** The local TEST chain's stablecoin, offered on TEST when that chain is a local development node. */
async function suggestedTokens(environment: Environment): Promise<AssetOutput["suggestedTokens"]> {
  const target = chainTarget(environment);
  if (environment !== "TEST" || "problem" in target) return [];
  const chainId = await publicClientFor(target.rpcUrl).getChainId().catch(() => null);
  if (chainId === null || !LOCAL_DEV_CHAIN_IDS.has(chainId)) return [];
  return [
    {
      symbol: "USDC",
      name: "Test USD Coin",
      decimals: 6,
      tokenAddress: LOCAL_TEST_USDC,
      description: "A dollar stablecoin on the local TEST chain: the test deposit mints it, payouts send it; gas is paid in the chain's ETH.",
    },
  ];
}

const output = (environment: Environment, a: Asset, locked: boolean, suggested: AssetOutput["suggestedTokens"]): AssetOutput => ({
  environment,
  asset: a.asset,
  tokenAddress: a.tokenAddress,
  symbol: a.symbol,
  decimals: a.decimals,
  locked,
  suggestedTokens: suggested,
});

export async function getAsset(businessId: string, environment: Environment): Promise<AssetOutput> {
  const [a, locked, suggested] = await Promise.all([readAsset(db, businessId, environment), hasLedger(db, businessId, environment), suggestedTokens(environment)]);
  return output(environment, a, locked, suggested);
}

const notAToken = (address: string, why: string) =>
  new AppError("VALIDATION_ERROR", `${address} is not an ERC-20 token on this environment's chain: ${why}`, [{ path: "tokenAddress", message: why }]);

/** symbol() and decimals() of a token on the environment's chain; 400 when it is no contract or has neither; 503 when the chain is down. */
async function readToken(environment: Environment, address: Address): Promise<Asset> {
  const target = requireChainTarget(environment);
  const client = publicClientFor(target.rpcUrl);
  if (environment === "TEST" && address === LOCAL_TEST_USDC) await ensureLocalDeployments(target.rpcUrl).catch(() => false);
  const code = await onChain(target, "getCode", () => client.getCode({ address }));
  if (!code || code === "0x") throw notAToken(address, "there is no contract at this address");
  const read = <T>(fn: "symbol" | "decimals") =>
    onChain(target, fn, async () => {
      try {
        return (await client.readContract({ address, abi: erc20Abi, functionName: fn })) as T;
      } catch (e) {
        if (e instanceof AppError) throw e;
        return null;
      }
    });
  const [symbol, decimals] = await Promise.all([read<string>("symbol"), read<number>("decimals")]);
  if (symbol === null || decimals === null) throw notAToken(address, "the contract has no symbol() or decimals()");
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 18) throw notAToken(address, `its decimals() is ${decimals}; 0 to 18 are supported`);
  const clean = symbol.replace(/[^\x20-\x7e]/g, "").trim().slice(0, 16);
  if (!clean) throw notAToken(address, "its symbol() is empty");
  return { asset: "ERC20", tokenAddress: address, symbol: clean, decimals: Number(decimals) };
}

const AMOUNT_FIELDS = ["referralRewardWei", "bonusWei", "maxEthPerDayPerUserWei", "maxReferralEthPerEventWei", "maxBonusEthPerEventWei", "lowPoolAlertWei", "autoRefillAmountWei"] as const;

/**
 * The environment keeps its own settings row from now on, its amounts re-expressed in the new
 * asset's decimals (the number kept, rounded down): business-wide amounts are ETH's.
 */
async function rescaleEnvironmentAmounts(tx: Tx, businessId: string, environment: Environment, from: Asset, to: Asset) {
  const current = await loadConfig(tx, businessId, environment);
  const seed: Record<string, unknown> = Object.fromEntries(ENVIRONMENT_FIELDS.map((f) => [f, current[f]]));
  for (const f of AMOUNT_FIELDS) {
    const v = current[f];
    seed[f] = v === null ? null : rescaleUnits(toBigInt(v), from.decimals, to.decimals).toString();
  }
  await tx.environmentConfig.upsert({
    where: { businessId_environment: { businessId, environment } },
    create: { ...(seed as object), businessId, environment },
    update: seed,
  });
}

const sameAsset = (a: Asset, b: Asset) => a.asset === b.asset && (a.tokenAddress ?? "").toLowerCase() === (b.tokenAddress ?? "").toLowerCase();

export async function updateAsset(businessId: string, input: UpdateAssetInput): Promise<AssetOutput> {
  const { environment } = input;
  const next = input.asset === "ETH" ? ETH_ASSET : await readToken(environment, getAddress(input.tokenAddress!));
  await db.$transaction(async (tx) => {
    // Under the pool lock: a first credit or reward either committed before (locked) or waits.
    await lockPool(tx, businessId, environment);
    const current = await readAsset(tx, businessId, environment);
    if (sameAsset(current, next) && current.symbol === next.symbol && current.decimals === next.decimals) return;
    if (await hasLedger(tx, businessId, environment)) {
      throw new AppError("ASSET_LOCKED", `The ${environment} environment already has ledger entries in ${current.symbol}: a program's money stays in one asset`, { environment, asset: current.asset, symbol: current.symbol });
    }
    const data = { asset: next.asset, tokenAddress: next.tokenAddress, symbol: next.symbol, decimals: next.decimals };
    await tx.environmentAsset.upsert({ where: { businessId_environment: { businessId, environment } }, create: { businessId, environment, ...data }, update: data });
    if (current.decimals !== next.decimals) await rescaleEnvironmentAmounts(tx, businessId, environment, current, next);
  });
  return getAsset(businessId, environment);
}
