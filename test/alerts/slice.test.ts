/**
 * Actors and slices without a store: a failing step fails only its actor (its neighbours in the
 * slice and in the pair still step), restarts back off, adoption is guarded by the state sequence,
 * and groups known to hold their pair's matches are not stepped.
 */

import { describe, expect, it } from "@effect/vitest"
import { type Outcome, restartDelayMs, WebhookActor } from "../../src/alerts/actor.js"
import { DEFAULT_FIRING } from "../../src/alerts/firing/options.js"
import { Pairs } from "../../src/alerts/pairs.js"
import { Slice, TickSteps } from "../../src/alerts/slice.js"
import { EMPTY } from "../../src/alerts/tickerIds.js"

const config = (q: string, cadence: "realtime" | "hourly" = "realtime") => ({
  accountId: "acc_a",
  name: "n",
  q,
  universeId: null,
  cadence,
  channel: "in_app" as const,
  target: "in_app",
  fields: [],
  firing: DEFAULT_FIRING,
  plain: true,
  snoozedUntil: null
})
const actor = (id: string, q = "price > 10", cadence: "realtime" | "hourly" = "realtime") =>
  new WebhookActor(id, 0, config(q, cadence), {
    armedAt: 1,
    stateSeq: 0,
    lastSet: EMPTY,
    deltas: 0,
    eventSeq: 0,
    memory: new Map()
  })

const REALTIME = new Set(["realtime" as const])

describe("webhook actors and slices", () => {
  it("a step that throws fails its actor alone; restarts back off until a step succeeds", () => {
    const pairs = new Pairs((s) => s)
    const slice = new Slice(0)
    const [bad, good] = [actor("wh_bad"), actor("wh_good")]
    for (const a of [bad, good]) slice.add(a, pairs.join(pairs.compile(a.config.q)!, a.config))
    expect(pairs.size).toBe(1)
    const [pair] = pairs.due(1)
    pair!.result = Int32Array.of(3, 7)

    const steps = new TickSteps()
    slice.step(
      REALTIME,
      1,
      (id) => {
        if (id === "wh_bad") throw new Error("injected")
      },
      1_000,
      steps
    )
    expect(steps.failed.map((f) => f.actor.id)).toEqual(["wh_bad"])
    expect(steps.outcomes.map((o) => o?.id)).toEqual(["wh_good"])
    expect(Array.from(steps.outcomes[0]!.added)).toEqual([3, 7])
    expect(bad.state).toBeUndefined()
    expect(bad.retryAt).toBe(1_000 + restartDelayMs(0))
    expect(steps.evaluated).toBe(2)

    // restarting: not stepped (and the group is not taken as synced)
    const waiting = new TickSteps()
    slice.step(REALTIME, 1, undefined, 1_050, waiting)
    expect(waiting.stepped).toEqual([])
    expect(waiting.evaluated).toBe(2)

    // reloaded, it fails again: the backoff doubles; a success resets it
    bad.reset({ armedAt: 1, stateSeq: 0, lastSet: EMPTY, deltas: 0, eventSeq: 0, memory: new Map() })
    slice.step(
      REALTIME,
      1,
      (id) => {
        if (id === "wh_bad") throw new Error("again")
      },
      2_000,
      new TickSteps()
    )
    expect(bad.retryAt).toBe(2_000 + restartDelayMs(1))
    expect(restartDelayMs(1)).toBe(2 * restartDelayMs(0))
    bad.reset({ armedAt: 1, stateSeq: 0, lastSet: EMPTY, deltas: 0, eventSeq: 0, memory: new Map() })
    const ok = new TickSteps()
    slice.step(REALTIME, 1, undefined, 3_000, ok)
    expect(ok.outcomes.map((o) => o?.id)).toEqual(["wh_bad"])
    expect(bad.restarts).toBe(0)
    expect(restartDelayMs(40)).toBe(30_000)
  })

  it("adopts a committed set only under the sequence it was diffed at", () => {
    const a = actor("wh_a")
    const set = Int32Array.of(1)
    const diffed = (armedAt: number, stateSeq: number): Outcome => ({
      id: "wh_a",
      armedAt,
      stateSeq,
      matchSet: set,
      added: set,
      removed: EMPTY,
      deltas: 0,
      changed: true,
      events: [],
      eventSeq: 0,
      memory: undefined
    })
    a.adopt(diffed(1, 5), 0)
    expect(a.state!.lastSet).toBe(EMPTY)
    a.adopt(diffed(2, 0), 0)
    expect(a.state!.lastSet).toBe(EMPTY)
    a.adopt(diffed(1, 0), 3)
    expect(a.state).toMatchObject({ lastSet: set, stateSeq: 1, deltas: 3 })
  })

  it("steps only due actors whose pair's matches moved, and skips a group known to hold them", () => {
    const pairs = new Pairs((s) => s)
    const slice = new Slice(0)
    const rt = [actor("wh_1"), actor("wh_2")]
    const hourly = actor("wh_h", "price > 10", "hourly")
    for (const a of [...rt, hourly]) slice.add(a, pairs.join(pairs.compile(a.config.q)!, a.config))
    expect(pairs.size).toBe(1)
    const [pair] = pairs.due(1)
    pair!.result = Int32Array.of(2)
    const first = new TickSteps()
    slice.step(REALTIME, 1, undefined, 0, first)
    expect(first.stepped.map((a) => a.id).sort()).toEqual(["wh_1", "wh_2"])
    expect(first.evaluated).toBe(2)
    for (const o of first.outcomes) rt.find((a) => a.id === o!.id)!.adopt(o!, 0)
    // the same array: nobody is stepped again
    const second = new TickSteps()
    slice.step(REALTIME, 1, undefined, 0, second)
    expect(second.stepped).toEqual([])
    expect(second.evaluated).toBe(2)
    // an actor told its state was not stored is stepped again, alone
    slice.unsync(rt[0]!)
    const third = new TickSteps()
    slice.step(REALTIME, 1, undefined, 0, third)
    expect(third.stepped.map((a) => a.id)).toEqual(["wh_1"])
    expect(third.outcomes).toEqual([]) // it holds the set already: nothing changed
    // removing the last member of each cadence forgets the pair
    for (const a of [...rt, hourly]) {
      const p = slice.remove(a)
      if (p !== undefined) pairs.leave(p, a.config.cadence)
    }
    expect(pairs.size).toBe(0)
    expect(slice.size).toBe(0)
  })
})
