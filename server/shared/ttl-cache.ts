// In-process caches whose entries expire: the one way to keep a value for a while (lru-cache).
// Bounded in entries, the least recently used leaves first, and an entry past its time is never
// answered. Each process has its own: what must be seen by every instance belongs in the database.
import { LRUCache } from "lru-cache";

/**
 * A cache of at most `max` entries. With `ttlMs`, every entry lives that long; without it, each
 * `set(key, value, { ttl })` says how long (an entry set without one stays until evicted).
 */
export function ttlCache<V extends NonNullable<unknown>>(opts: { max: number; ttlMs?: number }): LRUCache<string, V> {
  return new LRUCache<string, V>({ max: opts.max, ...(opts.ttlMs !== undefined && { ttl: Math.max(1, opts.ttlMs) }) });
}
