/**
 * The forms of the request headers the service takes as given, in one place:
 * the request policy checks them (requestPolicy.ts, idempotency.ts) and the
 * OpenAPI document declares them (openapiDocument.ts).
 */

/** `X-Request-Id`: a caller's id is kept when it has this form, else the service makes one. */
export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/

/** `Idempotency-Key`: 1 to 255 printable ASCII characters. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/
