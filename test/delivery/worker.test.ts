/**
 * The delivery worker against a real queue (PGlite, and PostgreSQL when
 * DATABASE_URL is set) with a fake transport, in simulated time: the whole
 * retry schedule to `permanent_failure` and disabling, Retry-After within
 * bounds, 410 Gone, test pings, and a restart in the middle of a delivery.
 */

import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Layer, Queue, Scope, TestClock } from "effect"
import { DEFAULT_FIRING } from "../../src/alerts/firing/options.js"
import { AppConfig } from "../../src/config/AppConfig.js"
import { PushGateway } from "../../src/delivery/push.js"
import { DeliveryTransport, type PostResult } from "../../src/delivery/transport.js"
import { DeliveryWake } from "../../src/delivery/wake.js"
import { DeliveryPollInterval, DeliveryWorker, LEASE_MS } from "../../src/delivery/worker.js"
import { Readiness } from "../../src/observability/Readiness.js"
import { Deliveries } from "../../src/store/deliveries.js"
import { Webhooks } from "../../src/store/webhooks.js"
import { backends } from "../support/backends.js"

interface Call {
  readonly at: number
  readonly url: string
  readonly headers: Record<string, string>
}

const ok = (status: number, retryAfterSeconds: number | null = null): PostResult => ({
  status,
  retryAfterSeconds,
  error: null,
  durationMs: 1
})

/** A transport that records every POST and answers with the next scripted status (the last one repeats). */
const fakeTransport = (script: Array<PostResult>, calls: Queue.Queue<Call>) =>
  Layer.succeed(DeliveryTransport, {
    post: (url, headers) =>
      Effect.gen(function* () {
        const at = yield* Clock.currentTimeMillis
        yield* Queue.offer(calls, { at, url, headers })
        return script.length > 1 ? script.shift()! : script[0]!
      }),
    activeHosts: () => 0
  })

const setup = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_w', 'pro', 1, 1)`
  const created = yield* (yield* Webhooks).create(
    "acc_w",
    "wh_test",
    {
      name: "n",
      q: "price > 1",
      universeId: null,
      cadence: "realtime",
      channel: "webhook",
      targetUrl: "https://hooks.example.com/in",
      chatUrl: null,
      deviceId: null,
      signingSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      fields: [],
      origin: { type: "query", ref: null, condition: "price > 1" },
      firing: DEFAULT_FIRING
    },
    null
  )
  if (created._tag !== "Created") throw new Error("not created")
})

const enqueue = (id: string, test = false) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    yield* (yield* Deliveries).enqueue([
      {
        id,
        webhookId: "wh_test",
        accountId: "acc_w",
        event: "webhook.fired",
        eventId: `msg_${id}`,
        channel: "webhook",
        targetUrl: "https://hooks.example.com/in",
        test,
        payload: JSON.stringify({ type: "webhook.fired", data: { test } }),
        dueAt: now
      }
    ])
    yield* (yield* DeliveryWake).wake
  })

/** The stores on a fresh database, ready; the worker is started separately so a test can restart it. */
const storesLayer = (db: ReturnType<ReturnType<typeof backends>[number]["layer"]>) =>
  Layer.mergeAll(
    Deliveries.Default,
    Webhooks.Default,
    DeliveryWake.Default,
    PushGateway.recording,
    // no other instance queues deliveries here: the worker sleeps until the next one is due
    Layer.succeed(DeliveryPollInterval, 3_600_000)
  ).pipe(
    Layer.provideMerge(
      Layer.effectDiscard(Effect.flatMap(Readiness, (r) => r.markReady("migrations"))).pipe(
        Layer.provideMerge(Readiness.Default)
      )
    ),
    Layer.provideMerge(AppConfig.layerWith()),
    Layer.provideMerge(db)
  )

/** Lets forked fibers and the database catch up without moving the clock (50 ms was too short on a loaded machine). */
const settle = Effect.promise(() => new Promise((r) => setTimeout(r, 150)))

const record = (id: string) => Effect.flatMap(Deliveries, (d) => d.get("acc_w", "wh_test", id))

/**
 * Waits (real time, at most 3 s) until the worker has recorded the outcome of its attempt made at
 * `at` — a final status, or the lease given back with a later due time — so that moving the clock
 * next cannot expire the attempt's lease before its outcome is written (the delivery would be taken
 * again, as from a worker that died).
 */
const recorded = (id: string, at: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < 150; i++) {
      const d = yield* record(id)
      if (d != null && (d.status !== "pending" || d.dueAt > at)) return
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 20)))
    }
    return yield* Effect.dieMessage(`delivery ${id}: the outcome of the attempt at ${at} was not recorded within 3 s`)
  })

for (const backend of backends()) {
  describe(`delivery worker (${backend.name})`, () => {
    it.scoped(
      "follows the retry schedule (30s, 2m, 10m, 1h, 6h) to permanent_failure, then disables the webhook",
      () =>
        Effect.gen(function* () {
          const calls = yield* Queue.unbounded<Call>()
          const worker = DeliveryWorker.Default.pipe(Layer.provide(fakeTransport([ok(500)], calls)))
          yield* Effect.gen(function* () {
            yield* setup
            yield* enqueue("dlv_a")
            const times: Array<number> = [(yield* Queue.take(calls)).at]
            for (const delay of [30_000, 120_000, 600_000, 3_600_000, 21_600_000]) {
              yield* recorded("dlv_a", times[times.length - 1]!)
              // one second short of the delay: nothing
              yield* TestClock.adjust(delay - 1_000)
              yield* settle
              expect(yield* Queue.size(calls)).toBe(0)
              yield* TestClock.adjust(1_000)
              times.push((yield* Queue.take(calls)).at)
            }
            expect(times.map((t, i) => (i === 0 ? 0 : t - times[i - 1]!))).toEqual([
              0, 30_000, 120_000, 600_000, 3_600_000, 21_600_000
            ])
            yield* recorded("dlv_a", times[times.length - 1]!)
            const d = yield* record("dlv_a")
            expect(d).toMatchObject({ status: "permanent_failure", attempt: 6, lastStatusCode: 500 })
            const w = yield* (yield* Webhooks).getById("wh_test")
            expect(w).toMatchObject({ status: "disabled", disabledReason: "delivery_failed" })
            // no seventh POST
            yield* TestClock.adjust(86_400_000)
            yield* settle
            expect(yield* Queue.size(calls)).toBe(0)
          }).pipe(Effect.provide(worker))
        }).pipe(Effect.provide(storesLayer(backend.layer()))),
      60_000
    )

    it.scoped(
      "signs every attempt afresh with the same id, honours Retry-After within bounds, delivers on a 2xx",
      () =>
        Effect.gen(function* () {
          const calls = yield* Queue.unbounded<Call>()
          // 503 asking for 300 s (beyond the 30 s step, within the 6 h maximum), then success
          const worker = DeliveryWorker.Default.pipe(Layer.provide(fakeTransport([ok(503, 300), ok(204)], calls)))
          yield* Effect.gen(function* () {
            yield* setup
            yield* TestClock.adjust(5_000)
            yield* enqueue("dlv_b")
            const first = yield* Queue.take(calls)
            yield* recorded("dlv_b", first.at)
            yield* TestClock.adjust(299_000)
            yield* settle
            expect(yield* Queue.size(calls)).toBe(0)
            yield* TestClock.adjust(1_000)
            const second = yield* Queue.take(calls)
            expect(second.at - first.at).toBe(300_000)
            expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"])
            expect(second.headers["webhook-timestamp"]).not.toBe(first.headers["webhook-timestamp"])
            expect(second.headers["webhook-signature"]).not.toBe(first.headers["webhook-signature"])
            yield* recorded("dlv_b", second.at)
            expect(yield* record("dlv_b")).toMatchObject({ status: "delivered", attempt: 2, lastStatusCode: 204 })
          }).pipe(Effect.provide(worker))
        }).pipe(Effect.provide(storesLayer(backend.layer()))),
      60_000
    )

    it.scoped(
      "a 410 Gone disables at once; a failing test ping is sent once and disables nothing",
      () =>
        Effect.gen(function* () {
          const calls = yield* Queue.unbounded<Call>()
          const worker = DeliveryWorker.Default.pipe(Layer.provide(fakeTransport([ok(500), ok(410)], calls)))
          yield* Effect.gen(function* () {
            yield* setup
            yield* enqueue("dlv_ping", true)
            yield* recorded("dlv_ping", (yield* Queue.take(calls)).at)
            yield* TestClock.adjust(86_400_000)
            yield* settle
            expect(yield* Queue.size(calls)).toBe(0)
            expect(yield* record("dlv_ping")).toMatchObject({ status: "permanent_failure", attempt: 1 })
            expect((yield* (yield* Webhooks).getById("wh_test"))?.status).toBe("active")
            yield* enqueue("dlv_gone")
            yield* recorded("dlv_gone", (yield* Queue.take(calls)).at)
            expect(yield* record("dlv_gone")).toMatchObject({ status: "permanent_failure", lastStatusCode: 410 })
            expect(yield* (yield* Webhooks).getById("wh_test")).toMatchObject({
              status: "disabled",
              disabledReason: "gone"
            })
          }).pipe(Effect.provide(worker))
        }).pipe(Effect.provide(storesLayer(backend.layer()))),
      60_000
    )

    it.scoped(
      "a worker that dies mid-delivery: the delivery is taken again after its lease, once, with the same webhook-id",
      () =>
        Effect.gen(function* () {
          const calls = yield* Queue.unbounded<Call>()
          yield* setup
          // the first worker takes the delivery and never finishes (its POST hangs), then it is stopped
          const hung = Layer.succeed(DeliveryTransport, {
            post: (url, headers) =>
              Effect.gen(function* () {
                yield* Queue.offer(calls, { at: yield* Clock.currentTimeMillis, url, headers })
                return yield* Effect.never
              }),
            activeHosts: () => 0
          })
          const scope = yield* Scope.make()
          yield* Layer.buildWithScope(DeliveryWorker.Default.pipe(Layer.provide(hung)), scope)
          yield* enqueue("dlv_c")
          const first = yield* Queue.take(calls)
          yield* Scope.close(scope, { _tag: "Success", value: undefined } as never)
          // a new worker (the restarted process) delivers it once the lease expired
          yield* Layer.build(DeliveryWorker.Default.pipe(Layer.provide(fakeTransport([ok(200)], calls))))
          yield* TestClock.adjust(LEASE_MS - 2_000)
          yield* settle
          expect(yield* Queue.size(calls)).toBe(0)
          yield* TestClock.adjust(3_000)
          const second = yield* Queue.take(calls)
          expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"])
          yield* settle
          expect(yield* record("dlv_c")).toMatchObject({ status: "delivered" })
          yield* TestClock.adjust(86_400_000)
          yield* settle
          expect(yield* Queue.size(calls)).toBe(0)
        }).pipe(Effect.provide(storesLayer(backend.layer()))),
      60_000
    )
  })
}
