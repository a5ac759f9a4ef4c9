import { Effect, Either, Layer } from "effect"
import { describe, expect, it } from "vitest"
import type { Plan } from "../../../src/accounts/plans.js"
import { compileContext, compileFor } from "../../../src/api/common/compile.js"
import { tickerDirectory } from "../../../src/market/tickers/directory.js"
import { compileQuery, signalsOf } from "../../../src/query/index.js"
import { SignalResolver } from "../../../src/signals/SignalResolver.js"

const directory = tickerDirectory()
const SIGNALS = { cheap: "price < 10", cheap_big: "cheap AND market_cap > 1000000000" }

/** A resolver that counts its reads (each one is a database query in the service). */
const counting = () => {
  let reads = 0
  const layer = Layer.succeed(SignalResolver, {
    signalsFor: (accountId: string) =>
      Effect.sync(() => {
        reads++
        return signalsOf(accountId === "acc_a" ? SIGNALS : {})
      })
  })
  return { layer, reads: () => reads }
}

const compile = (layer: Layer.Layer<SignalResolver>, q: string, account = "acc_a", plan: Plan = "pro") =>
  Effect.runPromise(Effect.either(compileFor(q, directory, { id: account, plan })).pipe(Effect.provide(layer)))

describe("compileFor: signals read only when the q names one, compilations cached", () => {
  it("compiles a q of columns without reading the account's signals, to the query compiled with them", async () => {
    const resolver = counting()
    const q = "price > 5 AND market_cap > 1000000000 AND aapl.rsi_14 > 0"
    const fast = await compile(resolver.layer, q)
    expect(resolver.reads()).toBe(0)
    const full = compileQuery(q, compileContext(directory, signalsOf(SIGNALS)))
    if (Either.isLeft(fast) || Either.isLeft(full)) throw new Error("did not compile")
    expect(fast.right.text).toBe(full.right.text)
    expect(fast.right.signals).toEqual(full.right.signals)
    expect(fast.right.signals).toEqual([])
    // the same text again: cached from its second compilation on (a text sent once is not kept)
    const again = await compile(resolver.layer, q)
    const third = await compile(resolver.layer, q)
    if (Either.isLeft(again) || Either.isLeft(third)) throw new Error("did not compile")
    expect(again.right).not.toBe(fast.right)
    expect(again.right.text).toBe(fast.right.text)
    expect(third.right).toBe(again.right)
    expect(resolver.reads()).toBe(0)
  })

  it("reads the signals for a q that names one, expanding it as before", async () => {
    const resolver = counting()
    const viaSignal = await compile(resolver.layer, "cheap_big AND rsi_14 > 30")
    expect(resolver.reads()).toBe(1)
    const full = compileQuery("cheap_big AND rsi_14 > 30", compileContext(directory, signalsOf(SIGNALS)))
    if (Either.isLeft(viaSignal) || Either.isLeft(full)) throw new Error("did not compile")
    expect(viaSignal.right.text).toBe(full.right.text)
    expect([...viaSignal.right.signals].sort()).toEqual(["cheap", "cheap_big"])
    // not cached: an edit of the signal is seen by the next compilation
    await compile(resolver.layer, "cheap_big AND rsi_14 > 30")
    expect(resolver.reads()).toBe(2)
  })

  it("gives the same 400 as before for a name that is neither a column nor the account's signal", async () => {
    const resolver = counting()
    const other = await compile(resolver.layer, "cheap_big", "acc_b")
    expect(resolver.reads()).toBe(1)
    if (Either.isRight(other)) throw new Error("compiled")
    expect(other.left).toMatchObject({ _tag: "InvalidQuery", code: "invalid_query" })
    expect(String(other.left.message)).toMatch(/cheap_big/)
    const broken = await compile(resolver.layer, "price >")
    if (Either.isRight(broken)) throw new Error("compiled")
    expect(broken.left._tag).toBe("InvalidQuery")
  })

  it("consumes custom signals on Pro and above only; below, names that are not the account's signals compile as before", async () => {
    const resolver = counting()
    for (const plan of ["none", "free", "hobby"] as const) {
      const refused = await compile(resolver.layer, "cheap_big AND rsi_14 > 30", "acc_a", plan)
      if (Either.isRight(refused)) throw new Error(`compiled on ${plan}`)
      expect(refused.left).toMatchObject({ _tag: "CustomSignalsTierRequired", code: "custom_signals_tier_required" })
      expect(String(refused.left.message)).toMatch(/cheap, cheap_big/)
      expect(Either.isRight(await compile(resolver.layer, "price > 5 AND rsi_14 > 30", "acc_a", plan))).toBe(true)
      const unknown = await compile(resolver.layer, "cheap_big", "acc_b", plan)
      expect(Either.isLeft(unknown) && unknown.left).toMatchObject({ _tag: "InvalidQuery", code: "invalid_query" })
    }
    for (const plan of ["pro", "scale", "enterprise"] as const) {
      expect(Either.isRight(await compile(resolver.layer, "cheap_big AND rsi_14 > 30", "acc_a", plan))).toBe(true)
    }
  })
})
