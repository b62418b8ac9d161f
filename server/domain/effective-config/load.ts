// The settings in force for one environment. Amounts, caps, the low-pool alert and auto-refill
// may differ between TEST and LIVE: an EnvironmentConfig row holds an environment's own values;
// without one, the environment uses the business-wide values of BusinessConfig. Everything
// that applies these settings (reward engine, manual rewards, low-pool alerts, balance) reads
// them here, for the environment of the money it moves.
import type { Db, Tx } from "../../db/client";
import type { BusinessConfig, EnvironmentConfig } from "../../db/generated";
import type { Environment } from "../../shared/environment";

/** The fields an environment may set on its own. */
export const ENVIRONMENT_FIELDS = [
  "referralRewardWei",
  "bonusWei",
  "maxEthPerDayPerUserWei",
  "maxReferralEthPerEventWei",
  "maxBonusEthPerEventWei",
  "lowPoolAlertWei",
  "autoRefillEnabled",
  "autoRefillAmountWei",
  "linkDestinationUrl",
  "linkParam",
  "attribution",
  "leaderboardEnabled",
  "defaultCurrency",
  "bonusRequiresWallet",
] as const satisfies ReadonlyArray<keyof BusinessConfig & keyof EnvironmentConfig>;

export type EffectiveConfig = BusinessConfig & { environment: Environment; perEnvironment: boolean };

function overlay(base: BusinessConfig, own: EnvironmentConfig | null, environment: Environment): EffectiveConfig {
  const out: EffectiveConfig = { ...base, environment, perEnvironment: !!own };
  if (own) for (const f of ENVIRONMENT_FIELDS) (out as Record<string, unknown>)[f] = own[f];
  return out;
}

const withOwn = (environment: Environment) => ({ business: { select: { environmentConfigs: { where: { environment } } } } });

/** The config of one environment (one query), the business-wide row created with its defaults on first use. */
export async function loadConfig(tx: Tx, businessId: string, environment: Environment): Promise<EffectiveConfig> {
  const row = await tx.businessConfig.findUnique({ where: { businessId }, include: withOwn(environment) });
  if (!row) return overlay(await tx.businessConfig.create({ data: { businessId } }), null, environment);
  const { business, ...base } = row;
  return overlay(base, business.environmentConfigs[0] ?? null, environment);
}

/** Read-only variant (no row is created): null when the business never saved a config. */
export async function readConfig(client: Tx | Db, businessId: string, environment: Environment): Promise<EffectiveConfig | null> {
  const row = await client.businessConfig.findUnique({ where: { businessId }, include: withOwn(environment) });
  if (!row) return null;
  const { business, ...base } = row;
  return overlay(base, business.environmentConfigs[0] ?? null, environment);
}
