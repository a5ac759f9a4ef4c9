/**
 * The query-parameter check the authenticating middlewares run once the caller is known (a caller
 * without a valid key or token learns nothing of the request's validity): 400 for parameters the
 * endpoint does not declare (see `unknownQueryParams`).
 */
import type { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { BadRequest } from "../errors.js"
import { unknownQueryMessage, unknownQueryParams } from "../requestMiddleware.js"

export const rejectUndeclaredQuery = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<void, BadRequest> => {
  const unknown = unknownQueryParams(request.method, request.url)
  return unknown.length > 0 ? Effect.fail(new BadRequest({ message: unknownQueryMessage(unknown) })) : Effect.void
}
