/**
 * The event feeds' retention: every hour (on the Effect `Clock`), the events
 * older than `EVENT_RETENTION` are deleted. Runs in every process that
 * evaluates; several doing it at once delete each event once.
 */
import { Clock, Duration, Effect, Layer, Schedule } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { Readiness } from "../observability/Readiness.js"
import { WebhookEvents } from "../store/webhookEvents.js"

export const PRUNE_EVERY = Duration.hours(1)

export const EventRetentionLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const events = yield* WebhookEvents
    const readiness = yield* Readiness
    const retention = Duration.toMillis((yield* AppConfig).eventRetention)
    const prune = Effect.gen(function* () {
      const gone = yield* events.prune((yield* Clock.currentTimeMillis) - retention)
      if (gone > 0) yield* Effect.logInfo("pruned webhook events").pipe(Effect.annotateLogs({ events: gone }))
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("webhook events not pruned", cause)))
    yield* readiness
      .await("migrations")
      .pipe(Effect.zipRight(Effect.repeat(prune, Schedule.spaced(PRUNE_EVERY))), Effect.forkScoped)
  })
)
