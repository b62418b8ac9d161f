import { getDomain } from "tldts";
import { z } from "zod";
import { strictNumber } from "../../shared/strict-types";

import { environment } from "../../shared/environment";

const ORIGIN_RE = /^https?:\/\/(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/;

const portOf = (origin: string) => /:(\d{1,5})$/.exec(origin)?.[1];
const DEFAULT_PORT: Record<string, string> = { http: "80", https: "443" };

/**
 * "https://Shop.example.com:443/" → "https://shop.example.com" (a default port is dropped, as
 * browsers drop it from Origin); ports 1–65535 only; wildcard only as a leading "*." label.
 */
const originSchema = z
  .string()
  .trim()
  .max(253)
  .transform((s) => s.toLowerCase().replace(/\/+$/, ""))
  .refine((s) => ORIGIN_RE.test(s), "Must be an origin such as https://shop.example.com or https://*.example.com (no path)")
  .refine((s) => portOf(s) === undefined || (Number(portOf(s)) >= 1 && Number(portOf(s)) <= 65_535), "The port must be between 1 and 65535")
  .transform((s) => {
    const port = portOf(s);
    if (port === undefined) return s;
    const bare = s.slice(0, -port.length - 1);
    return DEFAULT_PORT[s.split(":")[0]] === String(Number(port)) ? bare : `${bare}:${Number(port)}`;
  })
  .refine((s) => !s.includes("*.") || wildcardUnderRegistrableDomain(s), "A wildcard must sit under a registrable domain (https://*.example.com, not https://*.com or https://*.github.io)");

/**
 * "https://*.example.com" is fine; "https://*.com", "https://*.co.uk" or "https://*.github.io"
 * would match every site under a public suffix (Public Suffix List, private section included).
 */
export function wildcardUnderRegistrableDomain(origin: string): boolean {
  const host = /^https?:\/\/\*\.([^/:]+)/.exec(origin)?.[1];
  if (!host) return false;
  const domain = getDomain(host, { allowPrivateDomains: true });
  return !!domain && (host === domain || host.endsWith(`.${domain}`));
}

/** SECRET: for servers (all routes its scopes allow). PUBLISHABLE: safe in a browser bundle. */
const apiKeyKind = z.enum(["SECRET", "PUBLISHABLE"]);
export type ApiKeyKind = z.infer<typeof apiKeyKind>;

export const API_KEY_SCOPES = ["track", "referrals:write", "referrals:read", "participants:write", "jobs:read", "rewards:write"] as const;
const apiKeyScope = z.enum(API_KEY_SCOPES);
export type ApiKeyScope = z.infer<typeof apiKeyScope>;
/** What a publishable key can do: POST /track, POST /track/batch, POST /sdk/referrals/apply. */
export const PUBLISHABLE_SCOPES: readonly ApiKeyScope[] = ["track", "referrals:write"];

export const createApiKeyInput = z
  .strictObject({
    environment,
    kind: apiKeyKind.default("SECRET"),
    name: z.string().trim().min(1).max(100).optional(),
    allowedOrigins: z.array(originSchema).max(50).optional(),
    /** Secret keys only; default: every scope. */
    scopes: z
      .array(apiKeyScope)
      .min(1)
      .max(API_KEY_SCOPES.length)
      .refine((s) => new Set(s).size === s.length, "Scopes must not repeat")
      .optional(),
  })
  .superRefine((v, ctx) => {
    if (v.kind === "PUBLISHABLE" && (!v.allowedOrigins || v.allowedOrigins.length === 0)) {
      ctx.addIssue({ code: "custom", path: ["allowedOrigins"], message: "A publishable key requires allowedOrigins (the sites whose pages may use it)" });
    }
    if (v.kind === "PUBLISHABLE" && v.scopes !== undefined) {
      ctx.addIssue({ code: "custom", path: ["scopes"], message: "A publishable key has fixed scopes (track, referrals:write); scopes are for secret keys" });
    }
  });

export const apiKeyIdInput = z.strictObject({ apiKeyId: z.string().min(1).max(64) });

export const rotateApiKeyInput = z.strictObject({
  apiKeyId: z.string().min(1).max(64),
  /** Grace period during which the old secret keeps working: 0 … 7 days. */
  expiresInSeconds: strictNumber(z.number().int().min(0).max(7 * 24 * 3600)).default(0),
});

export const apiKeyOutput = z.object({
  apiKeyId: z.string(),
  name: z.string().nullable(),
  environment,
  kind: apiKeyKind,
  scopes: z.array(apiKeyScope),
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
