-- Scope rewards:write: reversing rewards (POST /sdk/rewards/reverse) moves money back, so it is a
-- scope of its own that publishable keys can never hold. Existing secret keys with every scope
-- (the default) keep every scope.
ALTER TABLE "ApiKey" ALTER COLUMN "scopes" SET DEFAULT ARRAY['track', 'referrals:write', 'referrals:read', 'participants:write', 'jobs:read', 'rewards:write']::TEXT[];
ALTER TABLE "ApiKey" DROP CONSTRAINT "ApiKey_scopes_known";
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_scopes_known"
  CHECK (cardinality("scopes") > 0 AND "scopes" <@ ARRAY['track', 'referrals:write', 'referrals:read', 'participants:write', 'jobs:read', 'rewards:write']::TEXT[]);
UPDATE "ApiKey" SET "scopes" = array_append("scopes", 'rewards:write')
  WHERE "kind" = 'SECRET' AND "scopes" @> ARRAY['track', 'referrals:write', 'referrals:read', 'participants:write', 'jobs:read']::TEXT[];
