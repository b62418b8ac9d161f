import { z } from "zod";
import { environment } from "../shared/environment";
import {
  createWebhookInput,
  deliveryListOutput,
  listDeliveriesInput,
  queuedMessageOutput,
  retryDeliveryInput,
  rotateWebhookSecretInput,
  updateWebhookInput,
  webhookIdInput,
  webhookListOutput,
  webhookOutput,
  webhookWithSecretOutput,
  WEBHOOK_EVENT_TYPES,
} from "../domain/webhooks/schemas";
import {
  createWebhook,
  deleteWebhook,
  listDeliveries,
  listWebhooks,
  retryDelivery,
  rotateWebhookSecret,
  sendTestWebhook,
  toWebhookOutput,
  getOwnedWebhook,
  updateWebhook,
} from "../domain/webhooks/service";
import { businessProcedure, ownerProcedure, router } from "../trpc/init";

const tags = ["webhooks"];

export const webhooksRouter = router({
  list: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/webhooks", tags, summary: "List webhook endpoints (never secrets)", protect: true } })
    .input(z.strictObject({ environment: environment.optional() }))
    .output(webhookListOutput)
    .query(async ({ ctx, input }) => ({ data: await listWebhooks(ctx.businessId, input.environment), nextCursor: null, eventTypes: [...WEBHOOK_EVENT_TYPES] })),
  get: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/webhooks/{webhookId}", tags, summary: "One webhook endpoint", protect: true } })
    .input(webhookIdInput)
    .output(webhookOutput)
    .query(async ({ ctx, input }) => toWebhookOutput(await getOwnedWebhook(ctx.businessId, input.webhookId))),
  create: ownerProcedure
    .meta({ openapi: { method: "POST", path: "/business/webhooks", tags, summary: "Add an endpoint; its signing secret is returned once", protect: true } })
    .input(createWebhookInput)
    .output(webhookWithSecretOutput)
    .mutation(({ ctx, input }) => createWebhook(ctx.businessId, input)),
  update: ownerProcedure
    .meta({ openapi: { method: "PATCH", path: "/business/webhooks/{webhookId}", tags, summary: "Change url, events, description or enabled", protect: true } })
    .input(updateWebhookInput)
    .output(webhookOutput)
    .mutation(({ ctx, input }) => updateWebhook(ctx.businessId, input)),
  delete: ownerProcedure
    .meta({ openapi: { method: "DELETE", path: "/business/webhooks/{webhookId}", tags, summary: "Delete an endpoint with its delivery log", protect: true } })
    .input(webhookIdInput)
    .output(webhookOutput)
    .mutation(({ ctx, input }) => deleteWebhook(ctx.businessId, input.webhookId)),
  rotateSecret: ownerProcedure
    .meta({ openapi: { method: "POST", path: "/business/webhooks/{webhookId}/rotate-secret", tags, summary: "New signing secret; the old one also signs for overlapSeconds", protect: true } })
    .input(rotateWebhookSecretInput)
    .output(webhookWithSecretOutput)
    .mutation(({ ctx, input }) => rotateWebhookSecret(ctx.businessId, input.webhookId, input.overlapSeconds)),
  test: businessProcedure
    .meta({ openapi: { method: "POST", path: "/business/webhooks/{webhookId}/test", tags, summary: "Send a webhook.test event to this endpoint", protect: true } })
    .input(webhookIdInput)
    .output(queuedMessageOutput)
    .mutation(({ ctx, input }) => sendTestWebhook(ctx.businessId, input.webhookId)),
  deliveries: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/webhooks/{webhookId}/deliveries", tags, summary: "Delivery attempts, newest first", protect: true } })
    .input(listDeliveriesInput)
    .output(deliveryListOutput)
    .query(({ ctx, input }) => listDeliveries(ctx.businessId, input)),
  retryDelivery: businessProcedure
    .meta({ openapi: { method: "POST", path: "/business/webhooks/{webhookId}/deliveries/{deliveryId}/retry", tags, summary: "Send a delivery's message again now (same webhook-id)", protect: true } })
    .input(retryDeliveryInput)
    .output(queuedMessageOutput)
    .mutation(({ ctx, input }) => retryDelivery(ctx.businessId, input.webhookId, input.deliveryId)),
});
