/**
 * `orUnavailable` (src/api/errors.ts): the one mapping of store faults. A `SqlError` becomes the
 * 503 every endpoint answers it with (`service_unavailable`, Retry-After 5); every other failure,
 * and success, passes through untouched.
 */
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
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
