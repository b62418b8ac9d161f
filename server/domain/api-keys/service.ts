// API key lifecycle: create, rotate (same apiKeyId, new secret, optional grace for the old one),
// revoke, and the lookup the SDK wrapper runs on every request. Only a SHA-256 hash and a
// short display prefix are stored; the secret is returned once.
import { db } from "../../db/client";
import { AppError, notFound } from "../../shared/errors";
import { randomBase62, sha256Hex } from "../../shared/ids";
import type { ApiKeyOutput, Environment } from "./schemas";

const SECRET_CHARS = 43; // 43 base62 chars ≈ 256 bits of randomness (≥ 32 bytes)
const KEY_RE = /^rk_(test|live)_[0-9A-Za-z]{43}$/;

export function generateSecret(environment: Environment) {
  const secret = `rk_${environment.toLowerCase()}_${randomBase62(SECRET_CHARS)}`;
  return { secret, hash: sha256Hex(secret), prefix: secret.slice(0, 8 + 6) };
}

type Row = NonNullable<Awaited<ReturnType<typeof db.apiKey.findUnique>>>;
const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toApiKeyOutput(k: Row): ApiKeyOutput {
  const graceActive = k.previousExpiresAt && k.previousExpiresAt > new Date() ? k.previousExpiresAt : null;
  return {
    apiKeyId: k.id,
    name: k.name,
    environment: k.environment,
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
  return k.environment === "LIVE" && k.allowedOrigins.length === 0
    ? ["This LIVE key has no allowedOrigins: keep it on servers only. A LIVE key in a client-side bundle needs origin restrictions."]
    : [];
}

export async function createApiKey(businessId: string, input: { environment: Environment; name?: string; allowedOrigins?: string[] }) {
  const { secret, hash, prefix } = generateSecret(input.environment);
  const row = await db.apiKey.create({
    data: {
      businessId,
      environment: input.environment,
      name: input.name ?? null,
      allowedOrigins: [...new Set(input.allowedOrigins ?? [])],
      keyHash: hash,
      prefix,
    },
  });
  return { ...toApiKeyOutput(row), secret, warnings: warningsFor(row) };
}

export async function listApiKeys(businessId: string): Promise<ApiKeyOutput[]> {
  const rows = await db.apiKey.findMany({ where: { businessId }, orderBy: { createdAt: "desc" }, take: 500 });
  return rows.map(toApiKeyOutput);
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
  const { secret, hash, prefix } = generateSecret(key.environment);
  const now = new Date();
  const row = await db.apiKey.update({
    where: { id: key.id },
    data: {
      keyHash: hash,
      prefix,
      rotatedAt: now,
      previousKeyHash: expiresInSeconds > 0 ? key.keyHash : null,
      previousExpiresAt: expiresInSeconds > 0 ? new Date(now.getTime() + expiresInSeconds * 1000) : null,
    },
  });
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
  allowedOrigins: string[];
}

/**
 * The SDK credential check: one indexed query on the hash (current or, within its grace
 * period, previous secret) with every condition in SQL. Unknown, malformed, expired and
 * revoked keys all give null. No cache: a revocation takes effect on the very next request on
 * every instance. Raw SQL because this runs on every SDK request and the ORM's query
 * planning was its largest CPU cost (see bench/RESULTS.md).
 */
export async function authenticateApiKey(secret: string): Promise<AuthenticatedKey | null> {
  if (!KEY_RE.test(secret)) return null;
  const hash = sha256Hex(secret);
  const rows = await db.$queryRaw<Array<{ id: string; businessId: string; environment: Environment; allowedOrigins: string[] }>>`
    SELECT "id", "businessId", "environment"::text AS "environment", "allowedOrigins"
    FROM "ApiKey"
    WHERE "status" = 'ACTIVE'
      AND ("expiresAt" IS NULL OR "expiresAt" > now())
      AND ("keyHash" = ${hash} OR ("previousKeyHash" = ${hash} AND "previousExpiresAt" > now()))
    LIMIT 1`;
  const k = rows[0];
  if (!k) return null;
  return { apiKeyId: k.id, businessId: k.businessId, environment: k.environment, allowedOrigins: k.allowedOrigins ?? [] };
}
