/**
 * The implementation of the Authentication middleware (Authentication.ts holds its tag, which the
 * API's definitions import): kept apart so that the definitions never import the request policy
 * (requestMiddleware.ts reads the API's routes, and so imports the definitions).
 */
import { HttpServerRequest } from "@effect/platform"
import { Effect, FiberRef, Layer } from "effect"
import { Authentication, makeAuthenticate, preAuthenticated } from "./Authentication.js"
import { rejectUndeclaredQuery } from "./declaredQuery.js"

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const authenticate = yield* makeAuthenticate
    return {
      bearer: () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const key = yield* (yield* FiberRef.get(preAuthenticated)) ?? authenticate(request)
          yield* rejectUndeclaredQuery(request)
          return key
        })
    }
  })
)
