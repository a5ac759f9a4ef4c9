/**
 * The rolling-window algorithm shared by both stores (the in-process one here,
 * the Redis one in `redisStore.ts` as a Lua transcription of the same rules).
 *
 * Per key, admissions are grouped in one-second buckets. A bucket holds how
 * many of its admissions are still counted, the time of its oldest counted
 * admission (`first`) and the time of its latest admission (`last`). Its
 * admissions leave the window in two steps:
 *
 *   - when `first <= now - windowMs`, the admission at `first` has left: the
 *     bucket counts one fewer, and `first` becomes `last` (the times of the
 *     others, somewhere in `(first, last]`, are not kept, so they are taken
 *     to be at `last`);
 *   - when `last <= now - windowMs`, all of them have left: the bucket goes.
 *
 * A request is admitted when the counted total is below the limit; it is then
 * added to the bucket of `floor(now / 1000)` (or to the newest bucket if the
 * clock stepped back), raising that bucket's `last` to `now`. A refused
 * request changes nothing.
 *
 * Guarantee (proof in docs/rate-limits.md): no span of `windowMs`
 * milliseconds, at millisecond resolution and in any alignment, holds more
 * than `limit` admissions (every admission still in the window is counted);
 * a clock stepping back does not loosen it in real time. The wait a refusal
 * answers (`retryMs`) is when the limiter will admit again: exact when the
 * oldest counted admission is the one to leave (the usual refusal, one over
 * the limit), so a key that spent its limit over two seconds waits under 59 s.
 * The price: an admission that is neither the first nor the last of its
 * second is counted until the last leaves, at most one second longer than a
 * timestamp log would count it. Memory: at most `ceil(windowMs / 1000) + 1`
 * buckets per key, whatever the limit.
 */

export const BUCKET_MS = 1000

/** What one check did, in milliseconds; `RateLimiter.toDecision` turns it into a `Decision`. */
export interface WindowOutcome {
  readonly allowed: boolean
  /** admissions counted in the window after this check (this request included when admitted) */
  readonly count: number
  /** ms until every counted admission has left the window (0 when none is counted) */
  readonly resetMs: number
  /** ms until one more request would be admitted; 0 when admitted */
  readonly retryMs: number
}

interface KeyState {
  /**
   * buckets, oldest first from `head`: [index (`floor(ms / BUCKET_MS)`), counted admissions,
   * oldest counted admission ms, latest admission ms] per bucket
   */
  b: Array<number>
  /** offset of the oldest live bucket in `b` (a multiple of `STRIDE`) */
  head: number
  total: number
  /** latest admission of the key and the window it was checked with: the key is idle once `newest + windowMs <= now` */
  newest: number
  windowMs: number
}

const STRIDE = 4

/**
 * Keys visited per check by the idle-key sweep, which walks the map with one
 * persistent iterator: a full pass every `size / 2` checks, O(1) per check, so
 * memory stays within a small multiple of the keys active in the last window.
 */
const SWEEP_PER_CHECK = 2
/** Compact the bucket arrays once this many dead slots lead them. */
const COMPACT_AT = 32

export interface MemoryWindow {
  readonly take: (key: string, limit: number, windowMs: number, now: number) => WindowOutcome
  /** keys currently held (idle keys included until the sweep reaches them) */
  readonly size: () => number
  /** buckets held for a key, dead ones included until its next check */
  readonly buckets: (key: string) => number
}

/**
 * Milliseconds from `now` until `need` more counted admissions have left the window, walking the
 * buckets' two leaving steps in time order (`b` from `head`, stride `STRIDE`); `fallback` if they
 * never do. Shared with nothing but transcribed in `redisStore.ts`.
 */
const waitFor = (b: ReadonlyArray<number>, head: number, need: number, windowMs: number, now: number) => {
  let acc = 0
  for (let i = head; i < b.length; i += STRIDE) {
    const count = b[i + 1]!
    const first = b[i + 2]!
    const last = b[i + 3]!
    if (first < last) {
      acc += 1
      if (acc >= need) return first + windowMs - now
      acc += count - 1
    } else {
      acc += count
    }
    if (acc >= need) return last + windowMs - now
  }
  return windowMs
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
    while (s.head < b.length) {
      if (b[s.head + 3]! <= horizon) {
        // every admission of the oldest bucket has left
        s.total -= b[s.head + 1]!
        s.head += STRIDE
        continue
      }
      if (b[s.head + 2]! <= horizon) {
        // its oldest admission has left; the rest are taken to be at its latest
        s.total -= 1
        b[s.head + 1]!--
        b[s.head + 2] = b[s.head + 3]!
      }
      // buckets leave in index order: the next bucket's admissions are all later than this one's
      break
    }
    if (s.head === b.length) {
      b.length = 0
      s.head = 0
    } else if (s.head >= COMPACT_AT * STRIDE && s.head * 2 >= b.length) {
      b.splice(0, s.head)
      s.head = 0
    }
  }

  const take = (key: string, limit: number, windowMs: number, now: number): WindowOutcome => {
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
      const top = b.length - STRIDE
      if (top >= s.head && b[top]! >= bucket) {
        // the current bucket, or the newest one when the clock stepped back
        b[top + 1]!++
        if (now > b[top + 3]!) b[top + 3] = now
      } else {
        b.push(bucket, 1, now, now)
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
    // the oldest admissions must leave until the total is below the limit
    const retryMs = limit > 0 ? waitFor(b, s.head, total - limit + 1, windowMs, now) : windowMs
    return { allowed: false, count: total, resetMs, retryMs }
  }

  const buckets = (key: string) => {
    const s = keys.get(key)
    return s === undefined ? 0 : (s.b.length - s.head) / STRIDE
  }

  return { take, size: () => keys.size, buckets }
}
