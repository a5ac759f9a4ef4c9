/**
 * Reading the bar file kept beside the deep grid (`deepBars.ts` has its layout and its writer): a
 * group's blocks read at once (one positional read), each ticker's bars of a block handed on as stored
 * (`StoredRun`) — decoded to doubles for a group's scratch (`read`, the deep as-of reads), or copied as
 * they are into a walk's series (`appendStored`: int32 ticks into a series that keeps prices so).
 */
import { readSync } from "node:fs"
import { type BarColumns, type BarSeries, PRICE_SCALE } from "./barSeries.js"
import { align8, CHUNK_DAYS, type DeepBarsLayout } from "./deepBars.js"

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
    private readonly readAt: (into: Uint8Array, position: number) => void,
    /** the file it reads, when it reads one (another thread may open it too: `stretchRead.ts`) */
    readonly path?: string
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
  seriesOf: (i: number) => BarSeries,
  /** the days and closes alone (`appendRun`) */
  closesOnly = false
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
          if (run.to > run.from) appendRun(members[t]!, run, closesOnly)
        }
      )
    }
  }
}

/**
 * Appends a stored run's bars (`run.from … run.to - 1`) to `s`, as pushing them one by one would:
 * their int32 ticks and uint32 volumes copied as they are into a series that keeps prices so. With
 * `closesOnly`, the days and closes alone: the opens, highs, lows and volumes are left as they were
 * (zero in a new series' room) — for a walk that reads nothing else (`engine/deepWalk.ts`, "closes").
 */
export const appendRun = (s: BarSeries, run: StoredRun, closesOnly = false): void => {
  const { from, to } = run
  if (s.length > 0 && run.day(from) <= s.days[s.length - 1]) {
    throw new RangeError(`bar day ${run.day(from)} is not after ${s.days[s.length - 1]}`)
  }
  if (closesOnly) {
    s.reserve(to - from)
    const { days, close } = s
    let k = s.length
    for (let b = from; b < to; b++, k++) {
      days[k] = run.day(b)
      close[k] = run.price(3, b)
    }
    s.length = k
    return
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

/** Fills `into` from `fd` at `position`. */
export const readFully = (fd: number, into: Uint8Array, position: number): void => {
  let done = 0
  while (done < into.length) {
    const n = readSync(fd, into, done, into.length - done, position + done)
    if (n === 0) throw new Error(`the deep history file ends before byte ${position + into.length}`)
    done += n
  }
}
