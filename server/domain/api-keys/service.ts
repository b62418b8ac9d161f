// API key lifecycle: create, rotate (same apiKeyId, new secret, optional grace for the old one),
// revoke, and the lookup the SDK wrapper runs on every request. Only a SHA-256 hash and a
// short display prefix are stored; the secret is returned once.
import { lockBusiness } from "../../db/business-lock";
import { db, rawRows } from "../../db/client";
import { coalescer } from "../../db/coalesce";
import { AppError, notFound } from "../../shared/errors";
import { randomBase62, sha256Hex } from "../../shared/ids";
import { API_KEY_SCOPES, PUBLISHABLE_SCOPES, type ApiKeyKind, type ApiKeyOutput, type ApiKeyScope } from "./schemas";
import { type Environment } from "../../shared/environment";

const SECRET_CHARS = 43; // 43 base62 chars ≈ 256 bits of randomness (≥ 32 bytes)
const KEY_RE = /^rk_(pub_)?(test|live)_[0-9A-Za-z]{43}$/;

/** rk_test_… / rk_live_… (secret), rk_pub_test_… / rk_pub_live_… (publishable). */
function generateSecret(environment: Environment, kind: ApiKeyKind = "SECRET") {
  const head = `rk_${kind === "PUBLISHABLE" ? "pub_" : ""}${environment.toLowerCase()}_`;
  const secret = `${head}${randomBase62(SECRET_CHARS)}`;
  return { secret, hash: sha256Hex(secret), prefix: secret.slice(0, head.length + 6) };
}

type Row = NonNullable<Awaited<ReturnType<typeof db.apiKey.findUnique>>>;
const iso = (d: Date | null) => (d ? d.toISOString() : null);

function toApiKeyOutput(k: Row): ApiKeyOutput {
  const graceActive = k.previousExpiresAt && k.previousExpiresAt > new Date() ? k.previousExpiresAt : null;
  return {
    apiKeyId: k.id,
    name: k.name,
    environment: k.environment,
    kind: k.kind,
    scopes: k.scopes as ApiKeyScope[],
    prefix: k.prefix,
    allowedOrigins: k.allowedOrigins,
    status: k.status,
    createdAt: k.createdAt.toISOString(),
    updatedAt: k.updatedAt.toISOString(),
    lastUsedAt: iso(k.lastUsedAt),
    rotatedAt: iso(k.rotatedAt),
    revokedAt: iso(k.revokedAt),
    previousSecretExpiresAt: iso(graceActive),
  };
}

function warningsFor(k: Row): string[] {
  return k.kind === "SECRET" && k.environment === "LIVE" && k.allowedOrigins.length === 0
    ? ["This LIVE secret key has no allowedOrigins: keep it on servers only. For a browser, create a PUBLISHABLE key restricted to your origins."]
    : [];
}

/**
 * Keys a business may have that are not revoked. Each key has its own rate limit: a cap keeps one
 * business from multiplying its share of the service by creating keys, and keeps the list whole.
 */
export const MAX_ACTIVE_KEYS = 100;
/** Keys listed at most: every key that is not revoked (at most MAX_ACTIVE_KEYS), then the newest revoked ones. */
const LISTED_KEYS = 500;

export async function createApiKey(
  businessId: string,
  input: { environment: Environment; kind?: ApiKeyKind; name?: string; allowedOrigins?: string[]; scopes?: ApiKeyScope[] },
) {
  const kind = input.kind ?? "SECRET";
  if (kind === "PUBLISHABLE" && !input.allowedOrigins?.length) {
    throw new AppError("VALIDATION_ERROR", "A publishable key requires allowedOrigins", [{ path: "allowedOrigins", message: "required for a publishable key" }]);
  }
  const scopes = kind === "PUBLISHABLE" ? [...PUBLISHABLE_SCOPES] : API_KEY_SCOPES.filter((s) => (input.scopes ?? API_KEY_SCOPES).includes(s));
  const { secret, hash, prefix } = generateSecret(input.environment, kind);
  const row = await db.$transaction(async (tx) => {
    // One creation at a time per business, so that concurrent creations cannot pass the cap together.
    await lockBusiness(tx, businessId);
    const active = await tx.apiKey.count({ where: { businessId, status: { not: "REVOKED" } } });
    if (active >= MAX_ACTIVE_KEYS) throw new AppError("UNPROCESSABLE", `A business can have at most ${MAX_ACTIVE_KEYS} API keys that are not revoked; revoke one first`);
    return tx.apiKey.create({
      data: {
        businessId,
        kind,
        scopes,
        environment: input.environment,
        name: input.name ?? null,
        allowedOrigins: [...new Set(input.allowedOrigins ?? [])],
        keyHash: hash,
        prefix,
      },
    });
  });
  return { ...toApiKeyOutput(row), secret, warnings: warningsFor(row) };
}

export async function listApiKeys(businessId: string): Promise<ApiKeyOutput[]> {
  const [active, revoked] = await Promise.all([
    db.apiKey.findMany({ where: { businessId, status: { not: "REVOKED" } }, orderBy: { createdAt: "desc" } }),
    db.apiKey.findMany({ where: { businessId, status: "REVOKED" }, orderBy: { createdAt: "desc" }, take: LISTED_KEYS }),
  ]);
  return [...active, ...revoked.slice(0, Math.max(0, LISTED_KEYS - active.length))].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime()).map(toApiKeyOutput);
}

/** The key of this business, or 404 (never another business's data). */
export async function getOwnedApiKey(businessId: string, apiKeyId: string) {
  const row = await db.apiKey.findFirst({ where: { id: apiKeyId, businessId } });
  if (!row) throw notFound("API key");
  return row;
}

export async function rotateApiKey(businessId: string, apiKeyId: string, expiresInSeconds: number) {
  const key = await getOwnedApiKey(businessId, apiKeyId);
  if (key.status === "REVOKED") throw new AppError("UNPROCESSABLE", "A revoked key cannot be rotated");
  const { secret, hash, prefix } = generateSecret(key.environment, key.kind);
  const now = new Date();
  // Conditional on the secret read above and the key still active: of two rotations at once, the
  // second would otherwise end the first's new secret at once (no grace), and a rotation racing a
  // revocation would hand out a secret of a revoked key.
  const { count } = await db.apiKey.updateMany({
    where: { id: key.id, keyHash: key.keyHash, status: { not: "REVOKED" } },
    data: {
      keyHash: hash,
      prefix,
      rotatedAt: now,
      previousKeyHash: expiresInSeconds > 0 ? key.keyHash : null,
      previousExpiresAt: expiresInSeconds > 0 ? new Date(now.getTime() + expiresInSeconds * 1000) : null,
    },
  });
  if (count === 0) throw new AppError("CONFLICT", "The key was rotated or revoked meanwhile: reload it and try again");
  const row = await db.apiKey.findUniqueOrThrow({ where: { id: key.id } });
  return { ...toApiKeyOutput(row), secret, warnings: warningsFor(row) };
}

export async function revokeApiKey(businessId: string, apiKeyId: string): Promise<ApiKeyOutput> {
  const key = await getOwnedApiKey(businessId, apiKeyId);
  if (key.status === "REVOKED") return toApiKeyOutput(key);
  const row = await db.apiKey.update({
    where: { id: key.id },
    data: { status: "REVOKED", revokedAt: new Date(), previousKeyHash: null, previousExpiresAt: null },
  });
  return toApiKeyOutput(row);
}

export interface AuthenticatedKey {
  apiKeyId: string;
  businessId: string;
  environment: Environment;
  kind: ApiKeyKind;
  scopes: ApiKeyScope[];
  allowedOrigins: string[];
}

/**
 * The SDK credential check: one indexed query on the hash (current or, within its grace
 * period, previous secret) with every condition in SQL. Unknown, malformed, expired and
 * revoked keys all give null. Expiry is compared in UTC (the columns hold UTC wall-clock time)
 * whatever the session's TimeZone. No cache: a revocation takes effect on the very next request on
 * every instance. Raw SQL because this runs on every SDK request and the ORM's query
 * planning was its largest CPU cost (see bench/RESULTS.md).
 */
export async function authenticateApiKey(secret: string): Promise<AuthenticatedKey | null> {
  if (!KEY_RE.test(secret)) return null;
  const k = await lookupKeyHash(sha256Hex(secret));
  if (!k) return null;
  // The prefix names the kind; a secret that claims the other kind is not this key.
  if (secret.startsWith("rk_pub_") !== (k.kind === "PUBLISHABLE")) return null;
  return { apiKeyId: k.id, businessId: k.businessId, environment: k.environment, kind: k.kind, scopes: (k.scopes ?? []) as ApiKeyScope[], allowedOrigins: k.allowedOrigins ?? [] };
}

type KeyRow = { hash: string; id: string; businessId: string; environment: Environment; kind: ApiKeyKind; scopes: string[]; allowedOrigins: string[] };

// Every SDK request runs this lookup: concurrent requests share one statement (db/coalesce.ts;
// it starts after each of them arrived, so a revocation still takes effect on the very next
// request), straight to the pool on PostgreSQL (rawRows).
const lookupKeyHash = coalescer<string, KeyRow | null>(
  async (hashes) => {
    const rows = await rawRows<KeyRow>(
      `SELECT h.hash, k.*
         FROM unnest($1::text[]) AS h(hash)
         CROSS JOIN LATERAL (
           SELECT "id", "businessId", "environment"::text AS "environment", "kind"::text AS "kind", "scopes"::text[] AS "scopes", "allowedOrigins"::text[] AS "allowedOrigins"
             FROM "ApiKey"
            WHERE "status" = 'ACTIVE'
              AND ("expiresAt" IS NULL OR "expiresAt" > (now() AT TIME ZONE 'UTC'))
              AND ("keyHash" = h.hash OR ("previousKeyHash" = h.hash AND "previousExpiresAt" > (now() AT TIME ZONE 'UTC')))
            LIMIT 1) k`,
      [...new Set(hashes)],
    );
    const byHash = new Map(rows.map((r) => [r.hash, r]));
    return hashes.map((h) => byHash.get(h) ?? null);
  },
  { maxInFlight: 2, maxWeight: 500 },
);
