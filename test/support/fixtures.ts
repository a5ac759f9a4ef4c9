/**
 * Price data for the tests, all inside the repository (test/fixtures/SOURCES.md):
 *
 * - real Alpha Vantage daily files (MIT), copied byte for byte into
 *   test/fixtures/alphavantage/, with `dates.csv` holding the date column of all
 *   47 files of the shared set;
 * - generated files and series where the real ones may not be copied: Yahoo's
 *   SPY/QQQ files and the Coinbase candles carry no licence, so the tests build
 *   stand-ins of the same format, dates and length from a seeded generator.
 *
 * Rebuild the copied files with `npx tsx scripts/build-test-fixtures.ts`.
 */
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { tradingDaysInRange } from "../../src/market/calendar.js"

export const FIXTURES_DIR = resolve(import.meta.dirname, "../fixtures")
export const ALPHA_VANTAGE_DIR = resolve(FIXTURES_DIR, "alphavantage")

/** Path of a copied Alpha Vantage daily-adjusted file (AAPL, MSFT or CARR). */
export const alphaVantagePath = (ticker: "AAPL" | "MSFT" | "CARR"): string =>
  resolve(ALPHA_VANTAGE_DIR, `DA-${ticker}-T-2021-04-21.csv`)

export const alphaVantageCsv = (ticker: "AAPL" | "MSFT" | "CARR"): string =>
  readFileSync(alphaVantagePath(ticker), "utf8")

export interface FileDates {
  readonly file: string
  readonly first: string
  readonly last: string
  readonly rows: number
  /** SHA-256 (hex) of the file's dates joined by "\n" (scripts/build-test-fixtures.ts `datesDigest`) */
  readonly sha256: string
}

/** The date column of each of the 47 Alpha Vantage files: first, last, count and digest. */
export const alphaVantageDates = (): Array<FileDates> =>
  readFileSync(resolve(ALPHA_VANTAGE_DIR, "dates.csv"), "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => {
      const [file, first, last, rows, sha256] = line.split(",")
      return { file: file!, first: first!, last: last!, rows: Number(rows), sha256: sha256! }
    })

/** A seeded uniform generator in [0, 1) (mulberry32) and a standard normal from it. */
export const seededRandom = (seed: string) => {
  let s = 0
  for (const c of seed) s = (Math.imul(s, 31) + c.charCodeAt(0)) >>> 0
  const uniform = (): number => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform())
  return { uniform, normal }
}

const YAHOO_PARAMS = {
  SPY: { start: 225, sigma: 0.011, drift: 0.0005, yield: 0.018, volume: 80e6 },
  QQQ: { start: 120, sigma: 0.014, drift: 0.0009, yield: 0.006, volume: 40e6 }
} as const
export const YAHOO_FROM = "2017-01-03"
export const YAHOO_TO = "2021-06-04"

/**
 * A stand-in for Yahoo's SPY.csv or QQQ.csv: the same header
 * (`Date,Open,High,Low,Close,Adj Close,Volume`), one row per NYSE session from
 * 2017-01-03 to 2021-06-04 (1,113), prices with 6 decimals, Adj Close below
 * Close by the quarterly dividends still to come (equal on the last rows), and
 * no newline after the last row, as Yahoo writes it. Prices are a seeded
 * random walk with Yahoo-like daily ranges; the same ticker always gives the
 * same text.
 */
export const syntheticYahooCsv = (ticker: keyof typeof YAHOO_PARAMS): string => {
  const p = YAHOO_PARAMS[ticker]
  const { uniform, normal } = seededRandom(`yahoo:${ticker}`)
  const dates = tradingDaysInRange(YAHOO_FROM, YAHOO_TO)
  const fixed = (x: number) => x.toFixed(6)
  // ex-dividend every 63 sessions (about quarterly); rows before k ex-dates are scaled by (1 - q)^k
  const q = p.yield / 4
  const exDates = dates.filter((_, t) => t > 0 && t % 63 === 40).length
  let still = exDates
  let prev: number = p.start
  const lines = ["Date,Open,High,Low,Close,Adj Close,Volume"]
  dates.forEach((date, t) => {
    if (t > 0 && t % 63 === 40) still--
    const open = Number(fixed(prev * Math.exp(0.3 * p.sigma * normal())))
    const close = Number(fixed(open * Math.exp(p.drift + p.sigma * normal())))
    const high = Math.max(open, close, Number(fixed(Math.max(open, close) * (1 + 0.4 * p.sigma * Math.abs(normal())))))
    const low = Math.min(open, close, Number(fixed(Math.min(open, close) * (1 - 0.4 * p.sigma * Math.abs(normal())))))
    const adjusted = close * (1 - q) ** still
    const volume = Math.round(p.volume * Math.exp(0.35 * normal()) * (0.8 + 0.4 * uniform()))
    lines.push([date, fixed(open), fixed(high), fixed(low), fixed(close), fixed(adjusted), volume].join(","))
    prev = close
  })
  return lines.join("\n")
}
