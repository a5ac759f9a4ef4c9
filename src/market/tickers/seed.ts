/**
 * The committed seed file `data/tickers.json`: its layout, the writer used by
 * scripts/build-ticker-seed.ts and the decoder used at runtime.
 *
 * Layout (one JSON object; `rows` and `fundamentals` put one entry per line so
 * diffs stay readable):
 * - `format`: "vigil-ticker-seed/1"
 * - `sources`, `counts`: provenance and the build report (informational)
 * - `exchanges`, `sectors`, `industries`: string tables; rows hold indexes into them
 * - `rows`: one array per ticker, columns as in `SEED_COLUMNS`
 * - `fundamentals`: ticker → [eps, dividend_yield, price_to_book, price_to_sales, pe_ratio, low_52w, high_52w, market_cap]
 * - `first_years`: ticker → the first year of its daily history, where later than 2003 (a listing's
 *   `ipoyear` in the exchange screener files; a crypto's first year of trading)
 */
import type {
  AssetType,
  ClassificationSource,
  ExchangeCode,
  SeedSource,
  Sp500Fundamentals,
  TickerMeta
} from "./types.js"

export const SEED_FORMAT = "vigil-ticker-seed/1"

export const SEED_COLUMNS = [
  "ticker",
  "name",
  "asset_type",
  "exchange",
  "country",
  "sector",
  "industry",
  "classification_source",
  "sp500",
  "rank",
  "price",
  "shares_outstanding",
  "avg_volume",
  "seed_source"
] as const

/** [ticker, name, asset_type, exchange#, country, sector#, industry#, cls, sp500 0|1, rank|null, price, shares, volume, "psv"] */
export type SeedRow = readonly [
  string,
  string,
  AssetType,
  number,
  string,
  number,
  number,
  string,
  0 | 1,
  number | null,
  number,
  number,
  number,
  string
]

export type SeedFundamentals = readonly [
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null
]

export interface SeedFile {
  readonly format: string
  readonly sources: Readonly<Record<string, string>>
  readonly counts: Readonly<Record<string, unknown>>
  readonly columns: ReadonlyArray<string>
  readonly exchanges: ReadonlyArray<ExchangeCode>
  readonly sectors: ReadonlyArray<string>
  readonly industries: ReadonlyArray<string>
  readonly rows: ReadonlyArray<SeedRow>
  readonly fundamentals: Readonly<Record<string, SeedFundamentals>>
  readonly first_years?: Readonly<Record<string, number>>
}

const CLS_CODE: Readonly<Record<ClassificationSource, string>> = {
  gics: "g",
  screener: "s",
  fund: "f",
  heuristic: "h",
  crypto: "c"
}
const CLS_BY_CODE: Readonly<Record<string, ClassificationSource>> = {
  g: "gics",
  s: "screener",
  f: "fund",
  h: "heuristic",
  c: "crypto"
}
const SRC_CODE: Readonly<Record<SeedSource, string>> = {
  screener: "s",
  sp500: "p",
  cmc: "c",
  yahoo: "y",
  derived: "d"
}
const SRC_BY_CODE: Readonly<Record<string, SeedSource>> = {
  s: "screener",
  p: "sp500",
  c: "cmc",
  y: "yahoo",
  d: "derived"
}

export const classificationCode = (s: ClassificationSource): string => CLS_CODE[s]
export const seedSourceCode = (price: SeedSource, shares: SeedSource, volume: SeedSource): string =>
  SRC_CODE[price] + SRC_CODE[shares] + SRC_CODE[volume]

/** Round to `digits` significant digits (keeps the file small; values are seeds, not quotes). */
export const roundSig = (x: number, digits: number): number => {
  if (x === 0 || !Number.isFinite(x)) return x
  return Number(x.toPrecision(digits))
}

/** Serialise with one row per line. */
export const encodeSeed = (seed: SeedFile): string => {
  const { rows, fundamentals, first_years: firstYears = {}, ...head } = seed
  const headJson = JSON.stringify(head, null, 2)
  const rowLines = rows.map((r) => `    ${JSON.stringify(r)}`).join(",\n")
  const byKey = (record: Readonly<Record<string, unknown>>) =>
    Object.keys(record)
      .sort()
      .map((k) => `    ${JSON.stringify(k)}: ${JSON.stringify(record[k])}`)
      .join(",\n")
  return `${headJson.slice(0, -2)},\n  "rows": [\n${rowLines}\n  ],\n  "fundamentals": {\n${byKey(fundamentals)}\n  },\n  "first_years": {\n${byKey(firstYears)}\n  }\n}\n`
}

const toFundamentals = (f: SeedFundamentals): Sp500Fundamentals => ({
  eps: f[0],
  dividend_yield: f[1],
  price_to_book: f[2],
  price_to_sales: f[3],
  pe_ratio: f[4],
  low_52w: f[5],
  high_52w: f[6],
  market_cap: f[7]
})

/** Decode the parsed seed into ticker metadata, sorted ascending by ticker. Throws on a malformed file. */
export const decodeSeed = (seed: SeedFile): ReadonlyArray<TickerMeta> => {
  if (seed.format !== SEED_FORMAT) throw new Error(`ticker seed: unsupported format ${String(seed.format)}`)
  const out: Array<TickerMeta> = new Array(seed.rows.length)
  for (let i = 0; i < seed.rows.length; i++) {
    const r = seed.rows[i]!
    const src = r[13]
    const fund = seed.fundamentals[r[0]]
    const price = r[10]
    const shares = r[11]
    out[i] = {
      ticker: r[0],
      name: r[1],
      asset_type: r[2],
      exchange: seed.exchanges[r[3]]!,
      country: r[4],
      sector: seed.sectors[r[5]]!,
      industry: seed.industries[r[6]]!,
      classification_source: CLS_BY_CODE[r[7]]!,
      sp500: r[8] === 1,
      rank: r[9],
      price,
      shares_outstanding: shares,
      market_cap: Math.round(price * shares),
      avg_volume: r[12],
      seed_source: { price: SRC_BY_CODE[src[0]!]!, shares: SRC_BY_CODE[src[1]!]!, volume: SRC_BY_CODE[src[2]!]! },
      fundamentals: fund === undefined ? null : toFundamentals(fund),
      first_year: seed.first_years?.[r[0]] ?? null
    }
  }
  out.sort((a, b) => (a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : 0))
  return out
}
