import { z } from "zod";

export const environment = z.enum(["TEST", "LIVE"]);
export type Environment = z.infer<typeof environment>;

const ORIGIN_RE = /^https?:\/\/(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/;

/** "https://Shop.example.com/" → "https://shop.example.com"; wildcard only as a leading "*." label. */
export const originSchema = z
  .string()
  .trim()
  .max(253)
  .transform((s) => s.toLowerCase().replace(/\/+$/, ""))
  .refine((s) => ORIGIN_RE.test(s), "Must be an origin such as https://shop.example.com or https://*.example.com (no path)");

export const createApiKeyInput = z.strictObject({
  environment,
  name: z.string().trim().min(1).max(100).optional(),
  allowedOrigins: z.array(originSchema).max(50).optional(),
});

export const apiKeyIdInput = z.strictObject({ apiKeyId: z.string().min(1).max(64) });

export const rotateApiKeyInput = z.strictObject({
  apiKeyId: z.string().min(1).max(64),
  /** Grace period during which the old secret keeps working: 0 … 7 days. */
  expiresInSeconds: z.number().int().min(0).max(7 * 24 * 3600).default(0),
});

export const apiKeyOutput = z.object({
  apiKeyId: z.string(),
  name: z.string().nullable(),
  environment,
  prefix: z.string(),
  allowedOrigins: z.array(z.string()),
  status: z.enum(["ACTIVE", "REVOKED"]),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastUsedAt: z.string().nullable(),
  rotatedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  previousSecretExpiresAt: z.string().nullable(),
});
export type ApiKeyOutput = z.infer<typeof apiKeyOutput>;

export const apiKeyWithSecretOutput = apiKeyOutput.extend({
  /** The full key. Shown this once; only its SHA-256 hash is stored. */
  secret: z.string(),
  warnings: z.array(z.string()),
});
