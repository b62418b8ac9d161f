// The Stripe connection (docs/integrations.md): owners and admins connect and disconnect, members read.
import { connectStripeInput, listStripeEventsInput, stripeEnvironmentInput, stripeEventListOutput, stripeIntegrationOutput } from "../domain/integrations/stripe-schemas";
import { connectStripe, disconnectStripe, getStripeIntegration, listStripeEvents } from "../domain/integrations/stripe-connection";
import { adminProcedure, businessProcedure, router } from "../trpc/init";

const tags = ["integrations"];
const path = "/business/integrations/stripe";

export const integrationsRouter = router({
  connectStripe: adminProcedure
    .meta({ openapi: { method: "PUT", path, tags, summary: "Connect Stripe for an environment (or change the connection); answers the webhook URL to paste into Stripe", protect: true } })
    .input(connectStripeInput)
    .output(stripeIntegrationOutput)
    .mutation(({ ctx, input }) => connectStripe(ctx.businessId, input)),
  getStripe: businessProcedure
    .meta({ openapi: { method: "GET", path, tags, summary: "The Stripe connection of an environment (404 when not connected)", protect: true } })
    .input(stripeEnvironmentInput)
    .output(stripeIntegrationOutput)
    .query(({ ctx, input }) => getStripeIntegration(ctx.businessId, input.environment)),
  disconnectStripe: adminProcedure
    .meta({ openapi: { method: "DELETE", path, tags, summary: "Disconnect Stripe; its webhook URL answers 404 from then on", protect: true } })
    .input(stripeEnvironmentInput)
    .output(stripeIntegrationOutput)
    .mutation(({ ctx, input }) => disconnectStripe(ctx.businessId, input.environment)),
  stripeEvents: businessProcedure
    .meta({ openapi: { method: "GET", path: `${path}/events`, tags, summary: "Stripe's deliveries and what became of each, newest first", protect: true } })
    .input(listStripeEventsInput)
    .output(stripeEventListOutput)
    .query(({ ctx, input }) => listStripeEvents(ctx.businessId, input)),
});
