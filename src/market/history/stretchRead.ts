/**
 * A long walk's next stretch read ahead (issue 17 item 4): while the service's thread walks and replays
 * one stretch of years (`deepWalk.ts`), the walk helper's thread (`walkWorker.ts`, idle outside the walk
 * itself) reads the next stretch's bars off the grid's bar file into a second arena of shared memory.
 * The service's thread then takes the same series out of that arena, in the same order, with the
 * lengths the helper wrote: the bar file is read once, by the helper. A series the helper could not keep
 * in the arena (grown, or widened to doubles by a price or volume the arena's int32 and uint32 cannot
 * hold) is written -1 and read again by the service's thread, as are all of them when the read fails or
 * the helper is gone.
 */
import { closeSync, fstatSync, openSync, statSync } from "node:fs"
import { BarSeries } from "./barSeries.js"
import type { DeepBarsLayout } from "./deepBars.js"
import { appendStored, DeepBarsReader, readFully } from "./deepBarsReader.js"
import { type ArenaParts, SeriesArena } from "./seriesArena.js"

/** `status[0]` of a read: posted, done (`lengths` written), failed */
export const READ_PENDING = 0
export const READ_DONE = 1
export const READ_FAILED = 2

/** A stretch's series to read off the bar file (what the helper is posted). */
export interface StretchRead {
  readonly kind: "read"
  /** the grid's bar file and its layout */
  readonly path: string
  readonly layout: DeepBarsLayout
  /** the arena to empty and fill (its memory, and what it had handed out: zeroed first) */
  readonly arena: ArenaParts
  /** bars the stretch's series take in all */
  readonly total: number
  /** the first day read */
  readonly from: number
  /** the walked tickers (ascending), each one's room in bars and the last day read of it */
  readonly slots: Int32Array
  readonly capacities: Int32Array
  readonly ends: Int32Array
  /** out: each ticker's bars read, or -1 (read it again); shared */
  readonly lengths: Int32Array
  /** out: `READ_PENDING` until the helper is done; shared, notified */
  readonly status: Int32Array
  /** the bars' days and closes alone (`appendRun`) */
  readonly closesOnly: boolean
}

/** A stretch read's shared answer fields, new. */
export const readAnswers = (n: number): Pick<StretchRead, "lengths" | "status"> => ({
  lengths: new Int32Array(new SharedArrayBuffer(4 * Math.max(1, n))),
  status: new Int32Array(new SharedArrayBuffer(4))
})

/**
 * The series of `read`'s tickers in `arena` (emptied by whoever filled it), taken in the order the
 * reader took them: the same memory, the same views.
 */
export const seriesIn = (arena: SeriesArena, capacities: Int32Array): Array<BarSeries> =>
  Array.from(capacities, (capacity) => BarSeries.scaledIn(capacity, arena))

/** Performs `read` with `bars` (the helper's thread): fills the arena and the lengths. */
export const fillStretch = (read: StretchRead, bars: DeepBarsReader): void => {
  const arena = SeriesArena.over(read.arena).reuse(read.total)
  if (arena === undefined) throw new Error(`the arena cannot hold ${read.total} bars`)
  const series = seriesIn(arena, read.capacities)
  // each series' room as handed out, to zero again where a series leaves it
  const rooms = series.map((s) => [s.days, s.close, s.volume, s.open, s.high, s.low] as const)
  const at = new Map(Array.from(read.slots, (i, p) => [i, p]))
  const covered = read.slots.filter((_, p) => bars.covers(read.from, read.ends[p]!))
  appendStored(
    bars,
    covered,
    read.from,
    (i) => read.ends[at.get(i)!]!,
    (i) => series[at.get(i)!]!,
    read.closesOnly
  )
  series.forEach((s, p) => {
    const held = arena.holds(s)
    // a series that left the arena: its room zeroed as a new arena's is, read again by the service's thread
    if (!held) for (const a of rooms[p]!) a.fill(0)
    read.lengths[p] = held ? s.length : -1
  })
}

/** The helper's open bar file (one at a time: a new grid's closes the last). */
let opened: { readonly path: string; readonly fd: number; readonly reader: DeepBarsReader } | undefined

/** Performs `read` on this thread, opening its bar file unless it is open; sets and notifies its status. */
export const performRead = (read: StretchRead): void => {
  try {
    // the file open here unless another took its path since (a grid rebuilt)
    if (opened?.path !== read.path || statSync(read.path).ino !== fstatSync(opened.fd).ino) {
      if (opened !== undefined) closeSync(opened.fd)
      opened = undefined
      const fd = openSync(read.path, "r")
      opened = {
        path: read.path,
        fd,
        reader: new DeepBarsReader(read.layout, (into, position) => readFully(fd, into, position), read.path)
      }
    }
    fillStretch(read, opened.reader)
    Atomics.store(read.status, 0, READ_DONE)
  } catch {
    Atomics.store(read.status, 0, READ_FAILED)
  }
  Atomics.notify(read.status, 0)
}
