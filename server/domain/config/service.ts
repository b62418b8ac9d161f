// Business configuration: general settings (name, strategy, default amounts, processing mode)
// and spend settings (caps, low-pool alert, auto-refill). Wei inside, ETH strings outside.
// Amounts, caps, low-pool alert and auto-refill may differ between TEST and LIVE (effective-config/load.ts);
// an update with `environment` changes that environment only, one without changes both.
import { db, type Db, type Tx } from "../../db/client";
import type { Prisma } from "../../db/generated";
import { notFound } from "../../shared/errors";
import { ethToWei, weiToDb, weiToEth, type Currency } from "../../shared/money";
import { rearmLowPoolAlerts } from "../ledger/service";
import { forgetLinkTargets } from "../links/resolve";
import type { Environment } from "../../shared/environment";
import { ENVIRONMENT_FIELDS, loadConfig, readConfig, type EffectiveConfig } from "../effective-config/load";
import type { ConfigOutput, UpdateGeneralInput, UpdateSpendInput } from "./schemas";

const ethOrNull = (v: { toFixed(): string } | null) => (v === null ? null : weiToEth(v));

export async function getConfig(businessId: string, environment: Environment = "LIVE"): Promise<ConfigOutput> {
  const b = await db.business.findUnique({ where: { id: businessId } });
  if (!b) throw notFound("Business");
  const c = await db.$transaction((tx) => loadConfig(tx, businessId, environment));
  return configOutput(b, c);
}

/** The configuration as GET /business/config shows it, read with `client` (a transaction sees its own writes); null before the first save. */
export async function readConfigView(client: Tx | Db, businessId: string, environment: Environment): Promise<ConfigOutput | null> {
  const [b, c] = [await client.business.findUnique({ where: { id: businessId } }), await readConfig(client, businessId, environment)];
  return b && c ? configOutput(b, c) : null;
}

function configOutput(b: { name: string; website: string | null }, c: EffectiveConfig): ConfigOutput {
  return {
    environment: c.environment,
    environmentSpecific: c.perEnvironment,
    general: {
      businessName: b.name,
      website: b.website,
      rewardStrategy: c.rewardStrategy,
      referralRewardEth: weiToEth(c.referralRewardWei),
      bonusEth: weiToEth(c.bonusWei),
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
      maxEthPerDayPerUser: ethOrNull(c.maxEthPerDayPerUserWei),
      maxReferralEthPerEvent: ethOrNull(c.maxReferralEthPerEventWei),
      maxBonusEthPerEvent: ethOrNull(c.maxBonusEthPerEventWei),
      lowPoolAlertEth: weiToEth(c.lowPoolAlertWei),
      autoRefillEnabled: c.autoRefillEnabled,
      autoRefillAmountEth: weiToEth(c.autoRefillAmountWei),
      payoutHoldDays: c.payoutHoldDays,
      minPayoutEth: weiToEth(c.minPayoutWei),
      autoPayoutEnabled: c.autoPayoutEnabled,
      reversalEvents: c.reversalEvents,
      requireVerifiedWallet: c.requireVerifiedWallet,
    },
  };
}

const toDbOrNull = (eth: string | null) => (eth === null ? null : weiToDb(ethToWei(eth)));

type EnvData = Partial<Record<(typeof ENVIRONMENT_FIELDS)[number], string | boolean | null>>;

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
async function writeEnvironmentFields(tx: Tx, businessId: string, environment: Environment | undefined, data: EnvData) {
  const clean = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined)) as EnvData;
  if (!Object.keys(clean).length) return;
  if (!environment) {
    await tx.businessConfig.update({ where: { businessId }, data: clean as Prisma.BusinessConfigUpdateInput });
    await tx.environmentConfig.updateMany({ where: { businessId }, data: clean as Prisma.EnvironmentConfigUpdateManyMutationInput });
    return;
  }
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
      referralRewardWei: input.referralRewardEth === undefined ? undefined : weiToDb(ethToWei(input.referralRewardEth)),
      bonusWei: input.bonusEth === undefined ? undefined : weiToDb(ethToWei(input.bonusEth)),
      linkDestinationUrl: input.linkDestinationUrl,
      linkParam: input.linkParam,
      attribution: input.attribution,
      leaderboardEnabled: input.leaderboardEnabled,
      defaultCurrency: input.defaultCurrency,
      bonusRequiresWallet: input.bonusRequiresWallet,
    });
  });
  forgetLinkTargets(businessId);
  return getConfig(businessId, input.environment);
}

export async function updateSpendConfig(businessId: string, input: UpdateSpendInput): Promise<ConfigOutput> {
  await db.$transaction(async (tx) => {
    await loadConfig(tx, businessId, input.environment ?? "LIVE");
    await lockConfig(tx, businessId);
    await writeEnvironmentFields(tx, businessId, input.environment, {
        maxEthPerDayPerUserWei: input.maxEthPerDayPerUser === undefined ? undefined : toDbOrNull(input.maxEthPerDayPerUser),
        maxReferralEthPerEventWei: input.maxReferralEthPerEvent === undefined ? undefined : toDbOrNull(input.maxReferralEthPerEvent),
        maxBonusEthPerEventWei: input.maxBonusEthPerEvent === undefined ? undefined : toDbOrNull(input.maxBonusEthPerEvent),
        lowPoolAlertWei: input.lowPoolAlertEth === undefined ? undefined : weiToDb(ethToWei(input.lowPoolAlertEth)),
        autoRefillEnabled: input.autoRefillEnabled,
        autoRefillAmountWei: input.autoRefillAmountEth === undefined ? undefined : weiToDb(ethToWei(input.autoRefillAmountEth)),
    });
    // Payout settings are shared by TEST and LIVE (one payout policy per business).
    if (input.payoutHoldDays !== undefined || input.minPayoutEth !== undefined || input.autoPayoutEnabled !== undefined || input.reversalEvents !== undefined || input.requireVerifiedWallet !== undefined) {
      await tx.businessConfig.update({
        where: { businessId },
        data: {
          payoutHoldDays: input.payoutHoldDays,
          minPayoutWei: input.minPayoutEth === undefined ? undefined : weiToDb(ethToWei(input.minPayoutEth)),
          autoPayoutEnabled: input.autoPayoutEnabled,
          requireVerifiedWallet: input.requireVerifiedWallet,
          reversalEvents: input.reversalEvents === undefined ? undefined : [...new Set(input.reversalEvents)],
        },
      });
    }
    // A lowered threshold may put a pool back above it: re-arm its alert for the next crossing.
    if (input.lowPoolAlertEth !== undefined) await rearmLowPoolAlerts(tx, businessId);
  });
  return getConfig(businessId, input.environment);
}
