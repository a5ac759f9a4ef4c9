/**
 * Runners share the webhook slices through @effect/cluster (`VIGIL_ROLE=runner`).
 *
 * The cluster places, and runs one singleton: runners register in PostgreSQL (`SqlRunnerStorage`,
 * tables `cluster_*`), each computes the shard assignment over the runners (a hash ring) and holds
 * its shards with lock rows (`cluster_locks`, renewed every 2 s, taken over 6 s after their last
 * renewal); slice `n` lives on the shard of entity id `n`. Every 200 ms a runner asks which slices'
 * shards it holds and hands the set to `Alerts.own`, which loads the slices it gained from the
 * store and drops those it lost. The refresh tick is a cluster `Singleton` (`tickDriver.ts`) that
 * writes each tick to the store; runners read it there rather than receive it as messages: each
 * message costs ~0.25 ms of CPU, 1,024 of them per tick as much as the evaluation itself
 * (docs/scaling.md).
 *
 * Failover (measured, docs/scaling.md): lock expiration 6 s, lock refresh 2 s, health check 2 s,
 * assignments refreshed every second. The transport listens on `RUNNER_HOST:RUNNER_PORT`, given
 * explicitly (the cluster's own configuration would read `HOST`/`PORT`, Vigil's HTTP settings).
 */
import { EntityId, RunnerAddress, Sharding, Singleton } from "@effect/cluster"
import { NodeClusterSocket } from "@effect/platform-node"
import type { SqlClient } from "@effect/sql"
import { Cause, Deferred, Duration, Effect, Layer, Metric, Option, Schedule } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { Fatal } from "../Fatal.js"
import { Readiness } from "../observability/Readiness.js"
import type { Ticks } from "../store/ticks.js"
import type { Webhooks } from "../store/webhooks.js"
import { Alerts } from "./Alerts.js"
import { SLICES } from "./slice.js"
import { singletonHere, tickDriver } from "./tickDriver.js"

/** how often a runner compares the slices it holds with the cluster's assignment (ms) */
const FOLLOW_MS = 200

/** The cluster runner of this process, on the shared PostgreSQL (needs the `SqlClient`). */
export const ClusterRunnerLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    NodeClusterSocket.layer({
      storage: "sql",
      shardingConfig: {
        runnerAddress: Option.some(RunnerAddress.make(config.runnerHost, config.runnerPort)),
        // lock rows in the schema's own `cluster_locks`: advisory lock numbers are database-wide in
        // this version (one cluster per database), rows keep clusters in different schemas apart
        shardLockDisableAdvisory: true,
        // a lock operation must finish within min(refresh, expiration / 3) or the runner drops
        // every shard: 1 s was missed while three processes loaded their markets on two cores
        shardLockExpiration: Duration.seconds(6),
        shardLockRefreshInterval: Duration.seconds(2),
        runnerHealthCheckInterval: Duration.seconds(2),
        refreshAssignmentsInterval: Duration.seconds(1)
      }
    })
  )
)

/** Keeps `Alerts` holding exactly the slices whose shards this runner holds. */
const SlicePlacementLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const sharding = yield* Sharding.Sharding
    const alerts = yield* Alerts
    const readiness = yield* Readiness
    const shards = Array.from({ length: SLICES }, (_, n) => sharding.getShardId(EntityId.make(String(n)), "default"))
    let held = ""
    const follow = Effect.suspend(() => {
      const now = new Set<number>()
      for (let n = 0; n < SLICES; n++) if (sharding.hasShardId(shards[n]!)) now.add(n)
      const key = [...now].join(",")
      if (key === held) return Effect.void
      return alerts.own(now).pipe(
        Effect.zipRight(
          Effect.suspend(() => {
            held = key
            return Effect.logInfo("webhook slices held").pipe(Effect.annotateLogs({ slices: now.size }))
          })
        ),
        Effect.zipRight(readiness.markReady("cluster")),
        Effect.asVoid
      )
    })
    yield* Effect.forkScoped(
      Effect.repeat(
        follow.pipe(Effect.catchAllCause((cause) => Effect.logWarning("webhook slices not followed", cause))),
        Schedule.spaced(Duration.millis(FOLLOW_MS))
      )
    )
  })
)

/** A failure's message and its cause's (a socket server's failure wraps the system error), on one line. */
const causeSummary = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  if (!(error instanceof Error)) return String(error)
  const inner = error.cause instanceof Error ? `: ${error.cause.message}` : ""
  return `${error.message}${inner}`
}

/** The refresh tick, one fiber cluster-wide (`tickDriver.ts`). */
const TickSingletonLive = Singleton.make("vigil-refresh-tick", tickDriver)

/**
 * A runner joins the cluster once its market is loaded: building the market keeps the event loop
 * busy for seconds at a time, and a runner whose shard-lock renewals miss their deadline drops
 * every shard (seen with three processes starting on two cores). Its `/readyz` waits for the join
 * (`cluster`) as well as the market.
 */
export const RunnerPlacementLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const readiness = yield* Readiness
    const fatal = yield* Fatal
    const config = yield* AppConfig
    yield* readiness.require("cluster")
    // 0 until the singleton starts here (every runner shows where it runs)
    yield* Metric.set(singletonHere, 0)
    const context = yield* Effect.context<Alerts | Readiness | AppConfig | SqlClient.SqlClient | Ticks | Webhooks>()
    yield* Effect.forkScoped(
      readiness.await("market_snapshot").pipe(
        Effect.zipRight(
          Layer.launch(Layer.merge(SlicePlacementLive, TickSingletonLive).pipe(Layer.provide(ClusterRunnerLive)))
        ),
        Effect.provide(context),
        // a runner that cannot join (its transport's port taken, say) would never be ready: it stops,
        // naming the address, so that its supervisor sees a failed start rather than a silent one
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.void
            : Effect.logError("the runner could not join the cluster", cause).pipe(
                Effect.zipRight(
                  Deferred.fail(
                    fatal,
                    new Error(
                      `the runner could not join the cluster on its transport address RUNNER_HOST=${config.runnerHost} RUNNER_PORT=${config.runnerPort}: ${causeSummary(cause)}`
                    )
                  )
                )
              )
        )
      )
    )
  })
)
