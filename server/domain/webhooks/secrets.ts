// Webhook signing secrets and Standard Webhooks signatures.
//
// Custody: a signing secret must be usable by the service (it signs every delivery), so unlike
// API keys it cannot be stored as a one-way hash. It is stored encrypted with AES-256-GCM under
// a key derived (HKDF-SHA256) from WEBHOOK_SECRET_KEY (falling back to BETTER_AUTH_SECRET), so a
// database dump alone does not reveal it; it is shown to the business once, on create/rotate.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";
import { env } from "../../shared/env";
import { ttlCache } from "../../shared/ttl-cache";

const PREFIX = "whsec_";

/** `whsec_` + base64 of 32 random bytes (the Standard Webhooks secret format). */
export function generateWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString("base64");
}

export const secretPrefixOf = (secret: string) => secret.slice(0, PREFIX.length + 6);

function keyBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, "base64");
}

// The derived key, and the secrets decrypted under it: every delivery signs with its endpoint's
// secret, so a delivery reads it from here instead of deciphering it again (at most 1,000, the
// least recently used leaving first; a new key starts an empty cache).
let cachedKey: { source: string; key: Buffer; plain: ReturnType<typeof ttlCache<string>> } | undefined;
function keyState() {
  const source = env.webhookSecretKey;
  if (cachedKey?.source !== source) cachedKey = { source, key: Buffer.from(hkdfSync("sha256", source, "rts-webhooks", "webhook-signing-secret/v1", 32)), plain: ttlCache<string>({ max: 1000 }) };
  return cachedKey;
}
const encryptionKey = () => keyState().key;

/** "v1.<iv>.<tag>.<ciphertext>" (base64url parts). */
export function encryptSecret(secret: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", encryptionKey(), iv);
  const ct = Buffer.concat([c.update(secret, "utf8"), c.final()]);
  return ["v1", iv.toString("base64url"), c.getAuthTag().toString("base64url"), ct.toString("base64url")].join(".");
}

export function decryptSecret(stored: string): string {
  const k = keyState();
  const known = k.plain.get(stored);
  if (known !== undefined) return known;
  const [v, iv, tag, ct] = stored.split(".");
  if (v !== "v1" || !iv || !tag || !ct) throw new Error("Unreadable webhook secret");
  const d = createDecipheriv("aes-256-gcm", k.key, Buffer.from(iv, "base64url"));
  d.setAuthTag(Buffer.from(tag, "base64url"));
  const plain = Buffer.concat([d.update(Buffer.from(ct, "base64url")), d.final()]).toString("utf8");
  k.plain.set(stored, plain);
  return plain;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` with the secret's decoded bytes as key. */
function signatureFor(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac("sha256", keyBytes(secret)).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/** The webhook-signature header: one signature per active secret, space-separated. */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets.map((s) => signatureFor(s, id, timestamp, body)).join(" ");
}
