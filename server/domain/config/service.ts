// Business configuration: general settings (name, strategy, default amounts, processing mode)
// and spend settings (caps, low-pool alert, auto-refill). Wei inside, ETH strings outside.
import { db } from "../../db/client";
import { notFound } from "../../shared/errors";
import { weiToEth } from "../../shared/money";
import type { ConfigOutput } from "./schemas";

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
