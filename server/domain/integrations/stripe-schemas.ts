// The Stripe connection's business routes (PUT/GET/DELETE /business/integrations/stripe and
// GET /business/integrations/stripe/events): inputs and answers. docs/integrations.md.
import { z } from "zod";
import { environment } from "../../shared/environment";
import { strictBoolean } from "../../shared/strict-types";
import { listCursor, listLimit } from "../../shared/list-page";
import { eventNameSchema } from "../../shared/event-name";

export const connectStripeInput = z.strictObject({
  environment,
  /** Stripe's signing secret of the endpoint (Developers → Webhooks → the endpoint → Signing secret). */
  webhookSecret: z.string().trim().min(10).max(200).regex(/^whsec_[A-Za-z0-9+/=_-]+$/, "Stripe's signing secret, starting with whsec_"),
  purchaseEventName: eventNameSchema.optional(),
  enabled: strictBoolean.optional(),
});
export type ConnectStripeInput = z.infer<typeof connectStripeInput>;

export const stripeEnvironmentInput = z.strictObject({ environment });

export const stripeIntegrationOutput = z.object({
  environment,
  enabled: z.boolean(),
  /** The absolute URL to paste into Stripe's dashboard: it holds this connection's unguessable token. */
  webhookUrl: z.string(),
  purchaseEventName: z.string(),
  /** The signing secret's last four characters (the secret itself is never returned). */
  secretLast4: z.string(),
  lastEventAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type StripeIntegrationOutput = z.infer<typeof stripeIntegrationOutput>;

export const listStripeEventsInput = z.strictObject({ environment, limit: listLimit, cursor: listCursor });
export type ListStripeEventsInput = z.infer<typeof listStripeEventsInput>;

const stripeOutcome = z.enum(["PROCESSED", "IGNORED", "FAILED"]);

const stripeEventOutput = z.object({
  stripeEventId: z.string(),
  type: z.string(),
  outcome: stripeOutcome,
  reason: z.string().nullable(),
  /** The tracked event it recorded or reversed, if any. */
  eventId: z.string().nullable(),
  referralId: z.string().nullable(),
  receivedAt: z.string(),
});
export const stripeEventListOutput = z.object({ data: z.array(stripeEventOutput), nextCursor: z.string().nullable() });
