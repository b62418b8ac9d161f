// The rules core's view of an environment's config: amounts and caps as bigint wei.
import { toBigInt } from "../../shared/money";
import type { Asset } from "../../shared/asset";
import type { EffectiveConfig } from "../effective-config/load";
import type { RuleConfig } from "./decide";

const orNull = (v: { toFixed(): string } | null) => (v === null ? null : toBigInt(v));

/** The rules core's view of an environment's config. */
export function ruleConfigOf(c: EffectiveConfig, asset: Asset): RuleConfig {
  return {
    asset,
    rewardStrategy: c.rewardStrategy,
    referralWei: toBigInt(c.referralRewardWei),
    bonusWei: toBigInt(c.bonusWei),
    qualifyingEvents: c.qualifyingEvents,
    reversalEvents: c.reversalEvents,
    maxReferralPerEventWei: orNull(c.maxReferralEthPerEventWei),
    maxBonusPerEventWei: orNull(c.maxBonusEthPerEventWei),
    maxPerDayWei: orNull(c.maxEthPerDayPerUserWei),
    lowPoolWei: toBigInt(c.lowPoolAlertWei),
    autoRefill: c.autoRefillEnabled,
    autoRefillWei: toBigInt(c.autoRefillAmountWei),
    bonusRequiresWallet: c.bonusRequiresWallet,
  };
}

