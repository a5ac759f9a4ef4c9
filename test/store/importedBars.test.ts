import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Option } from "effect"
import type { ParsedBar } from "../../src/market/sources/csvBars.js"
import { ImportedBars } from "../../src/store/importedBars.js"
import { copyFromOf } from "../../src/store/PgliteClient.js"
import { copyFromStdinOf } from "../../src/store/pgCopy.js"
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

      it.effect(
        "re-imports a day: a key stored already takes the new bar (the new-rows insert falls back to the upsert)",
        () =>
          Effect.gen(function* () {
            const repo = yield* ImportedBars
            const day = (close: number) =>
              new Map(["KO", "PEP", "MO"].map((t) => [t, [bar(t, "2024-02-01", close)]] as const))
            yield* repo.replace(day(10))
            yield* repo.replace(new Map([["PEP", [bar("PEP", "2024-02-02", 11)]]]))
            yield* repo.replace(day(20))
            const all = yield* repo.load(["KO", "PEP", "MO"])
            expect(all.get("KO")!.map((b) => [b.date, b.close])).toEqual([["2024-02-01", 20]])
            expect(all.get("PEP")!.map((b) => [b.date, b.close])).toEqual([
              ["2024-02-01", 20],
              ["2024-02-02", 11]
            ])
            expect((yield* repo.load(["PEP"], { from: "2024-02-02" })).get("PEP")!.map((b) => b.date)).toEqual([
              "2024-02-02"
            ])
            expect((yield* repo.load(["PEP"], { to: "2024-02-01" })).get("PEP")!.map((b) => b.date)).toEqual([
              "2024-02-01"
            ])
          })
      )

      it.effect("reads bars back adjusted for the splits stored, whether they came before or after the bars", () =>
        Effect.gen(function* () {
          const repo = yield* ImportedBars
          const raw = (t: string) => [
            { ...bar(t, "2020-08-27", 500), volume: 100 },
            { ...bar(t, "2020-08-28", 504), volume: 110 },
            { ...bar(t, "2020-08-31", 127), volume: 480 }
          ]
          // AMZN: the split first, then the bars; INTC: the bars first, then the split
          yield* repo.replaceSplits([{ ticker: "AMZN", date: "2020-08-31", ratio: 4 }])
          yield* repo.replace(new Map([["AMZN", raw("AMZN")]]))
          yield* repo.replace(new Map([["INTC", raw("INTC")]]))
          yield* repo.replaceSplits([{ ticker: "INTC", date: "2020-08-31", ratio: 4 }])
          const all = yield* repo.load(["AMZN", "INTC"])
          for (const t of ["AMZN", "INTC"]) {
            expect(all.get(t)!.map((b) => [b.date, b.close, b.volume])).toEqual([
              ["2020-08-27", 125, 400],
              ["2020-08-28", 126, 440],
              ["2020-08-31", 127, 480]
            ])
          }
          // stored as given: a split imported again with ratio 1 withdraws it
          yield* repo.replaceSplits([{ ticker: "INTC", date: "2020-08-31", ratio: 1 }])
          expect((yield* repo.load(["INTC"])).get("INTC")!.map((b) => b.close)).toEqual([500, 504, 127])
          expect((yield* repo.splitsOf(["AMZN"])).get("AMZN")).toEqual([
            { ticker: "AMZN", date: "2020-08-31", ratio: 4 }
          ])
        })
      )

      it.effect("leaves the bars of a file that adjusted them itself", () =>
        Effect.gen(function* () {
          const repo = yield* ImportedBars
          yield* repo.replace(new Map([["ORCL", [bar("ORCL", "2020-08-28", 100)]]]), { adjusted: true })
          yield* repo.replace(new Map([["ORCL", [bar("ORCL", "2020-08-27", 1000)]]]))
          yield* repo.replaceSplits([{ ticker: "ORCL", date: "2020-08-31", ratio: 5 }])
          expect((yield* repo.load(["ORCL"])).get("ORCL")!.map((b) => b.close)).toEqual([200, 100])
        })
      )

      it.effect("writes new rows with a binary COPY on this backend's driver", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          // the drivers' internals the fast path reads: a change there would only slow imports down, so say so here
          const [blob, stdin] = yield* sql.withTransaction(
            Effect.map(Effect.serviceOption(SqlClient.TransactionConnection), (held) => {
              const connection = Option.getOrThrow(held)[0]
              return [copyFromOf(connection) !== undefined, copyFromStdinOf(connection) !== undefined]
            })
          )
          expect([blob, stdin]).toEqual(backend.name === "pglite" ? [true, false] : [false, true])
          const repo = yield* ImportedBars
          const rows = new Map(
            ["XOM", "CVX"].map((t) => [t, [{ ...bar(t, "2024-03-01", 1e-7), high: 2e-7, volume: 0.000123 }]])
          )
          yield* repo.replace(rows)
          expect((yield* repo.load(["XOM", "CVX"])).get("CVX")).toEqual(rows.get("CVX"))
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
