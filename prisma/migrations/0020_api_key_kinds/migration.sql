-- Publishable (browser) and secret (server) API keys, and scopes. A publishable key must be
-- restricted to origins and may only track events and apply referrals; the database holds
-- both rules, and every scope is one of the known names.
CREATE TYPE "ApiKeyKind" AS ENUM ('SECRET', 'PUBLISHABLE');

ALTER TABLE "ApiKey" ADD COLUMN "kind" "ApiKeyKind" NOT NULL DEFAULT 'SECRET';
ALTER TABLE "ApiKey" ADD COLUMN "scopes" TEXT[] NOT NULL DEFAULT ARRAY['track', 'referrals:write', 'referrals:read', 'participants:write', 'jobs:read']::TEXT[];

ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_scopes_known"
  CHECK (cardinality("scopes") > 0 AND "scopes" <@ ARRAY['track', 'referrals:write', 'referrals:read', 'participants:write', 'jobs:read']::TEXT[]);
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_publishable_rules"
  CHECK ("kind" <> 'PUBLISHABLE' OR (cardinality("allowedOrigins") > 0 AND "scopes" <@ ARRAY['track', 'referrals:write']::TEXT[]));
