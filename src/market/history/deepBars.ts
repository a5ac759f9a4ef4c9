/**
 * The whole market's daily bars before the window, as the grid walk makes them (`deepGrid.ts`), kept
 * beside the grid of states so a read of a day before the window reads its bars rather than
 * regenerating them (a cold whole-market as-of read was 80% bar generation).
 *
 * Layout: blocks of (group, chunk) — a group the `group` tickers the walk takes at once, a chunk 64
 * calendar days from `base` — group by group, each group's chunks in day order. A read of one group
 * over a range of days is one positional read of consecutive blocks. Empty blocks take no bytes.
 *
 * A block, every section 8-byte aligned, numbers in the machine's byte order:
 *   int32 count[G]          bars of each of the group's G tickers in the chunk
 *   uint8 flags[G]          bit 0: prices stored as int32 × PRICE_SCALE; bit 1: volumes as uint32
 *   then per ticker with bars (n of them):
 *     uint8 day[n]          days after the chunk's first
 *     prices[4n]            opens, highs, lows, closes (int32 × PRICE_SCALE when every one of the
 *                           ticker's in the chunk decodes to the same double, doubles otherwise)
 *     volumes[n]            uint32 when every one is a whole number below 2^32, doubles otherwise
 * So every bar reads back bit for bit; a simulated bar (tick-rounded prices, a rounded volume) takes
 * 21 bytes. `deepBarsReader.ts` reads it back.
 */
import { scaledPrice, wholeU32 } from "./barSeries.js"

/** calendar days a chunk spans: at most one bar a day, so at most 64 bars a ticker */
export const CHUNK_DAYS = 64
/** tickers in a group: the grid walk's (`gridStates.ts`) and the deep as-of read's */
export const BAR_GROUP = 512
/** calendar days of bars kept before the grid's first day: a read goes back a year (`LOOKBACK_DAYS`, 372) before its grid day */
export const BARS_BEFORE_ORIGIN = 6 * CHUNK_DAYS

/** Where a bar file's blocks are: kept in the grid's description. */
export interface DeepBarsLayout {
  /** the first chunk's first day */
  readonly base: number
  readonly chunks: number
  /** the last day the file holds bars of */
  readonly lastDay: number
  readonly group: number
  readonly size: number
  /** byte offsets of the blocks, group by group (`groups · chunks + 1`) */
  readonly offsets: ReadonlyArray<number>
}

export const align8 = (n: number) => (n + 7) & ~7

const scaled = scaledPrice
const wholeVolume = wholeU32

/** One group's bars of one chunk, as they come (at most 64 a ticker). */
class ChunkBuffer {
  readonly count: Int32Array
  readonly day: Uint8Array
  /** per ticker 64 bars × 5 values: open, high, low, close, volume */
  readonly values: Float64Array
  constructor(readonly tickers: number) {
    this.count = new Int32Array(tickers)
    this.day = new Uint8Array(tickers * CHUNK_DAYS)
    this.values = new Float64Array(tickers * CHUNK_DAYS * 5)
  }
  get empty(): boolean {
    for (let t = 0; t < this.tickers; t++) if (this.count[t] > 0) return false
    return true
  }
}

/** Encodes a chunk's bars as a block (see the module comment). */
export const encodeBlock = (chunk: ChunkBuffer): Uint8Array => {
  const g = chunk.tickers
  const flags = new Uint8Array(g)
  let size = align8(4 * g) + align8(g)
  for (let t = 0; t < g; t++) {
    const n = chunk.count[t]
    if (n === 0) continue
    let ints = true
    let u32 = true
    const at = t * CHUNK_DAYS * 5
    for (let b = 0; b < n; b++) {
      const v = at + b * 5
      if (ints) for (let m = 0; m < 4; m++) if (scaled(chunk.values[v + m]) === undefined) ints = false
      if (u32 && !wholeVolume(chunk.values[v + 4])) u32 = false
    }
    flags[t] = (ints ? 1 : 0) | (u32 ? 2 : 0)
    size += align8(n) + (ints ? align8(16 * n) : 32 * n) + (u32 ? align8(4 * n) : 8 * n)
  }
  const buffer = new ArrayBuffer(size)
  const u8 = new Uint8Array(buffer)
  const i32 = new Int32Array(buffer)
  const u32 = new Uint32Array(buffer)
  const f64 = new Float64Array(buffer)
  i32.set(chunk.count, 0)
  let at = align8(4 * g)
  u8.set(flags, at)
  at += align8(g)
  for (let t = 0; t < g; t++) {
    const n = chunk.count[t]
    if (n === 0) continue
    u8.set(chunk.day.subarray(t * CHUNK_DAYS, t * CHUNK_DAYS + n), at)
    at += align8(n)
    const src = t * CHUNK_DAYS * 5
    if ((flags[t] & 1) === 1) {
      const p = at >> 2
      for (let m = 0; m < 4; m++)
        for (let b = 0; b < n; b++) i32[p + m * n + b] = scaled(chunk.values[src + b * 5 + m]) as number
      at += align8(16 * n)
    } else {
      const p = at >> 3
      for (let m = 0; m < 4; m++) for (let b = 0; b < n; b++) f64[p + m * n + b] = chunk.values[src + b * 5 + m]
      at += 32 * n
    }
    if ((flags[t] & 2) === 2) {
      const p = at >> 2
      for (let b = 0; b < n; b++) u32[p + b] = chunk.values[src + b * 5 + 4]
      at += align8(4 * n)
    } else {
      const p = at >> 3
      for (let b = 0; b < n; b++) f64[p + b] = chunk.values[src + b * 5 + 4]
      at += 8 * n
    }
  }
  return u8
}

/**
 * Takes the bars of a walk over the market a group at a time (groups in order, each group's tickers
 * `g · group …`), and hands `write` each block in file order. Per group: `bar` in day order per
 * ticker (bars laid before the walk's range may come first), `reached(day)` once every bar up to
 * `day` has come, `endGroup()` after its last bar.
 */
export class DeepBarsWriter {
  private readonly chunks: number
  private readonly offsets: Array<number> = [0]
  private readonly pending = new Map<number, ChunkBuffer>()
  private readonly spare: Array<ChunkBuffer> = []
  private groupIndex = 0
  /** the next chunk of the current group to write */
  private next = 0
  private position = 0

  constructor(
    readonly size: number,
    readonly base: number,
    readonly lastDay: number,
    private readonly write: (bytes: Uint8Array) => void,
    readonly group: number = BAR_GROUP
  ) {
    this.chunks = Math.max(0, Math.floor((lastDay - base) / CHUNK_DAYS) + 1)
  }

  private get tickersInGroup(): number {
    return Math.min(this.group, this.size - this.groupIndex * this.group)
  }

  bar(i: number, day: number, open: number, high: number, low: number, close: number, volume: number): void {
    if (day < this.base || day > this.lastDay) return
    const t = i - this.groupIndex * this.group
    if (t < 0 || t >= this.tickersInGroup) throw new RangeError(`ticker ${i} is not in group ${this.groupIndex}`)
    const c = Math.floor((day - this.base) / CHUNK_DAYS)
    if (c < this.next) throw new RangeError(`a bar of day ${day} after its chunk was written`)
    let chunk = this.pending.get(c)
    if (chunk === undefined) {
      chunk = this.spare.pop() ?? new ChunkBuffer(this.tickersInGroup)
      if (chunk.tickers !== this.tickersInGroup) chunk = new ChunkBuffer(this.tickersInGroup)
      chunk.count.fill(0)
      this.pending.set(c, chunk)
    }
    const n = chunk.count[t]++
    if (n >= CHUNK_DAYS) throw new RangeError(`more than ${CHUNK_DAYS} bars of ticker ${i} in a chunk`)
    chunk.day[t * CHUNK_DAYS + n] = day - this.base - c * CHUNK_DAYS
    const v = (t * CHUNK_DAYS + n) * 5
    chunk.values[v] = open
    chunk.values[v + 1] = high
    chunk.values[v + 2] = low
    chunk.values[v + 3] = close
    chunk.values[v + 4] = volume
  }

  /** Every bar of the group up to `day` has come: the chunks that end by then are written. */
  reached(day: number): void {
    const upTo = Math.min(this.chunks, Math.floor((day + 1 - this.base) / CHUNK_DAYS))
    while (this.next < upTo) this.flush()
  }

  endGroup(): void {
    while (this.next < this.chunks) this.flush()
    this.groupIndex++
    this.next = 0
  }

  private flush(): void {
    const chunk = this.pending.get(this.next)
    if (chunk !== undefined) {
      this.pending.delete(this.next)
      if (!chunk.empty) {
        const bytes = encodeBlock(chunk)
        this.write(bytes)
        this.position += bytes.length
      }
      this.spare.push(chunk)
    }
    this.offsets.push(this.position)
    this.next++
  }

  /** The file's layout, once every group has ended. */
  layout(): DeepBarsLayout {
    const groups = Math.ceil(this.size / this.group)
    if (this.groupIndex !== groups) throw new Error(`${this.groupIndex} of ${groups} groups written`)
    return {
      base: this.base,
      chunks: this.chunks,
      lastDay: this.lastDay,
      group: this.group,
      size: this.size,
      offsets: this.offsets
    }
  }
}
