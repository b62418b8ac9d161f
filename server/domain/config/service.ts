// Business configuration: general settings (name, strategy, default amounts, processing mode)
// and spend settings (caps, low-pool alert, auto-refill). Wei inside, ETH strings outside.
import { db, type Tx } from "../../db/client";
import { notFound } from "../../shared/errors";
import { ethToWei, weiToDb, weiToEth } from "../../shared/money";
import { rearmLowPoolAlerts } from "../ledger/service";
import type { ConfigOutput, UpdateGeneralInput, UpdateSpendInput } from "./schemas";

const ethOrNull = (v: { toFixed(): string } | null) => (v === null ? null : weiToEth(v));

export async function getConfig(businessId: string): Promise<ConfigOutput> {
  const b = await db.business.findUnique({ where: { id: businessId }, include: { config: true } });
  if (!b) throw notFound("Business");
  const c = b.config ?? (await db.businessConfig.create({ data: { businessId } }));
  return {
    general: {
      businessName: b.name,
      website: b.website,
      rewardStrategy: c.rewardStrategy,
      referralRewardEth: weiToEth(c.referralRewardWei),
      bonusEth: weiToEth(c.bonusWei),
      eventProcessing: c.eventProcessing,
      qualifyingEvents: c.qualifyingEvents,
    },
    spend: {
      maxEthPerDayPerUser: ethOrNull(c.maxEthPerDayPerUserWei),
      maxReferralEthPerEvent: ethOrNull(c.maxReferralEthPerEventWei),
      maxBonusEthPerEvent: ethOrNull(c.maxBonusEthPerEventWei),
      lowPoolAlertEth: weiToEth(c.lowPoolAlertWei),
      autoRefillEnabled: c.autoRefillEnabled,
      autoRefillAmountEth: weiToEth(c.autoRefillAmountWei),
    },
  };
}

const toDbOrNull = (eth: string | null) => (eth === null ? null : weiToDb(ethToWei(eth)));

/** The config row, created with its defaults on first use. */
export async function loadConfig(tx: Tx, businessId: string) {
  return (await tx.businessConfig.findUnique({ where: { businessId } })) ?? (await tx.businessConfig.create({ data: { businessId } }));
}

export async function updateGeneralConfig(businessId: string, input: UpdateGeneralInput): Promise<ConfigOutput> {
  await db.$transaction(async (tx) => {
    await loadConfig(tx, businessId);
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
        referralRewardWei: input.referralRewardEth === undefined ? undefined : weiToDb(ethToWei(input.referralRewardEth)),
        bonusWei: input.bonusEth === undefined ? undefined : weiToDb(ethToWei(input.bonusEth)),
        eventProcessing: input.eventProcessing,
        qualifyingEvents: input.qualifyingEvents === undefined ? undefined : [...new Set(input.qualifyingEvents)],
      },
    });
  });
  return getConfig(businessId);
}

export async function updateSpendConfig(businessId: string, input: UpdateSpendInput): Promise<ConfigOutput> {
  await db.$transaction(async (tx) => {
    await loadConfig(tx, businessId);
    await tx.businessConfig.update({
      where: { businessId },
      data: {
        maxEthPerDayPerUserWei: input.maxEthPerDayPerUser === undefined ? undefined : toDbOrNull(input.maxEthPerDayPerUser),
        maxReferralEthPerEventWei: input.maxReferralEthPerEvent === undefined ? undefined : toDbOrNull(input.maxReferralEthPerEvent),
        maxBonusEthPerEventWei: input.maxBonusEthPerEvent === undefined ? undefined : toDbOrNull(input.maxBonusEthPerEvent),
        lowPoolAlertWei: input.lowPoolAlertEth === undefined ? undefined : weiToDb(ethToWei(input.lowPoolAlertEth)),
        autoRefillEnabled: input.autoRefillEnabled,
        autoRefillAmountWei: input.autoRefillAmountEth === undefined ? undefined : weiToDb(ethToWei(input.autoRefillAmountEth)),
      },
    });
    // A lowered threshold may put a pool back above it: re-arm its alert for the next crossing.
    if (input.lowPoolAlertEth !== undefined) await rearmLowPoolAlerts(tx, businessId, ethToWei(input.lowPoolAlertEth));
  });
  return getConfig(businessId);
}
