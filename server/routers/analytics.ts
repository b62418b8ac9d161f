import { getCommissionAnalytics } from "../domain/analytics/commissions";
import { analyticsInput, analyticsOutput, commissionAnalyticsInput, commissionAnalyticsOutput } from "../domain/analytics/schemas";
import { getAnalytics } from "../domain/analytics/service";
import { funnelInput, funnelOutput } from "../domain/links/schemas";
import { getFunnel } from "../domain/links/funnel";
import { businessProcedure, router } from "../trpc/init";

export const analyticsRouter = router({
  get: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/analytics", tags: ["analytics"], summary: "Per-day events, referrals, conversions and ETH", protect: true } })
    .input(analyticsInput)
    .output(analyticsOutput)
    .query(({ ctx, input }) => getAnalytics(ctx.businessId, input)),
  funnel: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/analytics/funnel", tags: ["analytics"], summary: "Link clicks → referrals → qualified → rewarded → ETH, grouped by referrer, campaign, utm_source or day", protect: true } })
    .input(funnelInput)
    .output(funnelOutput)
    .query(({ ctx, input }) => getFunnel(ctx.businessId, input)),
  commissions: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/analytics/commissions", tags: ["analytics"], summary: "Revenue attributed to referrals per currency and commissions granted (count, ETH, per rule), for a range or one referrer", protect: true } })
    .input(commissionAnalyticsInput)
    .output(commissionAnalyticsOutput)
    .query(({ ctx, input }) => getCommissionAnalytics(ctx.businessId, input)),
});
