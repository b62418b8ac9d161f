-- The Stripe connection (docs/integrations.md): one integration per business and environment,
-- reached by an unguessable token (looked up by its SHA-256; kept encrypted to show the URL again),
-- its signing secret encrypted as
-- webhook secrets are; every delivery recorded once per Stripe event id (the unique key decides
-- between concurrent copies); each paid invoice earns once (one row per invoice, kept when the
-- integration is removed so a reconnected one does not earn it again); and the Stripe customer
-- id on the participant it was linked to.
CREATE TYPE "StripeEventOutcome" AS ENUM ('PROCESSED', 'IGNORED', 'FAILED');

CREATE TABLE "StripeIntegration" (
  "id" TEXT NOT NULL,
  "businessId" TEXT NOT NULL,
  "environment" "Environment" NOT NULL,
  "tokenHash" TEXT NOT NULL,
  "tokenCiphertext" TEXT NOT NULL,
  "secretCiphertext" TEXT NOT NULL,
  "secretLast4" TEXT NOT NULL,
  "purchaseEventName" TEXT NOT NULL DEFAULT 'purchase',
  "enabled" BOOLEAN NOT NULL DEFAULT true,
  "lastEventAt" TIMESTAMP(3),
  "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updatedAt" TIMESTAMP(3) NOT NULL,
  CONSTRAINT "StripeIntegration_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "StripeIntegration_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "StripeIntegration_businessId_environment_key" ON "StripeIntegration"("businessId", "environment");
CREATE UNIQUE INDEX "StripeIntegration_tokenHash_key" ON "StripeIntegration"("tokenHash");

CREATE TABLE "StripeEvent" (
  "id" TEXT NOT NULL,
  "integrationId" TEXT NOT NULL,
  "businessId" TEXT NOT NULL,
  "environment" "Environment" NOT NULL,
  "stripeEventId" TEXT NOT NULL,
  "type" TEXT NOT NULL,
  "outcome" "StripeEventOutcome" NOT NULL,
  "reason" TEXT,
  "eventId" TEXT,
  "referralId" TEXT,
  "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "StripeEvent_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "StripeEvent_integrationId_fkey" FOREIGN KEY ("integrationId") REFERENCES "StripeIntegration"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "StripeEvent_integrationId_stripeEventId_key" ON "StripeEvent"("integrationId", "stripeEventId");
CREATE INDEX "StripeEvent_integrationId_receivedAt_idx" ON "StripeEvent"("integrationId", "receivedAt");

CREATE TABLE "StripeInvoice" (
  "id" TEXT NOT NULL,
  "businessId" TEXT NOT NULL,
  "environment" "Environment" NOT NULL,
  "invoiceId" TEXT NOT NULL,
  "paymentIntentId" TEXT,
  "chargeId" TEXT,
  -- Null from the claim (inserted first) until the invoice's event is written, in one transaction.
  "eventId" TEXT,
  "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "StripeInvoice_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "StripeInvoice_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "StripeInvoice_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "TrackedEvent"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "StripeInvoice_businessId_environment_invoiceId_key" ON "StripeInvoice"("businessId", "environment", "invoiceId");
CREATE INDEX "StripeInvoice_businessId_environment_paymentIntentId_idx" ON "StripeInvoice"("businessId", "environment", "paymentIntentId") WHERE "paymentIntentId" IS NOT NULL;
CREATE INDEX "StripeInvoice_businessId_environment_chargeId_idx" ON "StripeInvoice"("businessId", "environment", "chargeId") WHERE "chargeId" IS NOT NULL;

ALTER TABLE "Participant" ADD COLUMN "stripeCustomerId" TEXT;
CREATE UNIQUE INDEX "Participant_businessId_environment_stripeCustomerId_key" ON "Participant"("businessId", "environment", "stripeCustomerId") WHERE "stripeCustomerId" IS NOT NULL;
