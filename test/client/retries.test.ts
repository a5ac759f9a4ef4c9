/**
 * The typed client's retries (issue 19, item 3; the spec's client guidance), on the TestClock: a
 * 429 waits its Retry-After, a 5xx or a lost request backs off from 1 s doubling to 60 s, 400 and
 * 401 are never retried, a POST carries one Idempotency-Key over all its attempts.
 */
import { HttpClient, HttpClientError, type HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, TestClock } from "effect"
import { retryAfterSeconds, retryDelayMs, withRetries } from "../../src/client.js"

describe("retryDelayMs", () => {
  it("waits a 429's Retry-After, backs a 5xx off from 1 s doubling to 60 s, never retries a 4xx", () => {
    expect(retryDelayMs(429, 7, 0)).toBe(7_000)
    expect(retryDelayMs(429, undefined, 2)).toBe(4_000)
    expect([0, 1, 2, 3, 4, 5, 6].map((r) => retryDelayMs(500, undefined, r, { maxRetries: 10 }))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000
    ])
    expect(retryDelayMs(503, 90, 0)).toBe(90_000)
    expect(retryDelayMs(undefined, undefined, 1)).toBe(2_000)
    for (const status of [400, 401, 403, 404, 409, 422]) expect(retryDelayMs(status, 5, 0)).toBeUndefined()
    expect(retryDelayMs(500, undefined, 5)).toBeUndefined()
    expect(retryAfterSeconds("12", 0)).toBe(12)
    expect(retryAfterSeconds(new Date(30_000).toUTCString(), 0)).toBe(30)
    expect(retryAfterSeconds("soon", 0)).toBeUndefined()
  })
})

/** a client answering the scripted statuses in turn (a number: that status; "lost": no answer) */
const scripted = (script: ReadonlyArray<number | "lost">, seen: Array<HttpClientRequest.HttpClientRequest>) =>
  HttpClient.make((request) =>
    Effect.suspend(() => {
      seen.push(request)
      const next = script[seen.length - 1] ?? 200
      if (next === "lost") {
        return Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", description: "reset" }))
      }
      return Effect.succeed(
        HttpClientResponse.fromWeb(
          request,
          new Response("{}", { status: next, headers: next === 429 ? { "retry-after": "3" } : {} })
        )
      )
    })
  )

describe("withRetries", () => {
  it.effect("retries a 429 after its Retry-After and 5xx with backoff, then answers the success", () =>
    Effect.gen(function* () {
      const seen: Array<HttpClientRequest.HttpClientRequest> = []
      const client = withRetries()(scripted([429, 500, "lost", 200], seen))
      const fiber = yield* Effect.fork(client.post("http://vigil.test/v2/scan"))
      yield* TestClock.adjust(Duration.millis(2_999))
      expect(seen).toHaveLength(1)
      yield* TestClock.adjust(Duration.millis(1))
      expect(seen).toHaveLength(2)
      // the second retry backs off 2 s, the third 4 s
      yield* TestClock.adjust(Duration.seconds(2))
      expect(seen).toHaveLength(3)
      yield* TestClock.adjust(Duration.seconds(4))
      const response = yield* Fiber.join(fiber)
      expect(response.status).toBe(200)
      expect(seen).toHaveLength(4)
      const keys = new Set(seen.map((r) => r.headers["idempotency-key"]))
      expect(keys.size).toBe(1)
      expect([...keys][0]).toMatch(/^vigil-client-/)
    })
  )

  it.effect("never retries a 400 or a 401, and answers the last failure when the retries run out", () =>
    Effect.gen(function* () {
      for (const status of [400, 401]) {
        const seen: Array<HttpClientRequest.HttpClientRequest> = []
        const response = yield* withRetries()(scripted([status], seen)).get("http://vigil.test/v2/account")
        expect([status, response.status, seen.length]).toEqual([status, status, 1])
      }
      const seen: Array<HttpClientRequest.HttpClientRequest> = []
      const fiber = yield* Effect.fork(
        withRetries({ maxRetries: 2 })(scripted([502, 502, 502, 200], seen)).get("http://vigil.test/v2/account")
      )
      yield* TestClock.adjust(Duration.seconds(10))
      const response = yield* Fiber.join(fiber)
      expect([response.status, seen.length]).toEqual([502, 3])
      expect(seen[0]!.headers["idempotency-key"]).toBeUndefined()
    })
  )
})
