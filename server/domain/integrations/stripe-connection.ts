// Connecting Stripe, per business and environment: PUT (create or change; the webhook URL keeps
// its token across changes, so the URL pasted into Stripe stays valid), GET, DELETE (its URL
// answers 404 from then on) and the log of deliveries. The token in the URL is random (192 bits),
// looked up by its SHA-256 and kept encrypted only to show the URL again; Stripe's signing
// secret is encrypted at rest as webhook signing secrets are and never returned.
import { randomBytes } from "node:crypto";
import { db } from "../../db/client";
import type { StripeEvent, StripeIntegration } from "../../db/generated";
import { env } from "../../shared/env";
import type { Environment } from "../../shared/environment";
import { notFound } from "../../shared/errors";
import { sha256Hex } from "../../shared/ids";
import { checkCursor, pageArgs, toPage } from "../../shared/list-page";
import { decryptSecret, encryptSecret } from "../webhooks/secrets";
import type { ConnectStripeInput, ListStripeEventsInput, StripeIntegrationOutput } from "./stripe-schemas";

/** The path of the webhook receiver (app/integrations/stripe/[token]/route.ts). */
const STRIPE_WEBHOOK_PATH = "/integrations/stripe/";

export const stripeTokenHash = (token: string) => sha256Hex(`stripe-webhook:${token}`);

function toStripeIntegrationOutput(i: StripeIntegration): StripeIntegrationOutput {
  return {
    environment: i.environment,
    enabled: i.enabled,
    webhookUrl: `${env.appUrl}${STRIPE_WEBHOOK_PATH}${decryptSecret(i.tokenCiphertext)}`,
    purchaseEventName: i.purchaseEventName,
    secretLast4: i.secretLast4,
    lastEventAt: i.lastEventAt ? i.lastEventAt.toISOString() : null,
    createdAt: i.createdAt.toISOString(),
    updatedAt: i.updatedAt.toISOString(),
  };
}

const where = (businessId: string, environment: Environment) => ({ businessId_environment: { businessId, environment } });

/** PUT /business/integrations/stripe: connects Stripe for this environment, or changes its connection. */
export async function connectStripe(businessId: string, input: ConnectStripeInput): Promise<StripeIntegrationOutput> {
  const secret = { secretCiphertext: encryptSecret(input.webhookSecret), secretLast4: input.webhookSecret.slice(-4) };
  const token = randomBytes(24).toString("base64url");
  const row = await db.stripeIntegration.upsert({
    where: where(businessId, input.environment),
    create: {
      businessId,
      environment: input.environment,
      tokenHash: stripeTokenHash(token),
      tokenCiphertext: encryptSecret(token),
      ...secret,
      purchaseEventName: input.purchaseEventName ?? "purchase",
      enabled: input.enabled ?? true,
    },
    update: { ...secret, ...(input.purchaseEventName !== undefined ? { purchaseEventName: input.purchaseEventName } : {}), ...(input.enabled !== undefined ? { enabled: input.enabled } : {}) },
  });
  return toStripeIntegrationOutput(row);
}

async function ownedIntegration(businessId: string, environment: Environment): Promise<StripeIntegration> {
  const row = await db.stripeIntegration.findUnique({ where: where(businessId, environment) });
  if (!row) throw notFound("Stripe connection");
  return row;
}

export async function getStripeIntegration(businessId: string, environment: Environment): Promise<StripeIntegrationOutput> {
  return toStripeIntegrationOutput(await ownedIntegration(businessId, environment));
}

/** DELETE: the connection and its delivery log; the invoices it earned stay recorded (never earned twice). */
export async function disconnectStripe(businessId: string, environment: Environment): Promise<StripeIntegrationOutput> {
  const row = await ownedIntegration(businessId, environment);
  await db.stripeIntegration.deleteMany({ where: { id: row.id } });
  return toStripeIntegrationOutput(row);
}

const toEventOutput = (e: StripeEvent) => ({
  stripeEventId: e.stripeEventId,
  type: e.type,
  outcome: e.outcome,
  reason: e.reason,
  eventId: e.eventId,
  referralId: e.referralId,
  receivedAt: e.receivedAt.toISOString(),
});

/** GET /business/integrations/stripe/events: every delivery and what became of it, newest first. */
export async function listStripeEvents(businessId: string, q: ListStripeEventsInput) {
  const row = await ownedIntegration(businessId, q.environment);
  await checkCursor(q.cursor, (id) => db.stripeEvent.findFirst({ where: { id, integrationId: row.id }, select: { id: true } }));
  const rows = await db.stripeEvent.findMany({ where: { integrationId: row.id }, ...pageArgs(q.limit, q.cursor), orderBy: [{ receivedAt: "desc" }, { id: "desc" }] });
  return toPage(rows, q.limit, toEventOutput);
}
