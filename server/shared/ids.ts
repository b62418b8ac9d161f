// Random tokens and hashes used across the service.
import { createHash, randomBytes, randomFillSync } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Base62 string from `bytes` bytes of CSPRNG output (no modulo bias: rejection sampling). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248) out += ALPHABET[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export const sha256Hex = (s: string) => createHash("sha256").update(s).digest("hex");

/** Stable JSON (sorted keys) so that the same body always hashes the same. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
    .join(",")}}`;
}

// CSPRNG bytes drawn from a refilled pool, for row ids and referral codes (not for secrets): one
// system call per 4 KB instead of one per id, which matters when a batch writes thousands of rows.
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolAt = POOL_SIZE;

/** `n` (≤ 64) fresh random bytes, a view valid until the next call. */
export function pooledRandomBytes(n: number): Buffer {
  if (poolAt + n > POOL_SIZE) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += n;
  return pool.subarray(poolAt - n, poolAt);
}

let counter = randomBytes(2).readUInt16BE(0);

/**
 * The one id generator for rows the service writes itself (queued events, jobs, idempotency
 * records): 25 characters in the shape of Prisma's cuid() (same column type and ordering
 * properties), time-ordered, with 64 random bits, so an answer can name its ids before the write.
 */
export function newId(): string {
  counter = (counter + 1) % 1_679_616; // 36^4
  const rand = pooledRandomBytes(8).readBigUInt64BE(0).toString(36).padStart(12, "0").slice(-12);
  return `c${Date.now().toString(36).padStart(8, "0").slice(-8)}${counter.toString(36).padStart(4, "0")}${rand}`;
}
