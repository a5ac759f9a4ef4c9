/**
 * The implementation of the AdminAuth middleware (AdminAuth.ts holds its tag, which the admin API's
 * definition imports): apart, so that the definitions never import the request policy.
 */
import { timingSafeEqual } from "node:crypto"
import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Option, Redacted } from "effect"
import { AppConfig } from "../../config/AppConfig.js"
import { NotFound, Unauthenticated } from "../errors.js"
import { AdminAuth } from "./AdminAuth.js"
import { rejectUndeclaredQuery } from "./declaredQuery.js"

const constantTimeEquals = (a: string, b: string) => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

export const AdminAuthLive = Layer.effect(
  AdminAuth,
  Effect.gen(function* () {
    const config = yield* AppConfig
    return {
      adminToken: () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (Option.isNone(config.adminToken)) {
            return yield* new NotFound({ message: `no route ${request.method} ${request.url.split("?")[0]}` })
          }
          const match = /^Bearer[ ]+(\S+)\s*$/i.exec(request.headers.authorization ?? "")
          if (match === null || !constantTimeEquals(match[1], Redacted.value(config.adminToken.value))) {
            return yield* new Unauthenticated({ message: "missing or wrong admin token" })
          }
          yield* rejectUndeclaredQuery(request)
        })
    }
  })
)
