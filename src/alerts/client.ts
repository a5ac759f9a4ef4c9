/**
 * `Alerts` in a process that evaluates nothing (`VIGIL_ROLE=api`): the
 * runners pick up webhook changes from the store on their next tick (rows
 * with a higher `version`), so a change needs no message; a refresh asked
 * for here (`POST /admin/refresh`) is answered once every webhook slice has
 * been evaluated, by whichever process holds it, for a refresh made after
 * the request (`slice_refreshes`).
 */
import { Clock, Duration, Effect, Layer, Metric, Schedule } from "effect"
import type { Snapshot } from "../market/snapshot.js"
import { EvaluatorState } from "../store/evaluatorState.js"
import { effectiveLastEvaluated, type WebhookRecord, Webhooks } from "../store/webhooks.js"
import { Alerts, type EvaluationResult } from "./Alerts.js"
import { actorRestarts } from "./actor.js"
import { SLICES } from "./slice.js"

/** how often the API process looks for the runners' answer (ms) */
const ANSWER_POLL_MS = 100

export const AlertsClient = Layer.effect(
  Alerts,
  Effect.gen(function* () {
    const stateStore = yield* EvaluatorState
    const webhooks = yield* Webhooks
    const afterRefresh = (snapshot: Snapshot): Effect.Effect<EvaluationResult> =>
      Effect.gen(function* () {
        const request = yield* stateStore.requestRefresh(yield* Clock.currentTimeMillis)
        yield* stateStore.slicesBehind(request, SLICES).pipe(
          Effect.repeat({
            schedule: Schedule.spaced(Duration.millis(ANSWER_POLL_MS)),
            until: (behind) => behind === 0
          })
        )
        return { asOf: snapshot.asOf, ok: true, evaluated: 0, fires: 0 } satisfies EvaluationResult
      }).pipe(
        Effect.catchAll((e) =>
          Effect.succeed({ asOf: snapshot.asOf, ok: false, evaluated: 0, fires: 0, error: String(e) })
        )
      )
    const none = (): Effect.Effect<void> => Effect.void
    const notHere = (): Effect.Effect<EvaluationResult> =>
      Effect.dieMessage("this process evaluates no webhooks (VIGIL_ROLE=api)")
    return Alerts.make({
      evaluate: notHere,
      awaitEvaluated: notHere,
      afterRefresh,
      changed: none,
      resync: Effect.void,
      own: none,
      deleted: none,
      lastEvaluated: (w: WebhookRecord) => Effect.map(webhooks.ticks, (ticks) => effectiveLastEvaluated(w, ticks)),
      lastCadenceAt: () => undefined,
      actorCount: Effect.succeed(0),
      restarts: Metric.value(actorRestarts),
      setFault: none
    })
  })
)
