import { describe, expect, it } from "@effect/vitest"
import { Effect, Ref } from "effect"
import { prometheusText } from "../../src/observability/prometheus.js"
import { registerScrapeGauge, scrapeGaugesText } from "../../src/observability/scrapeGauges.js"

describe("gauges read at scrape time", () => {
  it.effect("render their value at each scrape, are left out while undefined, and go with their scope", () =>
    Effect.gen(function* () {
      const value = yield* Ref.make<number | undefined>(undefined)
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* registerScrapeGauge("test_scraped_lag_seconds", "A test gauge", Ref.get(value))
          expect(yield* scrapeGaugesText).not.toContain("test_scraped_lag_seconds")
          yield* Ref.set(value, 1.5)
          expect(yield* prometheusText).toContain(
            "# HELP test_scraped_lag_seconds A test gauge\n# TYPE test_scraped_lag_seconds gauge\ntest_scraped_lag_seconds 1.5\n"
          )
          yield* Ref.set(value, 4)
          expect(yield* scrapeGaugesText).toContain("test_scraped_lag_seconds 4\n")
        })
      )
      expect(yield* scrapeGaugesText).not.toContain("test_scraped_lag_seconds")
    })
  )
})
