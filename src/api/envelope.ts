/**
 * The error envelope, built here and nowhere else: `{error: {code, message,
 * ...details, request_id}}` (spec, "Errors"), and the spec's delete-refusal
 * variant `{error: <code>, message, ...details, request_id}`.
 *
 * Typed errors (errors.ts) encode through it with the id of the request
 * being answered (`CurrentRequestId`, set by the request middleware); the
 * request policy's own refusals and idempotency's go through `errorResponse`
 * (errors.ts); the server's answers to requests Node's parser refuses
 * (clientError.ts) use `envelopeText`.
 */
import { HttpServerResponse } from "@effect/platform"
import { Effect, FiberRef } from "effect"

/** The id of the request being answered (requestMiddleware.ts sets it around the API). */
export const CurrentRequestId: FiberRef.FiberRef<string> = FiberRef.unsafeMake("")

export const envelopeBody = (
  code: string,
  message: string,
  requestId: string,
  details?: Readonly<Record<string, unknown>>
) => ({ error: { code, message, ...details, request_id: requestId } })

export const refusalBody = (
  code: string,
  message: string,
  requestId: string,
  details?: Readonly<Record<string, unknown>>
) => ({ error: code, message, ...details, request_id: requestId })

/** The envelope as the body of a response with `status` (for a status no error class has; see errors.ts `errorResponse`). */
export const envelopeResponse = (
  status: number,
  code: string,
  message: string,
  requestId: string,
  headers?: Readonly<Record<string, string>>
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson(envelopeBody(code, message, requestId), { status, headers: headers ?? {} })

/** The envelope as a response to the request being answered (its id from `CurrentRequestId`). */
export const refusal = (status: number, code: string, message: string) =>
  Effect.map(FiberRef.get(CurrentRequestId), (id) => envelopeResponse(status, code, message, id))

/** The envelope as JSON text (for answers written straight to a socket). */
export const envelopeText = (code: string, message: string, requestId: string): string =>
  JSON.stringify(envelopeBody(code, message, requestId))

/**
 * An error body (either form) answering another request — the stored text of an answer an
 * Idempotency-Key replays — with this request's id; undefined when `text` is not an error body.
 */
export const withRequestId = (text: string, requestId: string): object | undefined => {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return undefined
  }
  if (body === null || typeof body !== "object") return undefined
  const error = (body as { readonly error?: unknown }).error
  if (typeof error === "string") return { ...body, request_id: requestId }
  if (error !== null && typeof error === "object" && typeof (error as { code?: unknown }).code === "string") {
    return { ...body, error: { ...error, request_id: requestId } }
  }
  return undefined
}
