/**
 * Gauges read when `/metrics` is scraped rather than set as things happen: a value that grows by
 * itself, such as how long ago the last webhook tick was committed, is current at every scrape.
 * A service registers one for its lifetime (scoped); the latest registration of a name wins.
 */
import { Effect } from "effect"

interface ScrapeGauge {
  readonly help: string
  /** the value now; undefined leaves the gauge out */
  readonly read: Effect.Effect<number | undefined>
}

const gauges = new Map<string, ScrapeGauge>()

export const registerScrapeGauge = (name: string, help: string, read: Effect.Effect<number | undefined>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const gauge = { help, read }
      gauges.set(name, gauge)
      return gauge
    }),
    (gauge) =>
      Effect.sync(() => {
        if (gauges.get(name) === gauge) gauges.delete(name)
      })
  )

/** the registered gauges in the Prometheus text format */
export const scrapeGaugesText: Effect.Effect<string> = Effect.gen(function* () {
  let out = ""
  for (const [name, g] of [...gauges].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const value = yield* g.read
    if (value === undefined) continue
    out += `# HELP ${name} ${g.help}\n# TYPE ${name} gauge\n${name} ${value}\n`
  }
  return out
})
