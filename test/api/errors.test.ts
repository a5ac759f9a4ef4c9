/**
 * `orUnavailable` (src/api/errors.ts): the one mapping of store faults. A `SqlError` becomes the
 * 503 every endpoint answers it with (`service_unavailable`, Retry-After 5); every other failure,
 * and success, passes through untouched.
 */

import { OpenApi } from "@effect/platform"
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Either, Exit, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { VigilApi } from "../../src/api/Api.js"
import { CurrentRequestId } from "../../src/api/envelope.js"
import * as errors from "../../src/api/errors.js"
import { NotFound, orUnavailable, ServiceUnavailable } from "../../src/api/errors.js"

describe("orUnavailable", () => {
  it("answers a store fault 503 service_unavailable with a retry hint", () => {
    const exit = Effect.runSyncExit(
      orUnavailable(Effect.fail(new SqlError({ cause: new Error("connection refused") })))
    )
    expect(Exit.isFailure(exit)).toBe(true)
    const error = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined
    expect(error).toBeInstanceOf(ServiceUnavailable)
    expect(error).toMatchObject({ code: "service_unavailable", details: { retry_after: 5 } })
  })

  it("passes every other failure and success through", () => {
    const notFound = new NotFound({ message: 'rule "x" not found' })
    const failed = Effect.runSyncExit(orUnavailable(Effect.fail(notFound)))
    expect(Exit.isFailure(failed) && failed.cause._tag === "Fail" ? failed.cause.error : undefined).toBe(notFound)
    expect(Effect.runSync(orUnavailable(Effect.succeed(42)))).toBe(42)
  })
})

describe("errors as data: one class per code", () => {
  const classes = (Object.values(errors) as ReadonlyArray<unknown>).filter(
    (value): value is errors.ApiErrorClass & Schema.Schema.Any =>
      typeof value === "function" && typeof (value as { spec?: { code?: unknown } }).spec?.code === "string"
  )

  it("gives every code one class, with a 4xx/5xx status", () => {
    const codes = classes.map((cls) => cls.spec.code)
    expect(new Set(codes).size).toBe(codes.length)
    for (const cls of classes) {
      expect(cls.spec.status).toBeGreaterThanOrEqual(400)
      expect(cls.spec.status).toBeLessThan(600)
    }
    // every code of the spec's error table that Vigil sends
    for (const code of [
      "bad_request",
      "invalid_query",
      "compile_failed",
      "recursion_depth_exceeded",
      "signal_not_available_at_interval",
      "history_window_exceeded",
      "unknown_tickers",
      "not_supported_for_custom_signal",
      "unauthenticated",
      "subscription_required",
      "webhook_tier_required",
      "webhook_limit_reached",
      "resource_limit_reached",
      "custom_signals_tier_required",
      "not_found",
      "unknown_signal",
      "universe_not_found",
      "already_exists",
      "name_collision",
      "slug_taken",
      "signal_referenced",
      "rate_limited",
      "internal"
    ]) {
      expect(codes).toContain(code)
    }
  })

  it("puts each on the wire as the envelope with the request's id, and decodes it back into its class", () => {
    for (const cls of classes) {
      const schema = errors.wire(cls)
      const error =
        cls === (errors.SignalReferenced as unknown)
          ? new errors.SignalReferenced({ message: "referenced", referencing_signals: ["a"] })
          : new (cls as any)({ message: `a ${cls.spec.code}`, details: { retry_after: 3 } })
      const encoded: any = Effect.runSync(
        Schema.encode(schema as Schema.Schema<any, any>)(error).pipe(Effect.locally(CurrentRequestId, "req_test"))
      )
      if (cls === (errors.SignalReferenced as unknown)) {
        expect(encoded).toEqual({
          error: "signal_referenced",
          message: "referenced",
          referencing_signals: ["a"],
          request_id: "req_test"
        })
      } else {
        expect(encoded).toEqual({
          error: { code: cls.spec.code, message: `a ${cls.spec.code}`, retry_after: 3, request_id: "req_test" }
        })
      }
      const decoded = Schema.decodeUnknownSync(schema as Schema.Schema<any, any>)(encoded)
      expect(decoded).toBeInstanceOf(cls)
      expect(decoded.code).toBe(cls.spec.code)
      expect(decoded.message).toBe(error.message)
      // another code's envelope is not this class's
      const other = classes.find((c) => c.spec.status === cls.spec.status && c !== cls)
      if (other !== undefined && cls !== (errors.SignalReferenced as unknown)) {
        const foreign = { error: { code: other.spec.code, message: "x", request_id: "r" } }
        expect(Either.isLeft(Schema.decodeUnknownEither(schema as Schema.Schema<any, any>)(foreign))).toBe(true)
      }
    }
  })

  it("answers outside the handlers with the class's status, the envelope and Retry-After", async () => {
    const response = errors.errorResponse(
      new errors.RateLimited({ message: "slow down", details: { retry_after: 2.2 } }),
      "req_x"
    )
    expect(response.status).toBe(429)
    expect(response.headers["retry-after"]).toBe("3")
    const body = JSON.parse(new TextDecoder().decode((response.body as any).body))
    expect(body).toEqual({
      error: { code: "rate_limited", message: "slow down", retry_after: 2.2, request_id: "req_x" }
    })
    expect(errors.statusOf(new errors.UniverseNotFound({ message: "x" }))).toBe(404)
  })

  it("documents one schema per code in the OpenAPI document, each with its code as the only value", () => {
    const doc: any = OpenApi.fromApi(VigilApi)
    const schemas = doc.components.schemas
    for (const cls of classes) {
      const name = (cls as any).identifier ?? cls.name
      const schema = schemas[name]
      if (schema === undefined) continue // declared by no endpoint (none today but the policy's own)
      const code = schema.properties.error.properties?.code?.enum ?? schema.properties.error.enum
      expect(code).toEqual([cls.spec.code])
    }
    const declared = Object.keys(schemas).filter((name) => classes.some((cls) => cls.name === name))
    expect(declared.length).toBeGreaterThanOrEqual(30)
  })
})
