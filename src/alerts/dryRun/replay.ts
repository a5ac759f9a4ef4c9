/**
 * A dry-run's replay: the alert state machine (`stepFiring`, the one the
 * evaluator runs) stepped over a sequence of past evaluations, with what a
 * person asks of the result — the events (numbered as the live feed numbers
 * them), per ticker how often and when it fired, and the forward returns of
 * the signals. Pure: the evaluations come from the history readers
 * (`dailyEvaluations`, `minuteEvaluations`); nothing is stored or sent.
 */
import type { FiringOptions } from "../../store/webhooks.js"
import { EMPTY_FIRING, type FiringState, type NumberedEvent, numberEvents, stepFiring } from "../firing/machine.js"
import { firesOnEnter } from "../firing/options.js"

/** One past evaluation of the rule: its time and the tickers (market slots) it found. */
export interface Evaluation {
  /** epoch ms of the evaluation (the durations are measured on it) */
  readonly at: number
  /** sorted slots where `q` holds, in scope */
  readonly matched: Int32Array
  /** sorted slots where `clear_q` holds (any scope); undefined without `clear_q` */
  readonly clear: Int32Array | undefined
  /** the evaluated row's price of slot `id` (NaN: none); read while this is the latest evaluation */
  readonly price: (id: number) => number
  /** the index in its daily series of the session slot `id` was evaluated in (-1: none completed) */
  readonly bar: (id: number) => number
  /** the close of bar `bar` of slot `id`'s daily series as the evaluation reads it (undefined: no such bar yet) */
  readonly closeAt: (id: number, bar: number) => number | undefined
}

/** A replayed event: when, which type, which tickers (slots; `repeated` a subset of `tickers`). */
export interface ReplayEvent {
  readonly at: number
  readonly sequence: number
  readonly type: NumberedEvent["type"]
  readonly tickers: Int32Array
  readonly repeated: Int32Array
}

export interface TickerTally {
  /** `webhook.fired` rows of the ticker (entries and repeats) */
  fires: number
  /** `webhook.cleared` rows of the ticker */
  clears: number
  firstAt: number
  lastAt: number
}

/** the forward-return horizons, in daily bars of the ticker's own series */
export const HORIZONS = { "1d": 1, "5d": 5, "20d": 20 } as const
const HORIZON_NAMES = Object.keys(HORIZONS) as Array<keyof typeof HORIZONS>
const HORIZON_BARS: ReadonlyArray<number> = HORIZON_NAMES.map((name) => HORIZONS[name])
/** the most daily bars a forward return looks ahead */
const MAX_HORIZON_BARS = Math.max(...Object.values(HORIZONS))
/** calendar days past a day that hold its forward returns' closes (20 sessions: ~28 days, and holidays) */
export const FORWARD_DAYS = Math.ceil(MAX_HORIZON_BARS * 1.5) + 10

/**
 * The signals whose forward returns are measured: each one's ticker's price then, and its closes each
 * horizon's daily bars after the session evaluated (`HORIZONS`; NaN: no such bar) — read when it is
 * recorded, off the series that evaluation read (a long dry-run reads one stretch of years at a time).
 * Kept as columns: twenty years of the whole market record ~500,000 of them.
 */
export class Signals {
  size = 0
  private prices = new Float64Array(1_024)
  private exits: Array<Float64Array> = HORIZON_BARS.map(() => new Float64Array(1_024))

  /** records ticker `id` of evaluation `e` */
  record(e: Evaluation, id: number): void {
    if (this.size === this.prices.length) this.grow()
    const n = this.size++
    this.prices[n] = e.price(id)
    const bar = e.bar(id)
    for (let h = 0; h < HORIZON_BARS.length; h++) {
      this.exits[h]![n] = bar >= 0 ? (e.closeAt(id, bar + HORIZON_BARS[h]!) ?? Number.NaN) : Number.NaN
    }
  }

  /** the returns of horizon `h` (an index of `HORIZONS`) of the signals with a price then and a close then */
  returns(h: number): Array<number> {
    const out: Array<number> = []
    const exits = this.exits[h]!
    for (let n = 0; n < this.size; n++) {
      const price = this.prices[n]!
      const exit = exits[n]!
      if (price > 0 && exit > 0) out.push(exit / price - 1)
    }
    return out
  }

  private grow(): void {
    this.prices = grown(this.prices, 2 * this.size)
    this.exits = this.exits.map((a) => grown(a, 2 * this.size))
  }
}

/** Per ticker (market slot) that had events: how many of each, the first and the last; as columns. */
class Tallies {
  private fires = new Int32Array(0)
  private clears = new Int32Array(0)
  private firstAt = new Float64Array(0)
  private lastAt = new Float64Array(0)

  add(id: number, fired: boolean, at: number): void {
    if (id >= this.fires.length) this.grow(id)
    if (this.fires[id] === 0 && this.clears[id] === 0) this.firstAt[id] = at
    if (fired) this.fires[id]!++
    else this.clears[id]!++
    this.lastAt[id] = at
  }

  /** the tickers with events, by slot */
  toMap(): Map<number, TickerTally> {
    const out = new Map<number, TickerTally>()
    for (let id = 0; id < this.fires.length; id++) {
      const fires = this.fires[id]!
      const clears = this.clears[id]!
      if (fires + clears > 0) out.set(id, { fires, clears, firstAt: this.firstAt[id]!, lastAt: this.lastAt[id]! })
    }
    return out
  }

  private grow(id: number): void {
    const size = Math.max(id + 1, this.fires.length * 2, 1_024)
    this.fires = grown(this.fires, size)
    this.clears = grown(this.clears, size)
    this.firstAt = grown(this.firstAt, size)
    this.lastAt = grown(this.lastAt, size)
  }
}

/** a copy of `a` with room for `size` values (the rest zero) */
const grown = <A extends Int32Array | Float64Array>(a: A, size: number): A => {
  const out = new (a.constructor as new (n: number) => A)(size)
  out.set(a)
  return out
}

/** How many events a replay keeps in full (the rest are counted). */
export const MAX_EVENTS = 500

export class Replay {
  private state: FiringState = EMPTY_FIRING
  private sequence = 0
  evaluations = 0
  eventCount = 0
  readonly events: Array<ReplayEvent> = []
  readonly signals = new Signals()
  private readonly tally = new Tallies()

  constructor(private readonly options: FiringOptions) {}

  /** per ticker (market slot) that had events: how many of each, the first and the last */
  tallies(): Map<number, TickerTally> {
    return this.tally.toMap()
  }

  /** Steps every ticker that matters at one evaluation; returns the events it caused. */
  step(e: Evaluation): ReadonlyArray<NumberedEvent> {
    this.evaluations++
    const step = stepFiring(this.options, this.state, e.matched, e.clear, e.at)
    this.state = step.state
    const events = numberEvents(step, this.sequence, false)
    if (events.length === 0) return events
    this.sequence = events[events.length - 1]!.sequence
    // the signals measured: entries when the rule fires on entry, else exits
    const measured = firesOnEnter(this.options) ? step.fired : step.cleared
    for (const id of measured) this.signals.record(e, id)
    for (const ev of events) {
      this.eventCount++
      if (this.events.length < MAX_EVENTS) {
        this.events.push({ at: e.at, sequence: ev.sequence, type: ev.type, tickers: ev.tickers, repeated: ev.repeated })
      }
      const fired = ev.type === "webhook.fired"
      for (const id of ev.tickers) this.tally.add(id, fired, e.at)
    }
    return events
  }
}

export interface ReturnStats {
  /** signals with a price then and a close `horizon` sessions later */
  readonly n: number
  /** mean and median return (0.012 = +1.2%); null when n = 0 */
  readonly mean: number | null
  readonly median: number | null
  /** share of those returns above 0; null when n = 0 */
  readonly hit_rate: number | null
}

/**
 * The forward returns of the replay's signals: per horizon, from the evaluated price to the close
 * `h` daily bars after the session evaluated (none when that bar does not exist yet).
 */
export const forwardReturns = (signals: Signals): Record<keyof typeof HORIZONS, ReturnStats> => {
  const out = {} as Record<keyof typeof HORIZONS, ReturnStats>
  for (const [i, name] of HORIZON_NAMES.entries()) out[name] = stats(signals.returns(i))
  return out
}

const stats = (list: Array<number>): ReturnStats => {
  const n = list.length
  if (n === 0) return { n, mean: null, median: null, hit_rate: null }
  // a typed array sorts numbers natively (a comparator over ~50,000 returns was most of a year's replay)
  const returns = Float64Array.from(list).sort()
  let sum = 0
  let hits = 0
  for (const r of returns) {
    sum += r
    if (r > 0) hits++
  }
  const median = n % 2 === 1 ? returns[(n - 1) / 2]! : (returns[n / 2 - 1]! + returns[n / 2]!) / 2
  return { n, mean: round(sum / n), median: round(median), hit_rate: round(hits / n) }
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6
