/**
 * The alert state machine against a reference model written here, independently: random match
 * sequences, random options, restarts from the stored state (through its stored text, with ticker
 * ids handed out afresh, as a new process would), evaluations lost before their commit and run
 * again, snoozes. Same events, sequences gap-free, nothing twice.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  decodeMemory,
  EMPTY_FIRING,
  encodeMemory,
  type FiringState,
  memoryOf,
  numberEvents,
  phaseOf,
  stepFiring,
  tickerState
} from "../../../src/alerts/firing/machine.js"
import { DEFAULT_FIRING, durationMs, formatDuration } from "../../../src/alerts/firing/options.js"
import { TickerIds } from "../../../src/alerts/tickerIds.js"
import type { FiringOptions } from "../../../src/store/webhooks.js"

const MIN = 60_000
const TICKERS = ["AAA", "BB.B", "CCC", "DDD", "EEE"]

// ---- the reference model: one record per ticker, stepped in the most direct way ----

type RefTicker =
  | { kind: "out"; pendingFrom: number | null; lastFire: number | null }
  | { kind: "in"; told: boolean; lastSent: number | null; lastFire: number | null }

interface RefEvent {
  readonly sequence: number
  readonly type: "webhook.fired" | "webhook.cleared"
  readonly tickers: ReadonlyArray<string>
  readonly repeated: ReadonlyArray<string>
  readonly suppressed: boolean
}

class Reference {
  readonly tickers = new Map<string, RefTicker>(
    TICKERS.map((t) => [t, { kind: "out", pendingFrom: null, lastFire: null }])
  )
  sequence = 0
  constructor(readonly o: FiringOptions) {}

  evaluate(
    now: number,
    matching: ReadonlySet<string>,
    clearing: ReadonlySet<string>,
    snoozed: boolean
  ): Array<RefEvent> {
    const o = this.o
    const enterEvents = o.fireOn === "enter" || o.fireOn === "both"
    const exitEvents = o.fireOn === "exit" || o.fireOn === "both"
    const entered: Array<string> = []
    const repeats: Array<string> = []
    const left: Array<string> = []
    for (const name of TICKERS) {
      const t = this.tickers.get(name)!
      const m = matching.has(name)
      if (t.kind === "in") {
        const leaves = o.clearQ !== null ? clearing.has(name) : !m
        if (leaves) {
          if (t.told && exitEvents) left.push(name)
          this.tickers.set(name, { kind: "out", pendingFrom: null, lastFire: t.lastFire })
        } else if (t.told && enterEvents && o.repeatMs !== null) {
          if (t.lastSent === null) t.lastSent = now
          else if (now - t.lastSent >= o.repeatMs) {
            repeats.push(name)
            t.lastSent = now
          }
        }
        continue
      }
      if (!m) {
        t.pendingFrom = null
        continue
      }
      const from = t.pendingFrom ?? now
      if (now - from < o.pendingMs) {
        t.pendingFrom = from
        continue
      }
      const cooling = t.lastFire !== null && now - t.lastFire < o.cooldownMs
      if (cooling) {
        this.tickers.set(name, { kind: "in", told: false, lastSent: null, lastFire: t.lastFire })
      } else {
        this.tickers.set(name, { kind: "in", told: true, lastSent: now, lastFire: now })
        if (enterEvents) entered.push(name)
      }
    }
    const out: Array<RefEvent> = []
    if (entered.length + repeats.length > 0) {
      out.push({
        sequence: ++this.sequence,
        type: "webhook.fired",
        tickers: [...entered, ...repeats],
        repeated: repeats,
        suppressed: snoozed
      })
    }
    if (left.length > 0) {
      out.push({ sequence: ++this.sequence, type: "webhook.cleared", tickers: left, repeated: [], suppressed: snoozed })
    }
    return out
  }

  insideNow(): Array<string> {
    return TICKERS.filter((t) => this.tickers.get(t)!.kind === "in")
  }
}

// ---- the machine as the evaluator runs it: state stored as text, ids per process ----

interface Stored {
  readonly inside: ReadonlyArray<string>
  readonly memory: string
  readonly sequence: number
}

class Process {
  ids = new TickerIds()
  state: FiringState = EMPTY_FIRING
  sequence = 0
  constructor(readonly o: FiringOptions) {
    for (const t of TICKERS) this.ids.idOf(t)
  }

  /** a new process: ids handed out in another order, the state read back from the store */
  static restart(o: FiringOptions, stored: Stored, order: ReadonlyArray<string>): Process {
    const p = new Process(o)
    p.ids = new TickerIds()
    for (const t of order) p.ids.idOf(t)
    p.state = {
      inside: p.ids.sortedIds(stored.inside),
      memory: decodeMemory(stored.memory, (n) => p.ids.idOf(n))
    }
    p.sequence = stored.sequence
    return p
  }

  evaluate(now: number, matching: ReadonlySet<string>, clearing: ReadonlySet<string>, snoozed: boolean) {
    const matched = this.ids.sortedIds([...matching])
    const clearSet = this.o.clearQ === null ? undefined : this.ids.sortedIds([...clearing])
    const step = stepFiring(this.o, this.state, matched, clearSet, now)
    const events = numberEvents(step, this.sequence, snoozed).map(
      (e): RefEvent => ({
        sequence: e.sequence,
        type: e.type,
        tickers: [...e.tickers].map((id) => this.ids.nameOf(id)).sort(),
        repeated: [...e.repeated].map((id) => this.ids.nameOf(id)).sort(),
        suppressed: e.suppressed
      })
    )
    return { step, events }
  }

  /** the commit: the step's state becomes this process's and the store's */
  commit(r: ReturnType<Process["evaluate"]>): Stored {
    this.state = r.step.state
    this.sequence = r.events.at(-1)?.sequence ?? this.sequence
    return this.stored()
  }

  stored(): Stored {
    return {
      inside: this.ids.namesOf(this.state.inside),
      memory: encodeMemory(this.state.memory, (id) => this.ids.nameOf(id)),
      sequence: this.sequence
    }
  }
}

const normalize = (events: ReadonlyArray<RefEvent>) =>
  events.map((e) => ({ ...e, tickers: [...e.tickers].sort(), repeated: [...e.repeated].sort() }))

const options = fc.record({
  fireOn: fc.constantFrom("enter" as const, "exit" as const, "both" as const),
  pendingMs: fc.constantFrom(0, MIN, 5 * MIN),
  clearQ: fc.constantFrom(null, "rsi_14 > 40"),
  cooldownMs: fc.constantFrom(0, 2 * MIN, 10 * MIN),
  repeatMs: fc.constantFrom(null, MIN, 3 * MIN)
})

const evaluation = fc.record({
  gapMs: fc.constantFrom(10_000, MIN, MIN, 2 * MIN, 7 * MIN),
  matching: fc.subarray(TICKERS),
  clearing: fc.subarray(TICKERS),
  snoozed: fc.boolean(),
  /** the process restarts before this evaluation, from the stored state */
  restart: fc.integer({ min: 0, max: 9 }),
  /** the evaluation's commit is lost (a crash): it is evaluated again after a restart */
  lost: fc.integer({ min: 0, max: 9 })
})

describe("the alert state machine", () => {
  it("gives the reference model's events, gap-free, across restarts and lost commits", () => {
    fc.assert(
      fc.property(
        options,
        fc.array(evaluation, { minLength: 1, maxLength: 60 }),
        fc.array(fc.shuffledSubarray(TICKERS, { minLength: TICKERS.length })),
        (o, evals, orders) => {
          const reference = new Reference(o)
          let process = new Process(o)
          let stored = process.stored()
          let restarts = 0
          const received: Array<RefEvent> = []
          const expected: Array<RefEvent> = []
          let now = Date.UTC(2026, 10, 27, 14, 30)
          for (const e of evals) {
            now += e.gapMs
            const matching = new Set(e.matching)
            const clearing = new Set(e.clearing)
            expected.push(...reference.evaluate(now, matching, clearing, e.snoozed))
            if (e.restart === 0)
              process = Process.restart(o, stored, orders[restarts++ % Math.max(orders.length, 1)] ?? TICKERS)
            let r = process.evaluate(now, matching, clearing, e.snoozed)
            if (e.lost === 0) {
              // nothing of it was stored: a new process evaluates the same tick again from the store
              process = Process.restart(o, stored, [...TICKERS].reverse())
              r = process.evaluate(now, matching, clearing, e.snoozed)
            }
            stored = process.commit(r)
            received.push(...r.events)
            expect(stored.inside).toEqual(reference.insideNow())
          }
          expect(normalize(received)).toEqual(normalize(expected))
          expect(received.map((ev) => ev.sequence)).toEqual(received.map((_, i) => i + 1))
        }
      ),
      { numRuns: 400 }
    )
  })

  it("without pending, cooldown, repeat or clear_q is the plain diff: fired = newly matching, cleared = no longer, inside = matching, no memory", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("enter" as const, "exit" as const, "both" as const),
        fc.array(fc.subarray(TICKERS), { minLength: 1, maxLength: 30 }),
        (fireOn, sets) => {
          const o = { ...DEFAULT_FIRING, fireOn }
          const ids = new TickerIds()
          for (const t of TICKERS) ids.idOf(t)
          let state = EMPTY_FIRING
          let previous: ReadonlyArray<string> = []
          let now = 0
          for (const set of sets) {
            now += MIN
            const step = stepFiring(o, state, ids.sortedIds(set), undefined, now)
            const entered = set.filter((t) => !previous.includes(t)).sort()
            const left = previous.filter((t) => !set.includes(t)).sort()
            expect(ids.namesOf(step.fired)).toEqual(fireOn === "exit" ? [] : entered)
            expect(ids.namesOf(step.cleared)).toEqual(fireOn === "enter" ? [] : left)
            expect(step.repeated.length).toBe(0)
            expect(ids.namesOf(step.state.inside)).toEqual([...set].sort())
            expect(step.state.memory.size).toBe(0)
            expect(step.changed).toBe(set.length !== previous.length || set.some((t) => !previous.includes(t)))
            state = step.state
            previous = set
          }
        }
      )
    )
  })

  it("RSI under 30, out above 40, at most once a day: hysteresis and cooldown on one ticker", () => {
    const o: FiringOptions = { ...DEFAULT_FIRING, fireOn: "both", clearQ: "rsi_14 > 40", cooldownMs: 86_400_000 }
    const ids = new TickerIds()
    const a = ids.sortedIds(["AAPL"])
    let state = EMPTY_FIRING
    const step = (t: number, rsi: number) => {
      const r = stepFiring(o, state, rsi < 30 ? a : new Int32Array(0), rsi > 40 ? a : new Int32Array(0), t * MIN)
      state = r.state
      return `${r.fired.length ? "fired" : ""}${r.cleared.length ? "cleared" : ""}`
    }
    expect(step(1, 28)).toBe("fired")
    expect(step(2, 35)).toBe("") // q false, but clear_q not yet: still inside
    expect(phaseOf(o, tickerState(true, state.memory.get(a[0]!)), 2 * MIN)).toBe("inside")
    expect(step(3, 41)).toBe("cleared")
    expect(phaseOf(o, tickerState(false, state.memory.get(a[0]!)), 3 * MIN)).toBe("cooling")
    expect(step(4, 29)).toBe("") // re-entry within the day: absorbed
    expect(step(5, 45)).toBe("") // its exit was never announced either
    expect(step(24 * 60 + 2, 20)).toBe("fired") // a day after the fire
  })

  it("pending_for: fires only after matching on every evaluation for the duration", () => {
    const o: FiringOptions = { ...DEFAULT_FIRING, pendingMs: 5 * MIN }
    const ids = new TickerIds()
    const a = ids.sortedIds(["AAPL"])
    let state = EMPTY_FIRING
    const at = (minute: number, matches: boolean) => {
      const r = stepFiring(o, state, matches ? a : new Int32Array(0), undefined, minute * MIN)
      state = r.state
      return r.fired.length > 0
    }
    expect([31, 32, 33].map((m) => at(m, true))).toEqual([false, false, false])
    expect(at(34, false)).toBe(false) // broke the run: starts over
    expect([35, 36, 37, 38, 39].map((m) => at(m, true))).toEqual([false, false, false, false, false])
    expect(phaseOf(o, tickerState(false, state.memory.get(a[0]!)), 39 * MIN)).toBe("pending")
    expect(at(40, true)).toBe(true)
  })

  it("reads one ticker's stored memory (memoryOf) as decodeMemory reads all of them", () => {
    const memory = new Map([
      [0, { pendingSince: 5, firedAt: null, sentAt: null, announced: false }],
      [1, { pendingSince: null, firedAt: 7, sentAt: 9, announced: true }]
    ])
    const names = ["BRK.A", "BRK"]
    const text = encodeMemory(memory, (id) => names[id]!)
    expect(memoryOf(text, "BRK")).toEqual(memory.get(1))
    expect(memoryOf(text, "BRK.A")).toEqual(memory.get(0))
    expect(memoryOf(text, "BR")).toBeUndefined()
    expect(memoryOf("", "BRK")).toBeUndefined()
    expect(decodeMemory(text, (n) => names.indexOf(n))).toEqual(memory)
  })

  it("parses and formats durations", () => {
    expect(durationMs("0s")).toBe(0)
    expect(durationMs("90s")).toBe(90_000)
    expect(durationMs("15m")).toBe(900_000)
    expect(durationMs("2h")).toBe(7_200_000)
    expect(durationMs("1d")).toBe(86_400_000)
    for (const bad of ["", "5", "1w", "-1m", "1.5h", "m", "1 m"]) expect(durationMs(bad)).toBeUndefined()
    expect(formatDuration(90_000)).toBe("90s")
    expect(formatDuration(900_000)).toBe("15m")
    expect(formatDuration(86_400_000)).toBe("1d")
    expect(formatDuration(0)).toBe("0s")
  })
})
