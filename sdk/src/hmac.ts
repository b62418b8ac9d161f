// SHA-256 and HMAC-SHA256 for webhook verification, from @noble/hashes (audited, synchronous, no
// node:crypto): it runs anywhere the SDK does (Node, Deno, Bun, edge runtimes, browsers).
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";

export { sha256 };

export const hmacSha256 = (key: Uint8Array, data: Uint8Array): Uint8Array => hmac(sha256, key, data);
