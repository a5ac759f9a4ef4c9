import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import type { ParsedBar } from "../../src/market/sources/csvBars.js"
import { ImportedBars } from "../../src/store/importedBars.js"
import { backends } from "../support/backends.js"

const bar = (ticker: string, date: string, close: number): ParsedBar => ({
  ticker,
  date,
  open: close,
  high: close + 1,
  low: close - 1,
  close,
  volume: 1000
})

for (const backend of backends()) {
  describe(`imported bars (${backend.name})`, () => {
    it.layer(Layer.fresh(ImportedBars.Default).pipe(Layer.provideMerge(backend.layer())), { timeout: 60_000 })((it) => {
      it.effect("replaces a ticker's bars over the imported range only", () =>
        Effect.gen(function* () {
          const repo = yield* ImportedBars
          yield* repo.replace(
            new Map([
              ["AAPL", [bar("AAPL", "2024-01-02", 10), bar("AAPL", "2024-01-03", 11), bar("AAPL", "2024-01-04", 12)]]
            ])
          )
          yield* repo.replace(new Map([["AAPL", [bar("AAPL", "2024-01-03", 21), bar("AAPL", "2024-01-05", 22)]]]))
          const all = yield* repo.loadAll
          expect(all.get("AAPL")!.map((b) => [b.date, b.close])).toEqual([
            ["2024-01-02", 10],
            ["2024-01-03", 21],
            ["2024-01-05", 22]
          ])
        })
      )

      it.effect("stores 12,000 bars in one go", () =>
        Effect.gen(function* () {
          const repo = yield* ImportedBars
          const bars = Array.from({ length: 12_000 }, (_, i) =>
            bar("MSFT", new Date(Date.UTC(1990, 0, 1) + i * 86_400_000).toISOString().slice(0, 10), 100 + i / 100)
          )
          yield* repo.replace(new Map([["MSFT", bars]]))
          expect((yield* repo.loadAll).get("MSFT")).toHaveLength(12_000)
        })
      )

      it.effect("writes nothing when any part fails", () =>
        Effect.gen(function* () {
          const repo = yield* ImportedBars
          const bad = { ...bar("NVDA", "2024-01-03", 5), date: "not-a-date" }
          const result = yield* Effect.either(
            repo.replace(
              new Map([
                ["NVDA", [bar("NVDA", "2024-01-02", 5)]],
                ["TSLA", [bad]]
              ])
            )
          )
          expect(Either.isLeft(result)).toBe(true)
          const all = yield* repo.loadAll
          expect(all.has("NVDA")).toBe(false)
          expect(all.has("TSLA")).toBe(false)
        })
      )
    })
  })
}
