/**
 * The request deadline of src/api/requestMiddleware.ts, on the Effect clock:
 * a /v2 request whose work never finishes (a database that stopped answering
 * mid-query) is answered 503 `service_unavailable` with Retry-After when the
 * deadline passes, and its work is interrupted; the admin API is not cut.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Option, TestClock } from "effect"
import { REQUEST_DEADLINE, requestMiddleware } from "../../src/api/requestMiddleware.js"

const serve = (path: string, work: Effect.Effect<HttpServerResponse.HttpServerResponse>) =>
  requestMiddleware(work).pipe(
    Effect.provideService(
      HttpServerRequest.HttpServerRequest,
      HttpServerRequest.fromWeb(new Request(`http://vigil.test${path}`, { headers: { "x-request-id": "req_t" } }))
    )
  )

const bodyOf = (res: HttpServerResponse.HttpServerResponse) =>
  res.body._tag === "Uint8Array" ? JSON.parse(new TextDecoder().decode(res.body.body)) : undefined

describe("request deadline", () => {
  it.effect("answers a /v2 request that never finishes with 503 and Retry-After, interrupting its work", () =>
    Effect.gen(function* () {
      const interrupted = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(
        serve("/v2/scan", Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))))
      )
      yield* TestClock.adjust(Duration.subtract(REQUEST_DEADLINE, Duration.millis(1)))
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      yield* TestClock.adjust(Duration.millis(1))
      const res = yield* Fiber.join(fiber)
      expect(res.status).toBe(503)
      expect(res.headers["retry-after"]).toBe("5")
      expect(res.headers["x-request-id"]).toBe("req_t")
      const body = bodyOf(res)
      expect(body.error.code).toBe("service_unavailable")
      expect(body.error.request_id).toBe("req_t")
      expect(body.error.message).toContain("within 20s")
      // interrupted in the background, the answer not waiting for it
      yield* Deferred.await(interrupted)
    })
  )

  it.effect("answers at the deadline even when the work takes long to stop (a query cancel on a frozen server)", () =>
    Effect.gen(function* () {
      const stuck = Effect.never.pipe(Effect.onInterrupt(() => Effect.sleep("10 seconds")))
      const fiber = yield* Effect.fork(serve("/v2/tickers/AAPL", stuck))
      yield* TestClock.adjust(REQUEST_DEADLINE)
      const res = yield* Fiber.join(fiber)
      expect(res.status).toBe(503)
    })
  )

  it.effect("lets work that finishes in time through, and leaves the admin API to take as long as it takes", () =>
    Effect.gen(function* () {
      const slow = Effect.as(
        Effect.sleep(Duration.sum(REQUEST_DEADLINE, Duration.seconds(40))),
        HttpServerResponse.text("done")
      )
      const admin = yield* Effect.fork(serve("/admin/refresh", slow))
      const quick = yield* Effect.fork(
        serve("/v2/scan", Effect.as(Effect.sleep("19 seconds"), HttpServerResponse.text("ok")))
      )
      yield* TestClock.adjust("19 seconds")
      expect((yield* Fiber.join(quick)).status).toBe(200)
      yield* TestClock.adjust("60 seconds")
      expect((yield* Fiber.join(admin)).status).toBe(200)
    })
  )
})
