/**
 * Admission on second sight, for caches of answers to requests that may each come once (a `q`
 * with its thresholds moved per request): an entry kept only to be evicted thousands of requests
 * later is old-generation garbage, work for the collector that makes every request dearer. A key
 * is admitted from its second sighting on. Recent keys are remembered by a 32-bit hash per slot;
 * a collision admits a key one request early, which costs nothing but the memory.
 */

/** FNV-1a over the UTF-16 code units */
const textHash = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return h >>> 0
}

/** A function telling whether a key was seen among the recent ones (remembering it now); `slots` a power of two. */
export const makeSeenBefore = (slots = 4096): ((key: string) => boolean) => {
  const seen = new Uint32Array(slots)
  const mask = slots - 1
  return (key) => {
    const h = textHash(key)
    const slot = h & mask
    if (seen[slot] === h) return true
    seen[slot] = h
    return false
  }
}
