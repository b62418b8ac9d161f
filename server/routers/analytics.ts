import { analyticsInput, analyticsOutput } from "../domain/analytics/schemas";
import { getAnalytics } from "../domain/analytics/service";
import { businessProcedure, router } from "../trpc/init";

export const analyticsRouter = router({
  get: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/analytics", tags: ["analytics"], summary: "Per-day events, referrals, conversions and ETH", protect: true } })
    .input(analyticsInput)
    .output(analyticsOutput)
    .query(({ ctx, input }) => getAnalytics(ctx.businessId, input)),
});
