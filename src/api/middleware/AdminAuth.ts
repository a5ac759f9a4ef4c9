/**
 * The admin API is enabled by ADMIN_TOKEN. Without it every `/admin/*` call
 * answers 404 (as if the route did not exist); with it, a wrong or missing
 * token gets 401.
 */

import { timingSafeEqual } from "node:crypto"
import { HttpApiMiddleware, HttpApiSecurity, HttpServerRequest, OpenApi } from "@effect/platform"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { AppConfig } from "../../config/AppConfig.js"
import {
  BadRequest,
  BadRequestError,
  NotFound,
  NotFoundError,
  Unauthenticated,
  UnauthenticatedError
} from "../errors.js"
import { unknownQueryMessage, unknownQueryParams } from "../requestMiddleware.js"

export class AdminAuth extends HttpApiMiddleware.Tag<AdminAuth>()("vigil/AdminAuth", {
  failure: Schema.Union(UnauthenticatedError, NotFoundError, BadRequestError),
  security: {
    adminToken: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "The operator's ADMIN_TOKEN as `Authorization: Bearer <token>`")
    )
  }
}) {}

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
          // after the token: a caller without it learns nothing of the request's validity
          const unknown = unknownQueryParams(request.method, request.url)
          if (unknown.length > 0) return yield* new BadRequest({ message: unknownQueryMessage(unknown) })
        })
    }
  })
)
