/**
 * Wakes the delivery workers when new deliveries are queued in this process,
 * so a fire is sent at once rather than at the next poll. Deliveries queued
 * by other instances are found by the workers' regular poll.
 */
import { Effect, Queue } from "effect"

export class DeliveryWake extends Effect.Service<DeliveryWake>()("vigil/DeliveryWake", {
  effect: Effect.gen(function* () {
    const signals = yield* Queue.sliding<void>(1)
    return {
      /** signals that deliveries are due */
      wake: Queue.offer(signals, undefined).pipe(Effect.asVoid),
      /** waits for a signal */
      next: Queue.take(signals)
    } as const
  })
}) {}
