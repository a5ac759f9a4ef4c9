/**
 * A live feed's fundamentals and news in the store (issue 17, item 7): fundamentals merged field by
 * field per ticker and day (null kept: unknown), mentions numbered as they arrive, every write
 * logged as `inputs` for the processes following ticks, read back whole or by ticker.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FeedInputsStore } from "../../src/store/feedInputs.js"
import { ImportedBars } from "../../src/store/importedBars.js"
import { Ticks } from "../../src/store/ticks.js"
import { backends } from "../support/backends.js"

for (const backend of backends()) {
  describe(`a live feed's fundamentals and news (${backend.name})`, () => {
    it.layer(
      Layer.fresh(Layer.mergeAll(FeedInputsStore.Default, Ticks.Default, ImportedBars.Default)).pipe(
        Layer.provideMerge(backend.layer())
      ),
      { timeout: 60_000 }
    )((it) => {
      it.effect("keeps fundamentals field by field and mentions in order, logged for followers", () =>
        Effect.gen(function* () {
          const store = yield* FeedInputsStore
          const ticks = yield* Ticks
          const v0 = yield* ticks.importsVersion
          yield* store.addFundamentals([
            { ticker: "AAPL", fromDay: 20_000, values: { eps: 5, beta: 1.2 } },
            { ticker: "MSFT", fromDay: 20_000, values: { sharesOutstanding: 7.4e9 } },
            // the same ticker and day twice in one write: merged, the later over the earlier
            { ticker: "AAPL", fromDay: 20_000, values: { eps: 6 } }
          ])
          yield* store.addFundamentals([
            { ticker: "AAPL", fromDay: 20_000, values: { beta: null, nextEarningsDay: 20_010 } },
            { ticker: "AAPL", fromDay: 20_003, values: { eps: 6.5 } }
          ])
          const mentions = yield* store.addMentions([
            { ticker: "AAPL", at: 1_728_000_000_000, relevance: 0.9, sentiment: 0.25 },
            { ticker: "KO", at: 1_728_000_000_500, relevance: 0.1, sentiment: -1 },
            { ticker: "AAPL", at: 1_727_999_999_000, relevance: 1, sentiment: 0 }
          ])
          expect(mentions.map((m) => [m.ticker, m.at, m.relevance, m.sentiment])).toEqual([
            ["AAPL", 1_728_000_000_000, 0.9, 0.25],
            ["KO", 1_728_000_000_500, 0.1, -1],
            ["AAPL", 1_727_999_999_000, 1, 0]
          ])
          expect(mentions[1]!.seq).toBeGreaterThan(mentions[0]!.seq)
          expect(mentions[2]!.seq).toBeGreaterThan(mentions[1]!.seq)

          const all = yield* store.initial
          expect(all.fundamentals).toEqual([
            { ticker: "AAPL", fromDay: 20_000, values: { eps: 6, beta: null, nextEarningsDay: 20_010 } },
            { ticker: "AAPL", fromDay: 20_003, values: { eps: 6.5 } },
            { ticker: "MSFT", fromDay: 20_000, values: { sharesOutstanding: 7.4e9 } }
          ])
          expect(all.mentions).toEqual(mentions)
          const aapl = yield* store.load(["AAPL"])
          expect(aapl.fundamentals.map((e) => e.fromDay)).toEqual([20_000, 20_003])
          expect(aapl.mentions.map((m) => m.seq)).toEqual([mentions[0]!.seq, mentions[2]!.seq])
          expect(yield* store.load([])).toEqual({ fundamentals: [], mentions: [] })

          // three writes, each logged as inputs (not bars: a follower reads back no bars for them)
          const v1 = yield* ticks.importsVersion
          expect(v1 - v0).toBe(3)
          const since = yield* ticks.importedSince(v0, v1)
          expect([...since.bars]).toEqual([])
          expect([...since.inputs].sort()).toEqual(["AAPL", "KO", "MSFT"])
          // a mention out of range is refused by the store too
          const bad = yield* Effect.either(store.addMentions([{ ticker: "AAPL", at: 1, relevance: 1.5, sentiment: 0 }]))
          expect(bad._tag).toBe("Left")
          expect((yield* store.load(["AAPL"])).mentions).toHaveLength(2)
        })
      )
    })
  })
}
