-- Signed webhooks (Standard Webhooks): endpoints per business and environment, an outbox of
-- messages written in the same transaction as the change they report, and one row per delivery
-- attempt. A WEBHOOK_DELIVER job delivers each message; WEBHOOK_DISABLED alerts an endpoint that
-- kept failing for days and was switched off.
ALTER TYPE "JobType" ADD VALUE IF NOT EXISTS 'WEBHOOK_DELIVER';
ALTER TYPE "AlertKind" ADD VALUE IF NOT EXISTS 'WEBHOOK_DISABLED';

CREATE TYPE "WebhookMessageStatus" AS ENUM ('PENDING', 'DELIVERED', 'FAILED');

CREATE TABLE "WebhookEndpoint" (
    "id" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "url" TEXT NOT NULL,
    "description" TEXT,
    -- Event types this endpoint receives; empty = every type.
    "events" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    -- The signing secret, encrypted (AES-256-GCM, key derived from WEBHOOK_SECRET_KEY); we must
    -- be able to sign with it, so it cannot be a one-way hash.
    "secretCiphertext" TEXT NOT NULL,
    "secretPrefix" TEXT NOT NULL,
    -- After a rotation the previous secret signs beside the new one until previousSecretExpiresAt.
    "previousSecretCiphertext" TEXT,
    "previousSecretExpiresAt" TIMESTAMP(3),
    -- First failed attempt since the last success; an endpoint failing for days is disabled.
    "failingSince" TIMESTAMP(3),
    "lastSuccessAt" TIMESTAMP(3),
    "disabledAt" TIMESTAMP(3),
    "disabledReason" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "WebhookEndpoint_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "WebhookEndpoint_previous_secret_pair" CHECK (("previousSecretCiphertext" IS NULL) = ("previousSecretExpiresAt" IS NULL)),
    CONSTRAINT "WebhookEndpoint_live_https" CHECK ("environment" <> 'LIVE' OR "url" LIKE 'https://%'),
    CONSTRAINT "WebhookEndpoint_url_length" CHECK (char_length("url") <= 2048)
);

CREATE TABLE "WebhookMessage" (
    "id" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "eventType" TEXT NOT NULL,
    -- The exact JSON body { type, timestamp, data }: every attempt signs and sends these bytes.
    "body" TEXT NOT NULL,
    "status" "WebhookMessageStatus" NOT NULL DEFAULT 'PENDING',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3),
    "deliveredAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "WebhookMessage_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "WebhookMessage_attempts_nonnegative" CHECK ("attempts" >= 0)
);

CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "statusCode" INTEGER,
    "durationMs" INTEGER NOT NULL,
    "success" BOOLEAN NOT NULL,
    "error" TEXT,
    "responseBody" TEXT,
    "nextRetryAt" TIMESTAMP(3),
    -- Sent by a person (test or retry button) rather than by the schedule.
    "manual" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "WebhookDelivery_attempt_positive" CHECK ("attempt" >= 1)
);

CREATE INDEX "WebhookEndpoint_businessId_environment_enabled_idx" ON "WebhookEndpoint"("businessId", "environment", "enabled");
CREATE INDEX "WebhookEndpoint_businessId_createdAt_idx" ON "WebhookEndpoint"("businessId", "createdAt");
CREATE INDEX "WebhookMessage_endpointId_createdAt_idx" ON "WebhookMessage"("endpointId", "createdAt");
-- One row per attempt number of a message: two executors of one attempt cannot both record it.
CREATE UNIQUE INDEX "WebhookDelivery_messageId_attempt_key" ON "WebhookDelivery"("messageId", "attempt");
CREATE INDEX "WebhookDelivery_endpointId_createdAt_id_idx" ON "WebhookDelivery"("endpointId", "createdAt", "id");

ALTER TABLE "WebhookEndpoint" ADD CONSTRAINT "WebhookEndpoint_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "WebhookMessage" ADD CONSTRAINT "WebhookMessage_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "WebhookEndpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "WebhookMessage" ADD CONSTRAINT "WebhookMessage_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "WebhookMessage"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "WebhookEndpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE;
