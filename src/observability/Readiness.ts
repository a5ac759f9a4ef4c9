/**
 * Readiness: `/readyz` answers 200 once every required condition is met
 * (migrations ran; the first market snapshot is published). Services can also
 * wait for a condition (the market waits for the migrations).
 */
import { Deferred, Effect, Ref } from "effect"

export type ReadinessCondition = "migrations" | "market_snapshot" | "cluster"

const ALL: ReadonlyArray<ReadinessCondition> = ["migrations", "market_snapshot", "cluster"]

export class Readiness extends Effect.Service<Readiness>()("vigil/Readiness", {
  effect: Effect.gen(function* () {
    const required = yield* Ref.make<ReadonlySet<ReadinessCondition>>(new Set<ReadinessCondition>(["migrations"]))
    const done = new Map<ReadinessCondition, Deferred.Deferred<void>>()
    for (const c of ALL) done.set(c, yield* Deferred.make<void>())
    const pending = Effect.gen(function* () {
      const out = new Set<ReadinessCondition>()
      for (const c of yield* Ref.get(required)) if (!(yield* Deferred.isDone(done.get(c)!))) out.add(c)
      return out as ReadonlySet<ReadinessCondition>
    })
    return {
      /** adds a condition that must be met before the service is ready */
      require: (c: ReadinessCondition) => Ref.update(required, (s) => new Set([...s, c])),
      markReady: (c: ReadinessCondition) => Deferred.succeed(done.get(c)!, undefined),
      /** waits until `c` is met */
      await: (c: ReadinessCondition) => Deferred.await(done.get(c)!),
      pending,
      isReady: Effect.map(pending, (s) => s.size === 0)
    } as const
  })
}) {}
