/**
 * The in-process cache of authenticated API keys, keyed by the key's SHA-256
 * hash (never the key itself). Only keys that authenticated are cached — an
 * unknown key is looked up every time, so guessing cannot fill it.
 *
 * Each entry carries the `stamp` of the changes to keys and accounts it was
 * read under (see authChanges.ts); a lookup under any other stamp misses, so
 * an answer read before a change is never served after it — also when the
 * read raced the change. Entries also expire after `maxAgeMs` (a safety net
 * for changes made outside the service, e.g. with psql), and the cache holds
 * at most `maxEntries` (the oldest leave first).
 */
import type { AuthenticatedKey } from "./Accounts.js"

export interface KeyCache {
  readonly get: (hashHex: string, stamp: string, nowMs: number) => AuthenticatedKey | undefined
  readonly set: (hashHex: string, key: AuthenticatedKey, stamp: string, nowMs: number) => void
  readonly clear: () => void
  readonly size: () => number
}

export const makeKeyCache = (options: { readonly maxEntries: number; readonly maxAgeMs: number }): KeyCache => {
  const entries = new Map<
    string,
    { readonly key: AuthenticatedKey; readonly stamp: string; readonly storedAt: number }
  >()
  return {
    get: (hashHex, stamp, nowMs) => {
      const entry = entries.get(hashHex)
      if (entry === undefined) return undefined
      if (entry.stamp !== stamp || nowMs - entry.storedAt >= options.maxAgeMs || nowMs < entry.storedAt) {
        entries.delete(hashHex)
        return undefined
      }
      return entry.key
    },
    set: (hashHex, key, stamp, nowMs) => {
      entries.delete(hashHex)
      if (entries.size >= options.maxEntries) {
        const oldest = entries.keys().next()
        if (!oldest.done) entries.delete(oldest.value)
      }
      entries.set(hashHex, { key, stamp, storedAt: nowMs })
    },
    clear: () => entries.clear(),
    size: () => entries.size
  }
}
