/**
 * Where a long walk's stretches keep their series (`deepWalk.ts`): one room a walk, two arenas — the
 * stretch walked, and the next one the walk helper reads ahead into (`history/stretchRead.ts`).
 */
import type { DeepBarsReader } from "../history/deepBarsReader.js"
import { SeriesArena } from "../history/seriesArena.js"
import { READ_DONE, readAnswers, type StretchRead } from "../history/stretchRead.js"
import { awaitStretchRead, helperReads, postStretchRead } from "../history/walkHelper.js"

/** One stretch of a long walk: its days, and the last day its series reach (undefined: the market's last). */
export interface Stretch {
  readonly from: number
  readonly to: number
  readonly through: number | undefined
}

/** What one stretch's series hold (`reachingBack`): the grid day it restores at, the days and the room read. */
export interface StretchPlan {
  /** the grid day's index, and the day */
  readonly k: number
  readonly gridDay: number
  /** the first day read */
  readonly from: number
  /** each walked ticker's room in bars, ticker by ticker (ascending) */
  readonly capacities: ReadonlyMap<number, number>
  /** their sum */
  readonly total: number
  /** the last day of ticker `i`'s deep part read */
  readonly deepTo: (i: number) => number
  /** whether the window's bars go on ticker `i`'s series (the stretch reaches them) */
  readonly withWindow: (i: number) => boolean
}

/** what names a stretch of a walk read ahead */
export const stretchKey = (fromDay: number, through: number, families: number): string =>
  `${fromDay}:${through}:${families}`

/**
 * Where a walk's stretches keep their series: one arena, reused from one stretch to the next (a stretch
 * is read to its end before the next one's reader is called). Twenty whole-market years' stretches
 * otherwise each touched ~220 MB of new memory: its page faults, and external memory that brought the
 * collector's full collections sooner. With the stretches it serves (`walkStretchesOf`), a room also
 * has the walk helper read the next stretch's series off the bar file into a second arena while this
 * thread walks the one before (`stretchRead.ts`).
 */
export class StretchRoom {
  private current: SeriesArena | undefined
  private spare: SeriesArena | undefined
  private pending:
    | { readonly key: string; readonly plan: StretchPlan; readonly arena: SeriesArena; readonly read: StretchRead }
    | undefined
  /** while the stretch before is still read (`hold`): the next read ahead, posted at `release` */
  private holding = false
  private queued: (() => void) | undefined
  /** stretches whose series the walk helper read, reads posted, stretches taken early (tests) */
  readsTaken = 0
  readsPosted = 0
  takenEarly = 0

  constructor(private readonly stretches: ReadonlyArray<Stretch> = []) {}

  /** room for `capacity` bars: the last stretch's arena emptied when it fits, else a new one */
  arena(capacity: number): SeriesArena {
    this.current = this.current?.reuse(capacity) ?? new SeriesArena(capacity)
    return this.current
  }

  /** the stretch walked after the one from `fromDay` (read ahead only before the window) */
  after(fromDay: number): { readonly from: number; readonly through: number } | undefined {
    const k = this.stretches.findIndex((s) => s.from === fromDay)
    const next = k < 0 ? undefined : this.stretches[k + 1]
    return next?.through === undefined ? undefined : { from: next.from, through: next.through }
  }

  /** whether the stretch `key` names was read ahead and the read is done (taking it does not wait) */
  aheadDone(key: string): boolean {
    return this.pending?.key === key && Atomics.load(this.pending.read.status, 0) === READ_DONE
  }

  /**
   * The next stretch is taken while the one before is still read (`WalkStretch.early`): the read ahead of
   * the stretch after it would empty the arena the one before is in, so it waits until `release`.
   */
  hold(): void {
    this.holding = true
    this.takenEarly++
  }

  /** The stretch before is no longer read: a read ahead waiting for it is posted. */
  release(): void {
    this.holding = false
    const queued = this.queued
    this.queued = undefined
    queued?.()
  }

  /** Posts the read of the stretch `key` names (`plan`'s series off `bars`) to the walk helper, if one runs. */
  readAhead(key: string, plan: StretchPlan, bars: DeepBarsReader): void {
    if (this.holding) {
      this.queued = () => this.readAhead(key, plan, bars)
      return
    }
    const path = bars.path
    if (path === undefined || this.pending !== undefined || !helperReads()) return
    const arena = this.spare?.fits(plan.total) === true ? this.spare : new SeriesArena(plan.total)
    const read: StretchRead = {
      kind: "read",
      path,
      layout: bars.layout,
      arena: arena.parts(),
      total: plan.total,
      from: plan.from,
      slots: Int32Array.from(plan.capacities.keys()),
      capacities: Int32Array.from(plan.capacities.values()),
      ends: Int32Array.from(plan.capacities.keys(), plan.deepTo),
      ...readAnswers(plan.capacities.size)
    }
    postStretchRead(read)
    this.readsPosted++
    this.spare = arena
    this.pending = { key, plan, arena, read }
  }

  /**
   * The stretch `key` names as the helper read it: the plan it read by (its series are taken by that
   * plan, whatever the window did since), its arena made this room's current one, and the series'
   * lengths (-1: read it here); undefined when it was not read ahead or the read failed (that arena is
   * then let go: a stuck helper may still write to it).
   */
  takeAhead(
    key: string
  ): { readonly plan: StretchPlan; readonly arena: SeriesArena; readonly lengths: Int32Array } | undefined {
    const pending = this.pending
    this.pending = undefined
    if (pending === undefined) return undefined
    if (pending.key !== key || !awaitStretchRead(pending.read)) {
      this.spare = undefined
      return undefined
    }
    const arena = pending.arena.rewind()
    this.spare = this.current
    this.current = arena
    this.readsTaken++
    return { plan: pending.plan, arena, lengths: pending.read.lengths }
  }
}

export const makeStretchRoom = (stretches: ReadonlyArray<Stretch> = []): StretchRoom => new StretchRoom(stretches)
