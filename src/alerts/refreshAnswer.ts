/**
 * `POST /admin/refresh` in a split deployment: the refresh is the next tick
 * (the process's market has refreshed to it, `FollowTicks`), answered once
 * every webhook slice has committed that tick (`slice_ticks`), whichever
 * runner holds it — or, after `SLICES_WAIT_MS`, not, naming the slices
 * still behind.
 */
import { Clock, Duration, Effect } from "effect"
import type { Market } from "../market/Market.js"
import type { Snapshot } from "../market/snapshot.js"
import type { Ticks } from "../store/ticks.js"
import type { EvaluationResult } from "./Alerts.js"
import { SLICES } from "./slice.js"

/** how long a refresh waits for every slice to evaluate its tick (ms) */
export const SLICES_WAIT_MS = 30_000
/** how often it looks (ms) */
const ANSWER_POLL_MS = 100

export const awaitSlices = (ticks: Ticks, market: Market, snapshot: Snapshot) =>
  Effect.gen(function* () {
    const tick = market.tickOf(snapshot) ?? (yield* ticks.at(snapshot.asOf)) ?? (yield* ticks.latest)
    if (tick === undefined) {
      return {
        asOf: snapshot.asOf,
        ok: false,
        evaluated: 0,
        fires: 0,
        error: "no refresh tick has been issued yet: is a runner running?"
      } satisfies EvaluationResult
    }
    const started = yield* Clock.currentTimeMillis
    for (;;) {
      const behind = yield* ticks.slicesBehind(tick.seq, SLICES)
      if (behind.length === 0) return { asOf: tick.asOf, ok: true, evaluated: 0, fires: 0 } satisfies EvaluationResult
      if ((yield* Clock.currentTimeMillis) - started >= SLICES_WAIT_MS) {
        return {
          asOf: tick.asOf,
          ok: false,
          evaluated: 0,
          fires: 0,
          behind,
          error: `${behind.length} of ${SLICES} webhook slices did not evaluate tick ${tick.seq} within ${SLICES_WAIT_MS / 1000} s`
        } satisfies EvaluationResult
      }
      yield* Effect.sleep(Duration.millis(ANSWER_POLL_MS))
    }
  }).pipe(
    Effect.catchAll((e) =>
      Effect.succeed({ asOf: snapshot.asOf, ok: false, evaluated: 0, fires: 0, error: String(e) } as EvaluationResult)
    )
  )
