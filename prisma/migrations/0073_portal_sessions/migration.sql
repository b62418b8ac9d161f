-- The referrer's portal: a session is a short-lived token for one participant of one business and
-- environment, created by a secret API key (POST /sdk/participants/portal-sessions). Only the
-- token's SHA-256 is stored. A session ends when it expires, is revoked, or its key is revoked
-- (the lookup joins the key). The composite key names a participant of the session's own
-- business and environment, so a session can never point across tenants.
CREATE TABLE "PortalSession" (
    "id" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "participantId" TEXT NOT NULL,
    "apiKeyId" TEXT NOT NULL,
    "returnUrl" TEXT,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "revokedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PortalSession_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "PortalSession_expiry_check" CHECK ("expiresAt" > "createdAt" AND "expiresAt" <= "createdAt" + interval '86400 seconds')
);
CREATE UNIQUE INDEX "PortalSession_tokenHash_key" ON "PortalSession" ("tokenHash");
CREATE INDEX "PortalSession_participantId_idx" ON "PortalSession" ("participantId");
CREATE INDEX "PortalSession_apiKeyId_idx" ON "PortalSession" ("apiKeyId");
ALTER TABLE "PortalSession" ADD CONSTRAINT "PortalSession_participant_tenant_fkey" FOREIGN KEY ("participantId", "businessId", "environment")
  REFERENCES "Participant" ("id", "businessId", "environment") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "PortalSession" ADD CONSTRAINT "PortalSession_apiKeyId_fkey" FOREIGN KEY ("apiKeyId") REFERENCES "ApiKey" ("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Sign-In with Ethereum challenges of the portal's wallet step: one row per nonce, used once.
CREATE TABLE "WalletChallenge" (
    "nonce" TEXT NOT NULL,
    "participantId" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "chainId" INTEGER NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WalletChallenge_pkey" PRIMARY KEY ("nonce")
);
CREATE INDEX "WalletChallenge_participantId_idx" ON "WalletChallenge" ("participantId");
ALTER TABLE "WalletChallenge" ADD CONSTRAINT "WalletChallenge_participantId_fkey" FOREIGN KEY ("participantId") REFERENCES "Participant" ("id") ON DELETE CASCADE ON UPDATE CASCADE;
