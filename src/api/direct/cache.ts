/**
 * The direct path's answers kept for repeated reads: the bytes of a 200 by
 * everything the answer depends on (the key, lane.ts) and the live snapshot
 * it was made from (the market's publication count), least recently used out.
 */

/** Cached answers: at most this many, and this many bytes. */
export const ANSWER_CACHE_ENTRIES = 4_096
export const ANSWER_CACHE_BYTES = 64 * 1_048_576

export interface Entry {
  readonly publication: number
  readonly body: Uint8Array
}

/** Answers by key; an entry of an older publication is never served, and the first of a new one empties the cache. */
export const makeResponseCache = (maxEntries = ANSWER_CACHE_ENTRIES, maxBytes = ANSWER_CACHE_BYTES) => {
  const entries = new Map<string, Entry>()
  let bytes = 0
  let publication = -1
  const drop = (key: string, entry: Entry) => {
    entries.delete(key)
    bytes -= entry.body.length
  }
  return {
    get: (key: string, current: number): Entry | undefined => {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      if (entry.publication !== current) {
        drop(key, entry)
        return undefined
      }
      // most recently used last
      entries.delete(key)
      entries.set(key, entry)
      return entry
    },
    set: (key: string, entry: Entry) => {
      if (entry.publication !== publication) {
        // a new snapshot: every older answer is stale
        entries.clear()
        bytes = 0
        publication = entry.publication
      }
      const old = entries.get(key)
      if (old !== undefined) drop(key, old)
      entries.set(key, entry)
      bytes += entry.body.length
      for (const [k, e] of entries) {
        if (entries.size <= maxEntries && bytes <= maxBytes) break
        drop(k, e)
      }
    },
    size: () => entries.size,
    bytes: () => bytes
  }
}
