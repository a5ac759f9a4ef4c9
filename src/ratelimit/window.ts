/**
 * The rolling-window algorithm shared by both stores (the in-process one here,
 * the Redis one in `redisStore.ts` as a Lua transcription of the same rules).
 *
 * Per key, admissions are grouped in one-second buckets. A bucket holds how
 * many requests it admitted and the time of its latest admission. A bucket
 * counts while its latest admission is inside the window:
 *
 *     counted(bucket, now)  <=>  bucket.last > now - windowMs
 *
 * A request is admitted when the counted total is below the limit; it is then
 * added to the bucket of `floor(now / 1000)` (or to the newest bucket if the
 * clock stepped back), raising that bucket's `last` to `now`. A refused
 * request changes nothing.
 *
 * Guarantee (proof in docs/rate-limits.md): no span of `windowMs`
 * milliseconds, at millisecond resolution and in any alignment, holds more
 * than `limit` admissions; a clock stepping back does not loosen it in real
 * time (admissions still counted keep counting; dropped ones had already left
 * the real window). The price: a request is counted until
 * the latest admission of its bucket leaves the window, so at most one second
 * longer than a timestamp log would count it. Memory: at most
 * `ceil(windowMs / 1000) + 1` buckets per key, whatever the limit.
 */

export const BUCKET_MS = 1000

/** What one check did, in milliseconds; `RateLimiter.toDecision` turns it into a `Decision`. */
export interface Outcome {
  readonly allowed: boolean
  /** admissions counted in the window after this check (this request included when admitted) */
  readonly count: number
  /** ms until every counted admission has left the window (0 when none is counted) */
  readonly resetMs: number
  /** ms until one more request would be admitted; 0 when admitted */
  readonly retryMs: number
}

interface KeyState {
  /** buckets, oldest first from `head`: [index (`floor(ms / BUCKET_MS)`), count, latest admission ms] per bucket */
  b: Array<number>
  /** offset of the oldest live bucket in `b` (a multiple of 3) */
  head: number
  total: number
  /** latest admission of the key and the window it was checked with: the key is idle once `newest + windowMs <= now` */
  newest: number
  windowMs: number
}

/**
 * Keys visited per check by the idle-key sweep, which walks the map with one
 * persistent iterator: a full pass every `size / 2` checks, O(1) per check, so
 * memory stays within a small multiple of the keys active in the last window.
 */
const SWEEP_PER_CHECK = 2
/** Compact the bucket arrays once this many dead slots lead them. */
const COMPACT_AT = 32

export interface MemoryWindow {
  readonly take: (key: string, limit: number, windowMs: number, now: number) => Outcome
  /** keys currently held (idle keys included until the sweep reaches them) */
  readonly size: () => number
  /** buckets held for a key, dead ones included until its next check */
  readonly buckets: (key: string) => number
}

export const makeMemoryWindow = (): MemoryWindow => {
  const keys = new Map<string, KeyState>()
  let sweep: Iterator<[string, KeyState]> | undefined

  const evictIdle = (now: number) => {
    for (let n = 0; n < SWEEP_PER_CHECK; n++) {
      if (sweep === undefined) sweep = keys.entries()
      const next = sweep.next()
      if (next.done === true) {
        sweep = undefined
        return
      }
      const s = next.value[1]
      if (s.newest + s.windowMs <= now) keys.delete(next.value[0])
    }
  }

  const expire = (s: KeyState, horizon: number) => {
    const b = s.b
    while (s.head < b.length && b[s.head + 2]! <= horizon) {
      s.total -= b[s.head + 1]!
      s.head += 3
    }
    if (s.head === b.length) {
      b.length = 0
      s.head = 0
    } else if (s.head >= COMPACT_AT * 3 && s.head * 2 >= b.length) {
      b.splice(0, s.head)
      s.head = 0
    }
  }

  const take = (key: string, limit: number, windowMs: number, now: number): Outcome => {
    evictIdle(now)
    const horizon = now - windowMs
    let s = keys.get(key)
    if (s !== undefined) {
      expire(s, horizon)
      s.windowMs = windowMs
    }
    const total = s?.total ?? 0

    if (limit > 0 && total < limit) {
      if (s === undefined) {
        s = { b: [], head: 0, total: 0, newest: now, windowMs }
        keys.set(key, s)
      }
      const b = s.b
      const bucket = Math.floor(now / BUCKET_MS)
      const top = b.length - 3
      if (top >= s.head && b[top]! >= bucket) {
        // the current bucket, or the newest one when the clock stepped back
        b[top + 1]!++
        if (now > b[top + 2]!) b[top + 2] = now
      } else {
        b.push(bucket, 1, now)
      }
      s.total++
      if (now > s.newest) s.newest = now
      return { allowed: true, count: s.total, resetMs: b[b.length - 1]! + windowMs - now, retryMs: 0 }
    }

    if (s === undefined || s.head === s.b.length) {
      return { allowed: false, count: 0, resetMs: 0, retryMs: windowMs }
    }
    const b = s.b
    const resetMs = b[b.length - 1]! + windowMs - now
    let retryMs = windowMs
    if (limit > 0) {
      // the oldest buckets must leave until the total is below the limit
      const need = total - limit + 1
      let acc = 0
      for (let i = s.head; i < b.length; i += 3) {
        acc += b[i + 1]!
        if (acc >= need) {
          retryMs = b[i + 2]! + windowMs - now
          break
        }
      }
    }
    return { allowed: false, count: total, resetMs, retryMs }
  }

  const buckets = (key: string) => {
    const s = keys.get(key)
    return s === undefined ? 0 : (s.b.length - s.head) / 3
  }

  return { take, size: () => keys.size, buckets }
}
