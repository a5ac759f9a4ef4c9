/**
 * The Idempotency-Key rules (src/api/idempotency.ts) on the grouped key store (issue 13): a key
 * runs its request once, replays its answer, refuses another request (422) and a concurrent one
 * (409), is scoped to the API key, is freed by a 5xx, and is taken afresh after 24 hours — when
 * many requests share a statement as when one comes alone. Time is the TestClock.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import type { AuthenticatedKey } from "../../src/accounts/Accounts.js"
import { IDEMPOTENCY_TTL_SECONDS, IdempotencyKeys, makeIdempotency } from "../../src/api/idempotency.js"
import { backends } from "../support/backends.js"

interface Sent {
  readonly status: number
  readonly body: string
  readonly replayed: boolean
}

for (const backend of backends()) {
  describe(`Idempotency-Key (${backend.name})`, () => {
    it.scoped(
      "runs once, replays, refuses a different or concurrent request, frees on 5xx, expires after 24 h",
      () =>
        Effect.gen(function* () {
          let runs = 0
          let failNext = false
          const app = Effect.gen(function* () {
            const request = yield* HttpServerRequest.HttpServerRequest
            const text = yield* Effect.orDie(request.text)
            runs++
            const n = runs
            // long enough that requests sent together overlap
            yield* Effect.promise(() => new Promise((r) => setTimeout(r, 20)))
            if (failNext) {
              failNext = false
              return HttpServerResponse.unsafeJson({ error: "down" }, { status: 503 })
            }
            return HttpServerResponse.unsafeJson({ run: n, echo: text }, { status: 201 })
          })
          // every caller is a valid key here: what authentication decides is idempotencyAuth.test.ts's
          const authenticated = Effect.succeed({} as AuthenticatedKey)
          const withKeys = (yield* makeIdempotency)(app, () => authenticated)
          const send = (key: string, body: string, authorization = "Bearer one") =>
            Effect.gen(function* () {
              const request = HttpServerRequest.fromWeb(
                new Request("http://vigil.test/v2/universes", {
                  method: "POST",
                  headers: { authorization, "idempotency-key": key, "content-type": "application/json" },
                  body
                })
              )
              const response = yield* Effect.provideService(withKeys, HttpServerRequest.HttpServerRequest, request)
              const raw = response.body
              const text = raw._tag === "Uint8Array" ? new TextDecoder().decode(raw.body) : ""
              return {
                status: response.status,
                body: text,
                replayed: response.headers["idempotent-replayed"] === "true"
              } satisfies Sent
            })

          // alone: runs once, then replays the same answer
          const first = yield* send("k1", '{"a":1}')
          expect([first.status, first.replayed, runs]).toEqual([201, false, 1])
          expect(yield* send("k1", '{"a":1}')).toEqual({ ...first, replayed: true })
          expect(runs).toBe(1)
          expect((yield* send("k1", '{"a":2}')).status).toBe(422)
          // the same key under another API key is another key
          expect((yield* send("k1", '{"a":1}', "Bearer two")).replayed).toBe(false)
          expect(runs).toBe(2)

          // together: 12 with one key (one runs, the others are told it runs), 12 with keys of their own
          const together = yield* Effect.all(
            [
              ...Array.from({ length: 12 }, () => send("k2", '{"b":1}')),
              ...Array.from({ length: 12 }, (_, i) => send(`k3-${i}`, `{"c":${i}}`))
            ],
            { concurrency: "unbounded" }
          )
          const shared = together.slice(0, 12)
          expect(shared.filter((r) => r.status === 201)).toHaveLength(1)
          expect(shared.filter((r) => r.status === 409)).toHaveLength(11)
          expect(together.slice(12).map((r) => r.status)).toEqual(Array(12).fill(201))
          expect(runs).toBe(2 + 1 + 12)
          const replay = yield* send("k2", '{"b":1}')
          expect(replay).toEqual({ ...shared.find((r) => r.status === 201)!, replayed: true })

          // a 5xx frees the key: the retry runs
          failNext = true
          expect((yield* send("k4", "{}")).status).toBe(503)
          const retried = yield* send("k4", "{}")
          expect([retried.status, retried.replayed]).toEqual([201, false])

          // kept 24 hours, then taken afresh (even by another request)
          yield* TestClock.adjust(`${IDEMPOTENCY_TTL_SECONDS - 1} seconds`)
          expect((yield* send("k1", '{"a":1}')).replayed).toBe(true)
          yield* TestClock.adjust("2 seconds")
          const runsBefore = runs
          const fresh = yield* send("k1", '{"a":3}')
          expect([fresh.status, fresh.replayed, runs]).toEqual([201, false, runsBefore + 1])
          expect((yield* send("k1", '{"a":3}')).replayed).toBe(true)
        }).pipe(Effect.provide(IdempotencyKeys.Live.pipe(Layer.provideMerge(Layer.fresh(backend.layer()))))),
      60_000
    )
  })
}
