/**
 * The refresh-tick singleton on a cluster runner (`TestRunner`: a single runner with in-memory
 * storage; live clock — under `TestClock` the runner never acquires its shards): it runs, issues a
 * first tick into the store at once, and answers each refresh asked for with the next tick — once
 * every slice has committed the previous one, or TICK_WAIT_FOR_SLICES_MS after it.
 */
import { Singleton, TestRunner } from "@effect/cluster"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer, Metric } from "effect"
import { SLICES } from "../../src/alerts/slice.js"
import { singletonHere, TICK_WAIT_FOR_SLICES_MS, tickDriver } from "../../src/alerts/tickDriver.js"
import { AppConfig } from "../../src/config/AppConfig.js"
import { EvaluatorState } from "../../src/store/evaluatorState.js"
import { type Tick, Ticks } from "../../src/store/ticks.js"
import { Webhooks } from "../../src/store/webhooks.js"
import { backends } from "../support/backends.js"

const pglite = backends()[0]!

/** polls `get` every 50 ms until `until` holds (at most `ms`) */
const waitFor = <A, E, R>(get: Effect.Effect<A, E, R>, until: (a: A) => boolean, ms = 10_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + ms
    for (;;) {
      const a = yield* get
      if (until(a) || Date.now() > deadline) return a
      yield* Effect.sleep("50 millis")
    }
  })

describe("the refresh-tick singleton on a cluster runner", () => {
  it.live(
    "issues ticks into the store: a refresh asked for is the next tick, once the slices committed the last",
    () =>
      Effect.gen(function* () {
        const ticks = yield* Ticks
        const store = yield* EvaluatorState
        // the first tick at once (none stored yet)
        const first = yield* waitFor(ticks.latest, (t) => t !== undefined)
        expect(first?.seq).toBe(1)
        expect(first?.due).toContain("realtime")
        expect((yield* Metric.value(singletonHere)).value).toBe(1)
        // REFRESH_INTERVAL is 1 h: a tick now is a refresh asked for. No runner commits the ticks
        // here, so the next one waits for the slices, TICK_WAIT_FOR_SLICES_MS at most
        const r1 = yield* ticks.requestRefresh(Date.now())
        const second = yield* waitFor(ticks.answering(r1), (t) => t !== undefined)
        expect(second?.seq).toBe(2)
        expect(second!.asOf - first!.asOf).toBeGreaterThanOrEqual(TICK_WAIT_FOR_SLICES_MS)
        // slices committing each tick (as runners do): a refresh asked for is the next tick, at once
        const every = Array.from({ length: SLICES }, (_, n) => n)
        yield* Effect.forkScoped(
          Effect.forever(
            Effect.gen(function* () {
              const t = yield* ticks.latest
              if (t !== undefined) {
                yield* store.commitTick(t.asOf, [], [], [], undefined, { ...t, slices: every, record: true })
              }
              yield* Effect.sleep("50 millis")
            })
          )
        )
        yield* waitFor(ticks.slicesBehind(2, SLICES), (behind) => behind.length === 0)
        const asked = Date.now()
        const r2 = yield* ticks.requestRefresh(asked)
        const third: Tick | undefined = yield* waitFor(ticks.answering(r2), (t) => t !== undefined)
        expect(third?.seq).toBe(3)
        expect(third!.asOf - asked).toBeLessThan(TICK_WAIT_FOR_SLICES_MS)
      }).pipe(
        Effect.scoped,
        Effect.provide(
          Singleton.make("vigil-refresh-tick", tickDriver).pipe(
            Layer.provideMerge(Layer.mergeAll(Ticks.Default, Webhooks.Default, EvaluatorState.Default)),
            Layer.provideMerge(TestRunner.layer),
            Layer.provideMerge(pglite.layer()),
            Layer.provideMerge(AppConfig.layerWith({ refreshInterval: Duration.hours(1) }))
          )
        )
      ),
    30_000
  )
})
