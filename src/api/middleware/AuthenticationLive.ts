/**
 * The implementation of the Authentication middleware (Authentication.ts holds its tag, which the
 * API's definitions import): kept apart so that the definitions never import the request policy
 * (requestMiddleware.ts reads the API's routes, and so imports the definitions).
 */
import { HttpServerRequest } from "@effect/platform"
import { Effect, FiberRef, Layer } from "effect"
import { BadRequest } from "../errors.js"
import { unknownQueryMessage, unknownQueryParams } from "../requestMiddleware.js"
import { Authentication, makeAuthenticate, preAuthenticated } from "./Authentication.js"

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const authenticate = yield* makeAuthenticate
    return {
      bearer: () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const key = yield* (yield* FiberRef.get(preAuthenticated)) ?? authenticate(request)
          // after authentication: a caller without a valid key learns nothing of the request's validity
          const unknown = unknownQueryParams(request.method, request.url)
          if (unknown.length > 0) return yield* new BadRequest({ message: unknownQueryMessage(unknown) })
          return key
        })
    }
  })
)
