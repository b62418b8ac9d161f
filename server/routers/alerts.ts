import { alertIdInput, alertOutput, listAlertsInput, listAlertsOutput } from "../domain/alerts/schemas";
import { acknowledgeAlert, listAlerts } from "../domain/alerts/service";
import { businessProcedure, router } from "../trpc/init";

export const alertsRouter = router({
  list: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/alerts", tags: ["alerts"], summary: "Low-pool alerts and refill requests", protect: true } })
    .input(listAlertsInput)
    .output(listAlertsOutput)
    .query(({ ctx, input }) => listAlerts(ctx.businessId, input)),
  acknowledge: businessProcedure
    .meta({ openapi: { method: "POST", path: "/business/alerts/{alertId}/acknowledge", tags: ["alerts"], summary: "Mark an alert as seen", protect: true } })
    .input(alertIdInput)
    .output(alertOutput)
    .mutation(({ ctx, input }) => acknowledgeAlert(ctx.businessId, input.alertId)),
});
