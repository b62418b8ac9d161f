import { z } from "zod";
import { referralStatsInput, referralStatsOutput } from "../domain/analytics/schemas";
import { referralStats } from "../domain/analytics/referral-stats";
import { referralSettingsOutput, updateReferralSettingsInput } from "../domain/referral-settings/schemas";
import { getReferralSettings, updateReferralSettings } from "../domain/referral-settings/service";
import { listBusinessReferralsInput, listBusinessReferralsOutput, referralDetailOutput, referralIdInput } from "../domain/referrals/browse-schemas";
import { getBusinessReferral, listBusinessReferrals } from "../domain/referrals/browse";
import { adminProcedure, businessProcedure, router } from "../trpc/init";

export const referralsRouter = router({
  settings: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/referrals/settings", tags: ["referrals"], summary: "Read anti-abuse referral settings", protect: true } })
    .input(z.object({}))
    .output(referralSettingsOutput)
    .query(({ ctx }) => getReferralSettings(ctx.businessId)),
  updateSettings: adminProcedure
    .meta({ openapi: { method: "PATCH", path: "/business/referrals/settings", tags: ["referrals"], summary: "Update anti-abuse referral settings (owner or admin)", protect: true } })
    .input(updateReferralSettingsInput)
    .output(referralSettingsOutput)
    .mutation(({ ctx, input }) => updateReferralSettings(ctx.businessId, input)),
  stats: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/referrals/stats", tags: ["referrals"], summary: "Referral statistics of one environment", protect: true } })
    .input(referralStatsInput)
    .output(referralStatsOutput)
    .query(({ ctx, input }) => referralStats(ctx.businessId, input.environment)),
  // After settings and stats: the REST face matches paths in this order, so /settings and /stats
  // are never read as a referralId.
  list: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/referrals", tags: ["referrals"], summary: "List referrals (search, filters, cursor pagination)", protect: true } })
    .input(listBusinessReferralsInput)
    .output(listBusinessReferralsOutput)
    .query(({ ctx, input }) => listBusinessReferrals(ctx.businessId, input)),
  get: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/referrals/{referralId}", tags: ["referrals"], summary: "One referral: who referred whom, its events, rewards and timeline", protect: true } })
    .input(referralIdInput)
    .output(referralDetailOutput)
    .query(({ ctx, input }) => getBusinessReferral(ctx.businessId, input.referralId)),
});
