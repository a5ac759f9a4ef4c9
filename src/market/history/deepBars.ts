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
 * 21 bytes.
 */
import { type BarColumns, type BarSeries, PRICE_SCALE, scaledPrice, wholeU32 } from "./barSeries.js"

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

const align8 = (n: number) => (n + 7) & ~7

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

/** A group's bars over a range of days, ticker by ticker (`capacity` bars of room each). */
export interface GroupBars extends BarColumns {
  readonly capacity: number
  readonly length: Int32Array
}

export const groupBars = (tickers: number, capacity: number): GroupBars => ({
  capacity,
  length: new Int32Array(tickers),
  days: new Int32Array(tickers * capacity),
  open: new Float64Array(tickers * capacity),
  high: new Float64Array(tickers * capacity),
  low: new Float64Array(tickers * capacity),
  close: new Float64Array(tickers * capacity),
  volume: new Float64Array(tickers * capacity)
})

/** Reads a bar file's blocks: `readAt(into, position)` fills `into` from the file's byte `position`. */
export class DeepBarsReader {
  private scratch = new ArrayBuffer(1 << 20)

  constructor(
    readonly layout: DeepBarsLayout,
    private readonly readAt: (into: Uint8Array, position: number) => void
  ) {}

  /** Whether the file holds every bar of `fromDay … toDay`. */
  covers(fromDay: number, toDay: number): boolean {
    return fromDay >= this.layout.base && toDay <= this.layout.lastDay && fromDay <= toDay
  }

  /**
   * Group `g`'s bars of `fromDay … toDay` (`covers` them) into `out`, appended after `out.length[t]`
   * for the group's ticker t (those `wanted` only, when given), in day order.
   */
  read(g: number, fromDay: number, toDay: number, out: GroupBars, wanted?: (t: number) => boolean): void {
    const cap = out.capacity
    this.eachRun(g, fromDay, toDay, wanted, (t, run) => {
      let k = out.length[t]
      if (k + run.to - run.from > cap) throw new RangeError(`more than ${cap} bars of the group's ticker ${t}`)
      const row = t * cap
      for (let b = run.from; b < run.to; b++) {
        const o = row + k++
        out.days[o] = run.day(b)
        out.open[o] = run.price(0, b)
        out.high[o] = run.price(1, b)
        out.low[o] = run.price(2, b)
        out.close[o] = run.price(3, b)
        out.volume[o] = run.volume(b)
      }
      out.length[t] = k
    })
  }

  /**
   * Group `g`'s stored bars of `fromDay … toDay` (`covers` them), block by block in day order: for
   * each of the group's tickers with bars in the range (those `wanted` only, when given),
   * `onRun(t, run)` with the block's bars of it as stored — `run.from … run.to - 1` in the range.
   * `run` is reused: read it before returning.
   */
  eachRun(
    g: number,
    fromDay: number,
    toDay: number,
    wanted: ((t: number) => boolean) | undefined,
    onRun: (t: number, run: StoredRun) => void
  ): void {
    const { base, chunks, offsets, group, size } = this.layout
    if (!this.covers(fromDay, toDay)) throw new RangeError(`the bar file does not hold ${fromDay} … ${toDay}`)
    const tickers = Math.min(group, size - g * group)
    const c0 = Math.floor((fromDay - base) / CHUNK_DAYS)
    const c1 = Math.min(chunks - 1, Math.floor((toDay - base) / CHUNK_DAYS))
    const start = offsets[g * chunks + c0]
    const end = offsets[g * chunks + c1 + 1]
    if (end === start) return
    if (this.scratch.byteLength < end - start) this.scratch = new ArrayBuffer(align8(end - start) * 2)
    const run = this.run.over(this.scratch)
    this.readAt(run.u8.subarray(0, end - start), start)
    const u8 = run.u8
    const i32 = run.i32
    for (let c = c0; c <= c1; c++) {
      let at = offsets[g * chunks + c] - start
      if (offsets[g * chunks + c + 1] - start === at) continue
      run.first = base + c * CHUNK_DAYS
      const counts = at >> 2
      const flagsAt = at + align8(4 * tickers)
      at = flagsAt + align8(tickers)
      for (let t = 0; t < tickers; t++) {
        const n = i32[counts + t]
        if (n === 0) continue
        const flags = u8[flagsAt + t]
        run.n = n
        run.flags = flags
        run.dayAt = at
        at += align8(n)
        run.pricesAt = (flags & 1) === 1 ? at >> 2 : at >> 3
        at += (flags & 1) === 1 ? align8(16 * n) : 32 * n
        run.volumesAt = (flags & 2) === 2 ? at >> 2 : at >> 3
        at += (flags & 2) === 2 ? align8(4 * n) : 8 * n
        if (wanted !== undefined && !wanted(t)) continue
        // the block's bars in the range: a run of them (days ascend)
        let from = 0
        while (from < n && run.first + u8[run.dayAt + from] < fromDay) from++
        let to = n
        while (to > from && run.first + u8[run.dayAt + to - 1] > toDay) to--
        if (to === from) continue
        run.from = from
        run.to = to
        onRun(t, run)
      }
    }
  }

  private readonly run = new StoredRun()
}

/**
 * One ticker's bars in one block of a bar file, as stored (see the module comment), for a reader to
 * decode or copy: bar `b` (0 … n - 1) of it.
 */
export class StoredRun {
  u8 = new Uint8Array(0)
  i32 = new Int32Array(0)
  u32 = new Uint32Array(0)
  f64 = new Float64Array(0)
  /** the chunk's first day */
  first = 0
  n = 0
  /** bit 0: prices int32 ticks (`ticks`); bit 1: volumes uint32 */
  flags = 0
  /** byte offset of the days */
  dayAt = 0
  /** element offset of the prices (int32 or double) and of the volumes (uint32 or double) */
  pricesAt = 0
  volumesAt = 0
  /** the bars asked for: `from … to - 1` */
  from = 0
  to = 0

  over(buffer: ArrayBuffer): this {
    if (this.u8.buffer !== buffer) {
      this.u8 = new Uint8Array(buffer)
      this.i32 = new Int32Array(buffer)
      this.u32 = new Uint32Array(buffer)
      this.f64 = new Float64Array(buffer)
    }
    return this
  }

  day(b: number): number {
    return this.first + this.u8[this.dayAt + b]
  }

  /** whether the prices are int32 ticks (× PRICE_SCALE) */
  get ticks(): boolean {
    return (this.flags & 1) === 1
  }

  /** field `m` (0 open, 1 high, 2 low, 3 close) of bar `b` */
  price(m: number, b: number): number {
    const p = this.pricesAt + m * this.n + b
    return this.ticks ? this.i32[p] / PRICE_SCALE : this.f64[p]
  }

  /** field `m`'s int32 tick of bar `b` (`ticks` only) */
  tick(m: number, b: number): number {
    return this.i32[this.pricesAt + m * this.n + b]
  }

  /** whether the volumes are uint32 */
  get wholeVolumes(): boolean {
    return (this.flags & 2) === 2
  }

  volume(b: number): number {
    return this.wholeVolumes ? this.u32[this.volumesAt + b] : this.f64[this.volumesAt + b]
  }
}

/** days read at once by `appendStored` (its scratch: one group's blocks of them) */
const SLICE_DAYS = 8 * CHUNK_DAYS

/**
 * Appends the stored bars of `slots` (ascending) from `fromDay` to each one's `toDay(i)` (the reader
 * `covers` them all) to `seriesOf(i)`, in day order: the bars `generateBars` makes for the same
 * tickers and days, read rather than made.
 */
export const appendStored = (
  reader: DeepBarsReader,
  slots: Int32Array,
  fromDay: number,
  toDay: (i: number) => number,
  seriesOf: (i: number) => BarSeries
): void => {
  const { group } = reader.layout
  for (let k = 0; k < slots.length; ) {
    const g = Math.floor(slots[k] / group)
    const members: Array<BarSeries | undefined> = new Array(group)
    const ends = new Int32Array(group)
    let last = fromDay - 1
    for (; k < slots.length && Math.floor(slots[k] / group) === g; k++) {
      const i = slots[k]
      members[i - g * group] = seriesOf(i)
      ends[i - g * group] = toDay(i)
      last = Math.max(last, toDay(i))
    }
    for (let from = fromDay; from <= last; from += SLICE_DAYS) {
      const to = Math.min(last, from + SLICE_DAYS - 1)
      reader.eachRun(
        g,
        from,
        to,
        (t) => members[t] !== undefined,
        (t, run) => {
          const end = ends[t]
          while (run.to > run.from && run.day(run.to - 1) > end) run.to--
          if (run.to > run.from) appendRun(members[t]!, run)
        }
      )
    }
  }
}

/**
 * Appends a stored run's bars (`run.from … run.to - 1`) to `s`, as pushing them one by one would:
 * their int32 ticks and uint32 volumes copied as they are into a series that keeps prices so.
 */
export const appendRun = (s: BarSeries, run: StoredRun): void => {
  const { from, to } = run
  if (s.length > 0 && run.day(from) <= s.days[s.length - 1]) {
    throw new RangeError(`bar day ${run.day(from)} is not after ${s.days[s.length - 1]}`)
  }
  if (s.ohlScale !== PRICE_SCALE || !run.ticks || (!run.wholeVolumes && s.volume instanceof Uint32Array)) {
    for (let b = from; b < to; b++)
      s.push(run.day(b), run.price(0, b), run.price(1, b), run.price(2, b), run.price(3, b), run.volume(b))
    return
  }
  s.reserve(to - from)
  const { days, open, high, low, close, volume } = s
  const { i32, u8, u32, f64, n, first, dayAt, pricesAt, volumesAt } = run
  const whole = run.wholeVolumes
  let k = s.length
  for (let b = from; b < to; b++, k++) {
    days[k] = first + u8[dayAt + b]
    open[k] = i32[pricesAt + b]
    high[k] = i32[pricesAt + n + b]
    low[k] = i32[pricesAt + 2 * n + b]
    close[k] = i32[pricesAt + 3 * n + b] / PRICE_SCALE
    volume[k] = whole ? u32[volumesAt + b] : f64[volumesAt + b]
  }
  s.length = k
}
