/**
 * Many series handed to another thread in one message (the walk helper's, `walkHelper.ts`): the few
 * shared buffers they are views of, and a table of where each view lies.
 */
import { BarSeries } from "./barSeries.js"

/** doubles of one series in a `PackedSeries` table: length, scale, then per array its buffer, offset, size and type */
const PACKED = 2 + 6 * 4
const TYPES = [Int32Array, Uint32Array, Float64Array] as const

/**
 * Many series' arrays as another thread receives them in one message: the few buffers they are views
 * of, and a table of where each view lies. Posting 13,047 `SeriesArrays` clones 78,000 view objects on
 * the sender's thread (~12 ms); the table is one array, the views made again on the receiver's.
 */
export interface PackedSeries {
  readonly buffers: ReadonlyArray<SharedArrayBuffer>
  readonly table: Float64Array
}

export const packSeries = (series: ReadonlyArray<BarSeries>): PackedSeries => {
  const buffers: Array<ArrayBufferLike> = []
  const table = new Float64Array(PACKED * series.length)
  // a handful of buffers: found by a look along them, the last one found first
  let last = -1
  const put = (o: number, a: Int32Array | Uint32Array | Float64Array) => {
    let b = last >= 0 && buffers[last] === a.buffer ? last : buffers.indexOf(a.buffer)
    if (b < 0) b = buffers.push(a.buffer) - 1
    last = b
    table[o] = b
    table[o + 1] = a.byteOffset
    table[o + 2] = a.length
    table[o + 3] = a instanceof Int32Array ? 0 : a instanceof Uint32Array ? 1 : 2
  }
  for (let k = 0; k < series.length; k++) {
    const s = series[k]!
    const at = k * PACKED
    table[at] = s.length
    table[at + 1] = s.ohlScale
    put(at + 2, s.days)
    put(at + 6, s.open)
    put(at + 10, s.high)
    put(at + 14, s.low)
    put(at + 18, s.close)
    put(at + 22, s.volume)
  }
  return { buffers: buffers as Array<SharedArrayBuffer>, table }
}

/** The series of a `PackedSeries`, read over the same memory. */
export const unpackSeries = (packed: PackedSeries): Array<BarSeries> => {
  const { buffers, table } = packed
  const out: Array<BarSeries> = new Array(table.length / PACKED)
  for (let k = 0; k < out.length; k++) {
    const at = k * PACKED
    const view = (f: number) => {
      const o = at + 2 + 4 * f
      const Type = TYPES[table[o + 3]!]!
      return new Type(buffers[table[o]!]! as unknown as ArrayBuffer, table[o + 1]!, table[o + 2]!)
    }
    out[k] = BarSeries.over({
      length: table[at]!,
      ohlScale: table[at + 1]!,
      days: view(0) as Int32Array,
      open: view(1) as Int32Array | Float64Array,
      high: view(2) as Int32Array | Float64Array,
      low: view(3) as Int32Array | Float64Array,
      close: view(4) as Float64Array,
      volume: view(5) as Uint32Array | Float64Array
    })
  }
  return out
}
