/**
 * Shared memory for series' arrays (`barSeries.ts`, `seriesArena.ts`). Where a series' own arrays come
 * from (a series grown past its room, expanded to doubles, built on its own by an import): views carved
 * off slabs of shared memory, so the series of a market that has run for months are still views of a few
 * buffers (a history walk hands them all to the walk helper's thread on every walk: `walkHelper.ts`).
 * Carved once each, never reused: zero as a new buffer is. A slab lives while a view of it does; arrays
 * past a quarter of a slab get a buffer of their own.
 */
const SLAB_BYTES = 16 << 20
let slab: SharedArrayBuffer = new SharedArrayBuffer(0)
let slabAt = 0
const carve = (bytes: number): readonly [SharedArrayBuffer, number] => {
  const size = (bytes + 7) & ~7
  if (size > SLAB_BYTES / 4) return [new SharedArrayBuffer(size), 0]
  if (slabAt + size > slab.byteLength) {
    slab = new SharedArrayBuffer(SLAB_BYTES)
    slabAt = 0
  }
  const at = slabAt
  slabAt += size
  return [slab, at]
}
export const int32s = (n: number) => {
  const [buffer, at] = carve(n * 4)
  return new Int32Array(buffer, at, n)
}
export const uint32s = (n: number) => {
  const [buffer, at] = carve(n * 4)
  return new Uint32Array(buffer, at, n)
}
export const float64s = (n: number) => {
  const [buffer, at] = carve(n * 8)
  return new Float64Array(buffer, at, n)
}
/** a shared copy of `a` */
export const float64sOf = (a: ArrayLike<number>) => {
  const out = float64s(a.length)
  out.set(a)
  return out
}
