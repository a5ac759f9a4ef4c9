/**
 * The admin API is enabled by ADMIN_TOKEN. Without it every `/admin/*` call
 * answers 404 (as if the route did not exist); with it, a wrong or missing
 * token gets 401.
 */

import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, NotFound, Unauthenticated, wire } from "../errors.js"

export class AdminAuth extends HttpApiMiddleware.Tag<AdminAuth>()("vigil/AdminAuth", {
  failure: Schema.Union(wire(Unauthenticated), wire(NotFound), wire(BadRequest)),
  security: {
    adminToken: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "The operator's ADMIN_TOKEN as `Authorization: Bearer <token>`")
    )
  }
}) {}
