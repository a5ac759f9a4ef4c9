/**
 * `Alerts` in a process that evaluates nothing (`VIGIL_ROLE=api`): the
 * runners pick up webhook changes from the store on their next tick (rows
 * with a higher `version`), so a change needs no message; a refresh asked
 * for here (`POST /admin/refresh`) is the next tick, answered once every
 * webhook slice has committed it (`refreshAnswer.ts`).
 */
import { Effect, Layer, Metric } from "effect"
import { Market } from "../market/Market.js"
import type { Snapshot } from "../market/snapshot.js"
import { Ticks } from "../store/ticks.js"
import { effectiveLastEvaluated, type WebhookRecord, Webhooks } from "../store/webhooks.js"
import { Alerts, type EvaluationResult } from "./Alerts.js"
import { actorRestarts } from "./actor.js"
import { awaitSlices } from "./refreshAnswer.js"

export const AlertsClient = Layer.effect(
  Alerts,
  Effect.gen(function* () {
    const ticks = yield* Ticks
    const market = yield* Market
    const webhooks = yield* Webhooks
    const none = (): Effect.Effect<void> => Effect.void
    const notHere = (): Effect.Effect<EvaluationResult> =>
      Effect.dieMessage("this process evaluates no webhooks (VIGIL_ROLE=api)")
    return Alerts.make({
      evaluate: notHere,
      awaitEvaluated: notHere,
      afterRefresh: (snapshot: Snapshot) => awaitSlices(ticks, market, snapshot),
      changed: none,
      resync: Effect.void,
      own: none,
      deleted: none,
      lastEvaluated: (w: WebhookRecord) => Effect.map(webhooks.ticks, (t) => effectiveLastEvaluated(w, t)),
      lastCadenceAt: () => undefined,
      actorCount: Effect.succeed(0),
      restarts: Metric.value(actorRestarts),
      setFault: none
    })
  })
)
