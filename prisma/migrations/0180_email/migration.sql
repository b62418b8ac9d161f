-- Email (issue 51): the outbox and log of every message, the business's and each member's
-- notification choices, referrers' unsubscribes, and portal links made without an API key
-- (sign-in by email, the dashboard's portal link), opened once.
ALTER TYPE "JobType" ADD VALUE IF NOT EXISTS 'EMAIL_SEND';

CREATE TYPE "EmailKind" AS ENUM ('REWARD_EARNED', 'PAYOUT_SENT', 'PAYOUT_FAILED', 'WALLET_MISSING', 'REWARD_REVERSED', 'PORTAL_SIGN_IN', 'LOW_POOL', 'REVIEW_QUEUE', 'PAYOUT_RUN_FAILED', 'WEBHOOK_DISABLED', 'STRIPE_FAILED');
CREATE TYPE "EmailStatus" AS ENUM ('QUEUED', 'SENT', 'FAILED', 'SUPPRESSED', 'NOT_CONFIGURED');

CREATE TABLE "Email" (
  "id" TEXT NOT NULL,
  "businessId" TEXT NOT NULL,
  "environment" "Environment" NOT NULL,
  "kind" "EmailKind" NOT NULL,
  "participantId" TEXT,
  "memberId" TEXT,
  "to" TEXT NOT NULL,
  "subject" TEXT NOT NULL DEFAULT '',
  "text" TEXT,
  "html" TEXT,
  "status" "EmailStatus" NOT NULL DEFAULT 'QUEUED',
  "error" TEXT,
  "attempts" INTEGER NOT NULL DEFAULT 0,
  "data" JSONB NOT NULL DEFAULT '{}',
  "sendAt" TIMESTAMP(3) NOT NULL,
  "gatheredAt" TIMESTAMP(3),
  "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "sentAt" TIMESTAMP(3),
  "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "Email_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "Email_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "Email_businessId_environment_createdAt_idx" ON "Email" ("businessId", "environment", "createdAt");
CREATE INDEX "Email_participantId_kind_createdAt_idx" ON "Email" ("participantId", "kind", "createdAt");
CREATE INDEX "Email_to_kind_createdAt_idx" ON "Email" (lower("to"), "kind", "createdAt");
-- One digest of earned rewards gathering per participant: later rewards join it until it is sent.
CREATE UNIQUE INDEX "Email_reward_digest_open" ON "Email" ("participantId") WHERE "kind" = 'REWARD_EARNED' AND "gatheredAt" IS NULL;

CREATE TABLE "NotificationSettings" (
  "businessId" TEXT NOT NULL,
  "environment" "Environment" NOT NULL,
  "referrerOff" TEXT[] NOT NULL DEFAULT '{}',
  "fromName" TEXT,
  "replyTo" TEXT,
  "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "NotificationSettings_pkey" PRIMARY KEY ("businessId", "environment"),
  CONSTRAINT "NotificationSettings_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

ALTER TABLE "Member" ADD COLUMN "notificationsOff" TEXT[] NOT NULL DEFAULT '{}';

CREATE TABLE "EmailOptOut" (
  "participantId" TEXT NOT NULL,
  "kind" "EmailKind" NOT NULL,
  "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "EmailOptOut_pkey" PRIMARY KEY ("participantId", "kind"),
  CONSTRAINT "EmailOptOut_participantId_fkey" FOREIGN KEY ("participantId") REFERENCES "Participant"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

ALTER TABLE "PortalSession" ALTER COLUMN "apiKeyId" DROP NOT NULL;
ALTER TABLE "PortalSession" ADD COLUMN "singleUse" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "PortalSession" ADD COLUMN "openedAt" TIMESTAMP(3);
