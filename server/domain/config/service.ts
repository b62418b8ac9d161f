// Business configuration: general settings (name, strategy, default amounts, processing mode)
// and spend settings (caps, low-pool alert, auto-refill). Wei inside, ETH strings outside.
// Amounts, caps, low-pool alert and auto-refill may differ between TEST and LIVE (effective-config/load.ts);
// an update with `environment` changes that environment only, one without changes both.
import { db, type Db, type Tx } from "../../db/client";
import type { Prisma } from "../../db/generated";
import { notFound } from "../../shared/errors";
import { weiToDb, weiToEth, type Currency } from "../../shared/money";
import { assetTagOf, ETH_ASSET, type Asset } from "../../shared/asset";
import { amountOf, readAsset, readAssets, sharedUnitsOfInput, unitsOfInput } from "../assets/read";
import { rearmLowPoolAlerts } from "../ledger/service";
import { forgetLinkTargets } from "../links/resolve";
import type { Environment } from "../../shared/environment";
import { ENVIRONMENT_FIELDS, loadConfig, readConfig, type EffectiveConfig } from "../effective-config/load";
import type { ConfigOutput, UpdateGeneralInput, UpdateSpendInput } from "./schemas";

export async function getConfig(businessId: string, environment: Environment = "LIVE"): Promise<ConfigOutput> {
  const b = await db.business.findUnique({ where: { id: businessId } });
  if (!b) throw notFound("Business");
  const [c, asset] = await Promise.all([db.$transaction((tx) => loadConfig(tx, businessId, environment)), readAsset(db, businessId, environment)]);
  return configOutput(b, c, asset);
}

/** The configuration as GET /business/config shows it, read with `client` (a transaction sees its own writes); null before the first save. */
export async function readConfigView(client: Tx | Db, businessId: string, environment: Environment): Promise<ConfigOutput | null> {
  const [b, c, asset] = [await client.business.findUnique({ where: { id: businessId } }), await readConfig(client, businessId, environment), await readAsset(client, businessId, environment)];
  return b && c ? configOutput(b, c, asset) : null;
}

/**
 * The environment's amounts in its asset. minPayoutEth is business-wide: one number for both
 * environments, stored at ETH's 18 decimals and read in each environment's asset (payouts).
 */
function configOutput(b: { name: string; website: string | null }, c: EffectiveConfig, asset: Asset): ConfigOutput {
  const amount = (v: { toFixed(): string }) => amountOf(v, asset);
  const amountOrNull = (v: { toFixed(): string } | null) => (v === null ? null : amount(v));
  return {
    asset: assetTagOf(asset),
    environment: c.environment,
    environmentSpecific: c.perEnvironment,
    general: {
      businessName: b.name,
      website: b.website,
      rewardStrategy: c.rewardStrategy,
      referralRewardEth: amount(c.referralRewardWei),
      bonusEth: amount(c.bonusWei),
      eventProcessing: c.eventProcessing,
      qualifyingEvents: c.qualifyingEvents,
      reversalEvents: c.reversalEvents,
      linkDestinationUrl: c.linkDestinationUrl,
      linkParam: c.linkParam,
      attribution: c.attribution as "FIRST_CLICK" | "LAST_CLICK",
      leaderboardEnabled: c.leaderboardEnabled,
      defaultCurrency: c.defaultCurrency as Currency,
      bonusRequiresWallet: c.bonusRequiresWallet,
    },
    spend: {
      maxEthPerDayPerUser: amountOrNull(c.maxEthPerDayPerUserWei),
      maxReferralEthPerEvent: amountOrNull(c.maxReferralEthPerEventWei),
      maxBonusEthPerEvent: amountOrNull(c.maxBonusEthPerEventWei),
      lowPoolAlertEth: amount(c.lowPoolAlertWei),
      autoRefillEnabled: c.autoRefillEnabled,
      autoRefillAmountEth: amount(c.autoRefillAmountWei),
      payoutHoldDays: c.payoutHoldDays,
      minPayoutEth: weiToEth(c.minPayoutWei),
      autoPayoutEnabled: c.autoPayoutEnabled,
      reversalEvents: c.reversalEvents,
      requireVerifiedWallet: c.requireVerifiedWallet,
      withdrawalsEnabled: c.withdrawalsEnabled,
      minWithdrawalEth: weiToEth(c.minWithdrawalWei ?? c.minPayoutWei),
    },
  };
}

type EnvData = Partial<Record<(typeof ENVIRONMENT_FIELDS)[number], string | boolean | null>>;

/** Amount fields as typed (decimal strings in the environment's asset; null: no cap), by column. */
type Amounts = Partial<Record<"referralRewardWei" | "bonusWei" | "maxEthPerDayPerUserWei" | "maxReferralEthPerEventWei" | "maxBonusEthPerEventWei" | "lowPoolAlertWei" | "autoRefillAmountWei", string | null>>;

/** Input names of the amount columns, for the 400's details. */
const AMOUNT_INPUT: Record<keyof Amounts, string> = {
  referralRewardWei: "referralRewardEth",
  bonusWei: "bonusEth",
  maxEthPerDayPerUserWei: "maxEthPerDayPerUser",
  maxReferralEthPerEventWei: "maxReferralEthPerEvent",
  maxBonusEthPerEventWei: "maxBonusEthPerEvent",
  lowPoolAlertWei: "lowPoolAlertEth",
  autoRefillAmountWei: "autoRefillAmountEth",
};

/** The amounts in base units of `asset` (400 when one has more decimals than the asset has). */
function amountsIn(amounts: Amounts, asset: Asset): EnvData {
  const out: EnvData = {};
  for (const [k, v] of Object.entries(amounts) as Array<[keyof Amounts, string | null | undefined]>) {
    if (v !== undefined) out[k] = v === null ? null : weiToDb(unitsOfInput(v, asset, AMOUNT_INPUT[k]));
  }
  return out;
}

/**
 * One settings change of a business at a time: an environment's own row is created from the
 * business-wide values read in the same transaction (writeEnvironmentFields), so a change of
 * those values committed meanwhile would be lost for that environment.
 */
async function lockConfig(tx: Tx, businessId: string) {
  await tx.$queryRaw`SELECT "businessId" FROM "BusinessConfig" WHERE "businessId" = ${businessId} FOR UPDATE`;
}

/**
 * Writes the environment-specific fields: to that environment's own row (created from the values
 * in force so that the other fields keep them), or, without an environment, to the business-wide
 * row and to every environment's own row, so that both environments change.
 */
async function writeEnvironmentFields(tx: Tx, businessId: string, environment: Environment | undefined, data: EnvData, amounts: Amounts = {}) {
  const keep = (d: EnvData) => Object.fromEntries(Object.entries(d).filter(([, v]) => v !== undefined)) as EnvData;
  const clean = keep(data);
  if (!Object.keys(clean).length && !Object.keys(keep(amounts)).length) return;
  if (!environment) {
    // Business-wide amounts are ETH's; an environment's own row takes them in its asset.
    const assets = await readAssets(tx, businessId);
    const perEnvironment = { TEST: amountsIn(amounts, assets.TEST), LIVE: amountsIn(amounts, assets.LIVE) };
    await tx.businessConfig.update({ where: { businessId }, data: { ...clean, ...amountsIn(amounts, ETH_ASSET) } as Prisma.BusinessConfigUpdateInput });
    for (const env of ["TEST", "LIVE"] as const) {
      await tx.environmentConfig.updateMany({ where: { businessId, environment: env }, data: { ...clean, ...perEnvironment[env] } as Prisma.EnvironmentConfigUpdateManyMutationInput });
    }
    return;
  }
  Object.assign(clean, amountsIn(amounts, await readAsset(tx, businessId, environment)));
  const current = await loadConfig(tx, businessId, environment);
  const seed = Object.fromEntries(ENVIRONMENT_FIELDS.map((f) => [f, current[f]]));
  await tx.environmentConfig.upsert({
    where: { businessId_environment: { businessId, environment } },
    create: { ...(seed as object), ...(clean as object), businessId, environment },
    update: clean as Prisma.EnvironmentConfigUpdateInput,
  });
}

export async function updateGeneralConfig(businessId: string, input: UpdateGeneralInput): Promise<ConfigOutput> {
  await db.$transaction(async (tx) => {
    await loadConfig(tx, businessId, input.environment ?? "LIVE");
    await lockConfig(tx, businessId);
    if (input.businessName !== undefined || input.website !== undefined) {
      await tx.business.update({
        where: { id: businessId },
        data: { name: input.businessName, website: input.website },
      });
    }
    await tx.businessConfig.update({
      where: { businessId },
      data: {
        rewardStrategy: input.rewardStrategy,
        eventProcessing: input.eventProcessing,
        qualifyingEvents: input.qualifyingEvents === undefined ? undefined : [...new Set(input.qualifyingEvents)],
        reversalEvents: input.reversalEvents === undefined ? undefined : [...new Set(input.reversalEvents)],
      },
    });
    await writeEnvironmentFields(tx, businessId, input.environment, {
      linkDestinationUrl: input.linkDestinationUrl,
      linkParam: input.linkParam,
      attribution: input.attribution,
      leaderboardEnabled: input.leaderboardEnabled,
      defaultCurrency: input.defaultCurrency,
      bonusRequiresWallet: input.bonusRequiresWallet,
    }, { referralRewardWei: input.referralRewardEth, bonusWei: input.bonusEth });
  });
  forgetLinkTargets(businessId);
  return getConfig(businessId, input.environment);
}

/** minPayoutEth and minWithdrawalEth apply in both environments' assets (assets/read.ts sharedUnitsOfInput). */
const minPayoutOfInput = async (tx: Tx, businessId: string, amount: string, field = "minPayoutEth") => weiToDb(await sharedUnitsOfInput(tx, businessId, amount, field));

const PAYOUT_FIELDS = ["payoutHoldDays", "minPayoutEth", "autoPayoutEnabled", "reversalEvents", "requireVerifiedWallet", "withdrawalsEnabled", "minWithdrawalEth"] as const;

export async function updateSpendConfig(businessId: string, input: UpdateSpendInput): Promise<ConfigOutput> {
  await db.$transaction(async (tx) => {
    await loadConfig(tx, businessId, input.environment ?? "LIVE");
    await lockConfig(tx, businessId);
    await writeEnvironmentFields(tx, businessId, input.environment, { autoRefillEnabled: input.autoRefillEnabled }, {
      maxEthPerDayPerUserWei: input.maxEthPerDayPerUser,
      maxReferralEthPerEventWei: input.maxReferralEthPerEvent,
      maxBonusEthPerEventWei: input.maxBonusEthPerEvent,
      lowPoolAlertWei: input.lowPoolAlertEth,
      autoRefillAmountWei: input.autoRefillAmountEth,
    });
    // Payout settings are shared by TEST and LIVE (one payout policy per business).
    if (PAYOUT_FIELDS.some((f) => input[f] !== undefined)) {
      await tx.businessConfig.update({
        where: { businessId },
        data: {
          payoutHoldDays: input.payoutHoldDays,
          minPayoutWei: input.minPayoutEth === undefined ? undefined : await minPayoutOfInput(tx, businessId, input.minPayoutEth),
          autoPayoutEnabled: input.autoPayoutEnabled,
          requireVerifiedWallet: input.requireVerifiedWallet,
          withdrawalsEnabled: input.withdrawalsEnabled,
          minWithdrawalWei: input.minWithdrawalEth === undefined ? undefined : input.minWithdrawalEth === null ? null : await minPayoutOfInput(tx, businessId, input.minWithdrawalEth, "minWithdrawalEth"),
          reversalEvents: input.reversalEvents === undefined ? undefined : [...new Set(input.reversalEvents)],
        },
      });
    }
    // A lowered threshold may put a pool back above it: re-arm its alert for the next crossing.
    if (input.lowPoolAlertEth !== undefined) await rearmLowPoolAlerts(tx, businessId);
  });
  return getConfig(businessId, input.environment);
}
