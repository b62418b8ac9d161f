-- The retention sweep deletes ended portal sessions and expired wallet challenges by "expiresAt"
-- (domain/portal/retention.ts): bounded deletes read them through these indexes.
CREATE INDEX "PortalSession_expiresAt_idx" ON "PortalSession" ("expiresAt");
CREATE INDEX "WalletChallenge_expiresAt_idx" ON "WalletChallenge" ("expiresAt");
