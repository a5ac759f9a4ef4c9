/**
 * Builds data/tickers.json, the committed seed of Vigil's tracked tickers, from
 * the shared reference data (see its SOURCES.md and docs/tickers.md).
 *
 *   npx tsx scripts/build-ticker-seed.ts [dataDir] [outFile]
 *
 * dataDir defaults to $VIGIL_SHARED_DATA, else `../shared/data` beside the repository root.
 *
 * Deterministic: the same inputs give a byte-identical file (every derived value
 * comes from a PRNG seeded by the ticker symbol, never from the clock).
 */
import { readFileSync, writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { cryptoIndustry } from "../src/market/tickers/cryptoIndustry.js"
import {
  classifyListing,
  cleanCompanyName,
  cleanFundName,
  countryCode,
  countryFromSecurityName,
  type ExclusionReason
} from "../src/market/tickers/listing.js"
import {
  classifyOtc,
  cleanSecName,
  countryFromLegalForm,
  type OtcExclusion,
  type OtcKind
} from "../src/market/tickers/otc.js"
import { fundIndustry, screenerSector, sectorFromName } from "../src/market/tickers/sectors.js"
import {
  classificationCode,
  encodeSeed,
  roundSig,
  SEED_COLUMNS,
  SEED_FORMAT,
  type SeedFile,
  type SeedFundamentals,
  type SeedRow,
  seedSourceCode
} from "../src/market/tickers/seed.js"
import { cryptoPairSymbol, fromScreenerSymbol, fromSecSymbol, normalizeSymbol } from "../src/market/tickers/symbols.js"
import type { AssetType, ClassificationSource, ExchangeCode, SeedSource } from "../src/market/tickers/types.js"

/** The repository root (this file is scripts/build-ticker-seed.ts). */
export const REPO_ROOT = resolve(import.meta.dirname, "..")
/** The shared reference data: $VIGIL_SHARED_DATA, else `shared/data` beside the repository. */
export const DEFAULT_DATA_DIR = process.env["VIGIL_SHARED_DATA"] || resolve(REPO_ROOT, "../shared/data")
export const DEFAULT_OUT = resolve(REPO_ROOT, "data/tickers.json")
/**
 * The interface's figure for US equities and ETFs. The listed common stocks and ETFs fall short of it;
 * OTC common stocks from the SEC ticker file fill the gap exactly (docs/tickers.md, "OTC fill").
 */
export const SPEC_EQUITY_COUNT = 12_947
export const CRYPTO_COUNT = 100

// ---------------------------------------------------------------------------
// Parsing helpers

/** RFC 4180 CSV → rows of fields (quotes, doubled quotes, CRLF, missing final newline). */
export const parseCsv = (text: string): Array<Array<string>> => {
  const rows: Array<Array<string>> = []
  let row: Array<string> = []
  let field = ""
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"'
          i++
        } else quoted = false
      } else field += c
    } else if (c === '"') quoted = true
    else if (c === ",") {
      row.push(field)
      field = ""
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++
      row.push(field)
      rows.push(row)
      row = []
      field = ""
    } else field += c
  }
  if (field !== "" || row.length > 0) {
    row.push(field)
    rows.push(row)
  }
  return rows
}

const readCsv = (path: string): Array<Record<string, string>> => {
  const [header, ...rows] = parseCsv(readFileSync(path, "utf8"))
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h.trim(), r[i] ?? ""])))
}

/** "$1,234.50" / "1.7%" / "" → number or undefined */
const num = (s: string | undefined): number | undefined => {
  if (s === undefined) return undefined
  const t = s.replace(/[$,%\s]/g, "")
  if (t === "" || t === "NA" || t === "N/A") return undefined
  const n = Number(t)
  return Number.isFinite(n) ? n : undefined
}
const positive = (n: number | undefined): number | undefined => (n !== undefined && n > 0 ? n : undefined)

// ---------------------------------------------------------------------------
// Deterministic pseudo-random values

const fnv1a = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** mulberry32 stream seeded by a string */
const rng = (key: string): (() => number) => {
  let a = fnv1a(key)
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const normal = (u: () => number): number => {
  const u1 = Math.max(u(), 1e-12)
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u())
}

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x))
const lognormal = (u: () => number, median: number, sigma: number, lo: number, hi: number): number =>
  clamp(median * Math.exp(sigma * normal(u)), lo, hi)

/** Upper bound of any derived market cap / AUM, USD. */
const MAX_DERIVED_CAP = 2e11

interface Derived {
  readonly price: number
  readonly marketCap: number
  /** fraction of shares traded per day */
  readonly turnover: number
}

/** Plausible seed values for a listing the data has no numbers for. Deterministic per ticker. */
export const derivedValues = (ticker: string, assetType: AssetType, industry: string): Derived => {
  const u = rng(`vigil-seed:${ticker}`)
  if (assetType === "ETF") {
    const marketCap = lognormal(u, 1.5e8, 1.8, 1e6, MAX_DERIVED_CAP)
    const price = lognormal(u, 30, 0.6, 5, 800)
    const base = industry === "Leveraged & Inverse" ? 0.08 : 0.01
    return { price, marketCap, turnover: lognormal(u, base, 1.0, 1e-4, 2) }
  }
  if (industry === "Blank Checks") {
    const price = 10 + 1.5 * u()
    return { price, marketCap: lognormal(u, 1.5e8, 0.5, 3e7, 1e9), turnover: lognormal(u, 0.002, 1.0, 1e-5, 0.2) }
  }
  if (industry === "Closed-End Funds") {
    const price = lognormal(u, 12, 0.5, 2, 100)
    return { price, marketCap: lognormal(u, 4e8, 1.0, 2e7, 2e10), turnover: lognormal(u, 0.003, 0.6, 1e-4, 0.1) }
  }
  const marketCap = lognormal(u, 3e8, 1.6, 5e6, 5e11)
  const price = lognormal(u, 15, 0.9, 0.5, 2000)
  return { price, marketCap, turnover: lognormal(u, 0.005, 0.8, 1e-4, 0.2) }
}

/**
 * Plausible seed values for an OTC common stock: small caps (median $40M), lower prices (penny stocks
 * for domestic names, ADR-like prices for ADRs) and a tenth of a listed stock's turnover.
 * Same PRNG key as `derivedValues`, so deterministic per ticker.
 */
export const derivedOtcValues = (ticker: string, kind: OtcKind): Derived => {
  const u = rng(`vigil-seed:${ticker}`)
  const marketCap = lognormal(u, 4e7, 1.6, 1e6, 5e10)
  const price =
    kind === "adr"
      ? lognormal(u, 12, 0.9, 0.5, 500)
      : kind === "foreign"
        ? lognormal(u, 1.5, 1.3, 0.01, 500)
        : lognormal(u, 0.8, 1.6, 0.0005, 1000)
  return { price, marketCap, turnover: lognormal(u, 5e-4, 1.2, 1e-6, 0.05) }
}

// ---------------------------------------------------------------------------
// Sources

interface Listing {
  readonly symbol: string
  readonly securityName: string
  readonly companyName: string
  readonly exchange: ExchangeCode
  readonly assetType: "CS" | "ETF"
}

interface ScreenerRow {
  readonly name: string
  readonly lastsale?: number | undefined
  readonly marketCap?: number | undefined
  readonly volume?: number | undefined
  readonly country: string
  readonly sector: string
  readonly industry: string
  /** `ipoyear`, when the screener gives one */
  readonly ipoYear?: number | undefined
}

interface Sp500Row {
  readonly sector: string
  readonly subIndustry: string
}

interface Sp500Financials {
  readonly price?: number | undefined
  readonly marketCap?: number | undefined
  readonly fundamentals: SeedFundamentals
}

const OTHER_EXCHANGE: Readonly<Record<string, ExchangeCode>> = {
  N: "NYSE",
  P: "NYSEARCA",
  A: "NYSEAMERICAN",
  Z: "CBOEBZX"
}

/** Why an OTC row of the SEC file was passed over (in file order, until the count was reached). */
export type OtcSkip = OtcExclusion | "tracked" | "listed" | "crypto" | "issuerTracked"

export interface OtcReport {
  /** OTC rows of the SEC file */
  readonly rows: number
  /** OTC rows looked at before the count was reached (the rest are never considered) */
  readonly scanned: number
  readonly taken: { readonly domestic: number; readonly adr: number; readonly foreign: number; readonly total: number }
  readonly skipped: Readonly<Record<OtcSkip, number>>
  /** the last taken row: its index in the SEC file, its SEC ticker */
  readonly cutoff: { readonly index: number; readonly ticker: string } | null
  readonly countryFromLegalForm: number
  /** ADR / foreign-ordinary rows whose country is unknown and defaults to `us` */
  readonly foreignCountryDefaulted: number
}

export interface BuildReport {
  readonly directoryRows: { readonly nasdaqListed: number; readonly otherListed: number; readonly nonTest: number }
  readonly excluded: Readonly<Record<ExclusionReason, number>>
  readonly tracked: {
    readonly CS: number
    readonly CS_OTC: number
    readonly ETF: number
    readonly CRYPTO: number
    readonly total: number
  }
  readonly specEquityCount: number
  /** the spec's count minus the tracked CS + ETF (listed and OTC); 0 unless the SEC file runs out */
  readonly equityShortfall: number
  readonly otc: OtcReport
  readonly etnsAsEtf: number
  readonly collisions: ReadonlyArray<{ readonly crypto: string; readonly tracked: string; readonly listed: string }>
  readonly classification: Readonly<Record<ClassificationSource, number>>
  readonly seedSources: {
    readonly price: Readonly<Record<SeedSource, number>>
    readonly shares: Readonly<Record<SeedSource, number>>
    readonly volume: Readonly<Record<SeedSource, number>>
  }
  readonly countryDefaulted: number
  readonly sp500: { readonly constituents: number; readonly tracked: number; readonly withFundamentals: number }
}

const readDirectories = (
  dataDir: string
): {
  listings: Array<Listing>
  /** every directory symbol, tracked or not (warrants, units, preferreds, test issues too) */
  symbols: Set<string>
  excluded: Record<ExclusionReason, number>
  rows: BuildReport["directoryRows"]
  etns: number
} => {
  const excluded: Record<ExclusionReason, number> = { test: 0, warrant: 0, right: 0, unit: 0, preferred: 0, note: 0 }
  const listings: Array<Listing> = []
  const symbols = new Set<string>()
  let etns = 0
  const nasdaq = readCsv(`${dataDir}/symbols/nasdaq-listed-symbols.csv`).filter(
    (r) => r["Symbol"] !== "" && !r["Symbol"]!.startsWith("File Creation Time")
  )
  const other = readCsv(`${dataDir}/symbols/other-listed.csv`).filter((r) => r["ACT Symbol"] !== "")
  let nonTest = 0
  const take = (
    symbol: string,
    securityName: string,
    companyName: string,
    etf: boolean,
    testIssue: boolean,
    nasdaqListed: boolean,
    exchange: ExchangeCode
  ) => {
    if (!testIssue) nonTest++
    symbols.add(symbol)
    const c = classifyListing({ symbol, securityName, etf, testIssue, nasdaqListed })
    if (!c.tracked) {
      excluded[c.reason]++
      return
    }
    if (c.assetType === "ETF" && !etf) etns++
    listings.push({ symbol, securityName, companyName, exchange, assetType: c.assetType })
  }
  for (const r of nasdaq) {
    take(
      r["Symbol"]!.trim().toUpperCase(),
      r["Security Name"]!,
      r["Company Name"]!,
      r["ETF"] === "Y",
      r["Test Issue"] === "Y",
      true,
      "NASDAQ"
    )
  }
  for (const r of other) {
    const exchange = OTHER_EXCHANGE[r["Exchange"]!]
    if (exchange === undefined)
      throw new Error(`other-listed: unknown exchange ${r["Exchange"]} for ${r["ACT Symbol"]}`)
    take(
      r["ACT Symbol"]!.trim().toUpperCase(),
      r["Security Name"]!,
      r["Company Name"]!,
      r["ETF"] === "Y",
      r["Test Issue"] === "Y",
      false,
      exchange
    )
  }
  return {
    listings,
    symbols,
    excluded,
    rows: { nasdaqListed: nasdaq.length, otherListed: other.length, nonTest },
    etns
  }
}

const readScreener = (dataDir: string): Map<string, ScreenerRow> => {
  const out = new Map<string, ScreenerRow>()
  for (const file of ["nasdaq", "nyse", "amex"]) {
    const rows = JSON.parse(readFileSync(`${dataDir}/fundamentals/${file}_full_tickers.json`, "utf8")) as Array<
      Record<string, string>
    >
    for (const r of rows) {
      const symbol = fromScreenerSymbol(r["symbol"] ?? "")
      if (symbol === "" || out.has(symbol)) continue
      out.set(symbol, {
        name: r["name"] ?? "",
        lastsale: positive(num(r["lastsale"])),
        marketCap: positive(num(r["marketCap"])),
        volume: positive(num(r["volume"])),
        country: r["country"] ?? "",
        sector: r["sector"] ?? "",
        industry: r["industry"] ?? "",
        ipoYear: /^(19|20)\d\d$/.test(r["ipoyear"] ?? "") ? Number(r["ipoyear"]) : undefined
      })
    }
  }
  return out
}

const readSp500 = (dataDir: string): Map<string, Sp500Row> =>
  new Map(
    readCsv(`${dataDir}/symbols/sp500_constituents.csv`).map((r) => [
      normalizeSymbol(r["Symbol"]!),
      { sector: r["GICS Sector"]!.trim(), subIndustry: r["GICS Sub-Industry"]!.trim() }
    ])
  )

const readSp500Financials = (dataDir: string): Map<string, Sp500Financials> =>
  new Map(
    readCsv(`${dataDir}/fundamentals/sp500_constituents_financials.csv`).map((r) => {
      const f = (k: string): number | null => {
        const v = num(r[k])
        return v === undefined ? null : roundSig(v, 6)
      }
      const marketCap = positive(num(r["Market Cap"]))
      return [
        normalizeSymbol(r["Symbol"]!),
        {
          price: positive(num(r["Price"])),
          marketCap,
          fundamentals: [
            f("Earnings/Share"),
            f("Dividend Yield"),
            f("Price/Book"),
            f("Price/Sales"),
            f("Price/Earnings"),
            f("52 Week Low"),
            f("52 Week High"),
            marketCap === undefined ? null : Math.round(marketCap)
          ]
        }
      ]
    })
  )

/** Last close and mean volume of the last 10 sessions of a Yahoo daily file (SPY/QQQ). */
const readYahoo = (path: string): { price: number; volume: number } => {
  const rows = readCsv(path).filter((r) => num(r["Close"]) !== undefined)
  const last = rows.slice(-10)
  const volume = last.reduce((s, r) => s + num(r["Volume"])!, 0) / last.length
  return { price: num(rows[rows.length - 1]!["Close"])!, volume }
}

interface SecRow {
  /** position in the SEC file (roughly market-cap order) */
  readonly index: number
  readonly cik: number
  readonly name: string
  readonly ticker: string
  readonly exchange: string | null
}

const readSec = (dataDir: string): Array<SecRow> => {
  const file = JSON.parse(readFileSync(`${dataDir}/symbols/sec_company_tickers_exchange.json`, "utf8")) as {
    fields: Array<string>
    data: Array<Array<string | number | null>>
  }
  const col = (f: string): number => {
    const i = file.fields.indexOf(f)
    if (i < 0) throw new Error(`sec_company_tickers_exchange.json: no field ${f}`)
    return i
  }
  const [cik, name, ticker, exchange] = [col("cik"), col("name"), col("ticker"), col("exchange")]
  return file.data.map((r, index) => ({
    index,
    cik: Number(r[cik]),
    name: String(r[name] ?? ""),
    ticker: String(r[ticker] ?? "")
      .trim()
      .toUpperCase(),
    exchange: r[exchange] === null ? null : String(r[exchange])
  }))
}

interface CryptoRow {
  readonly symbol: string
  readonly name: string
  readonly rank: number
  readonly price: number
  readonly marketCap: number
  readonly volume24hUsd: number
}

/** The year daily history starts for tickers the data does not date later (docs/market-data.md, "Coverage"). */
export const HISTORY_START_YEAR = 2003
/** Crypto the Coinbase file does not date (there from its first day, or absent): simulated from this year. */
export const CRYPTO_UNDATED_YEAR = 2014

/**
 * Each crypto's first year of trading where the seed data knows it: the year of its first bar in
 * the Coinbase daily file, when that is later than the file's own first day (2020-01-01).
 */
const readCryptoFirstYears = (dataDir: string): Map<string, number> => {
  const rows = readCsv(`${dataDir}/crypto/coinbase_top200_summary_20251025_171425.csv`)
  const fileStart = rows.reduce((lo, r) => (r["First Date"]! < lo ? r["First Date"]! : lo), "9999-12-31")
  const out = new Map<string, number>()
  for (const r of rows) {
    const first = r["First Date"]!.trim()
    if (first > fileStart) out.set(r["Symbol"]!.trim().toUpperCase(), Number(first.slice(0, 4)))
  }
  return out
}

const readCrypto = (dataDir: string): Array<CryptoRow> =>
  readCsv(`${dataDir}/crypto/crypto_marketcap_latest.csv`)
    .map((r) => ({
      symbol: r["symbol"]!.trim().toUpperCase(),
      name: r["name"]!.trim(),
      rank: num(r["cmc_rank"])!,
      price: num(r["price"])!,
      marketCap: num(r["market_cap"])!,
      volume24hUsd: num(r["volume_24h"])!
    }))
    .filter((r) => r.rank >= 1 && r.rank <= CRYPTO_COUNT)
    .sort((a, b) => a.rank - b.rank)

// ---------------------------------------------------------------------------
// Build

const counter = <K extends string>(keys: ReadonlyArray<K>): Record<K, number> =>
  Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>

const SEED_SOURCES: ReadonlyArray<SeedSource> = ["screener", "sp500", "cmc", "yahoo", "derived"]

/**
 * Fill the equities up to `SPEC_EQUITY_COUNT` with OTC common stocks from the SEC ticker file, taken in the
 * file's own order (roughly market-cap rank). An OTC row is passed over when its symbol (SEC form, normalized)
 * is already tracked, appears in the listing directories at all (a listed warrant/unit/preferred), equals a
 * tracked crypto's bare symbol, or names no common stock (`classifyOtc`); or when its issuer (CIK) already has
 * a tracked ticker, listed or OTC. Rows with a null exchange are never taken. Mutates `tracked` via `take`.
 */
const fillWithOtc = (
  sec: ReadonlyArray<SecRow>,
  dir: { readonly listings: ReadonlyArray<Listing>; readonly symbols: ReadonlySet<string> },
  rows: ReadonlyArray<SeedRow>,
  tracked: ReadonlySet<string>,
  take: (ticker: string, name: string, kind: OtcKind, country: string) => void
): OtcReport => {
  const listed = new Set(dir.listings.map((l) => l.symbol))
  const cryptoBare = new Set(rows.filter((r) => r[2] === "CRYPTO").map((r) => r[0].replace(/-USD$/, "")))
  const issuers = new Set(sec.filter((r) => listed.has(normalizeSymbol(fromSecSymbol(r.ticker)))).map((r) => r.cik))
  const skipped = counter<OtcSkip>([
    "tracked",
    "listed",
    "crypto",
    "issuerTracked",
    "warrant",
    "right",
    "unit",
    "preferred",
    "note",
    "bankrupt",
    "other",
    "etp"
  ])
  const taken = { domestic: 0, adr: 0, foreign: 0, total: 0 }
  let need = SPEC_EQUITY_COUNT - rows.filter((r) => r[2] === "CS" || r[2] === "ETF").length
  const otcRows = sec.filter((r) => r.exchange === "OTC")
  let scanned = 0
  let cutoff: OtcReport["cutoff"] = null
  let fromLegalForm = 0
  let foreignDefaulted = 0
  for (const r of otcRows) {
    if (need <= 0) break
    scanned++
    const symbol = normalizeSymbol(fromSecSymbol(r.ticker))
    const c = classifyOtc(symbol, r.name)
    const skip: OtcSkip | undefined = tracked.has(symbol)
      ? "tracked"
      : dir.symbols.has(symbol)
        ? "listed"
        : cryptoBare.has(symbol)
          ? "crypto"
          : issuers.has(r.cik)
            ? "issuerTracked"
            : c.tracked
              ? undefined
              : c.reason
    if (skip !== undefined || !c.tracked) {
      skipped[skip ?? "other"]++
      continue
    }
    const legal = countryFromLegalForm(r.name)
    if (legal !== undefined) fromLegalForm++
    else if (c.kind !== "domestic") foreignDefaulted++
    take(symbol, cleanSecName(r.name), c.kind, legal ?? "us")
    issuers.add(r.cik)
    taken[c.kind]++
    taken.total++
    cutoff = { index: r.index, ticker: r.ticker }
    need--
  }
  return {
    rows: otcRows.length,
    scanned,
    taken,
    skipped,
    cutoff,
    countryFromLegalForm: fromLegalForm,
    foreignCountryDefaulted: foreignDefaulted
  }
}

export const buildSeed = (dataDir: string = DEFAULT_DATA_DIR): { seed: SeedFile; report: BuildReport } => {
  const dir = readDirectories(dataDir)
  const screener = readScreener(dataDir)
  const sp500 = readSp500(dataDir)
  const sp500Fin = readSp500Financials(dataDir)
  const yahoo = new Map([
    ["SPY", readYahoo(`${dataDir}/prices/etfs/SPY.csv`)],
    ["QQQ", readYahoo(`${dataDir}/prices/etfs/QQQ.csv`)]
  ])
  const crypto = readCrypto(dataDir)
  const cryptoFirstYears = readCryptoFirstYears(dataDir)
  const sec = readSec(dataDir)

  const exchanges: Array<ExchangeCode> = ["NASDAQ", "NYSE", "NYSEARCA", "NYSEAMERICAN", "CBOEBZX", "OTC", "CRYPTO"]
  const sectors: Array<string> = []
  const industries: Array<string> = []
  const intern = (table: Array<string>, index: Map<string, number>, s: string): number => {
    let i = index.get(s)
    if (i === undefined) {
      i = table.length
      table.push(s)
      index.set(s, i)
    }
    return i
  }
  const sectorIndex = new Map<string, number>()
  const industryIndex = new Map<string, number>()

  const classification = counter<ClassificationSource>(["gics", "screener", "fund", "heuristic", "crypto"])
  const priceSrc = counter(SEED_SOURCES)
  const sharesSrc = counter(SEED_SOURCES)
  const volumeSrc = counter(SEED_SOURCES)
  let countryDefaulted = 0
  const rows: Array<SeedRow> = []
  const fundamentals: Record<string, SeedFundamentals> = {}
  /** ticker → first year of daily history, where later than HISTORY_START_YEAR */
  const firstYears: Record<string, number> = {}
  const tracked = new Set<string>()

  const push = (
    ticker: string,
    name: string,
    assetType: AssetType,
    exchange: ExchangeCode,
    country: string,
    cls: { sector: string; industry: string; source: ClassificationSource },
    sp: boolean,
    rank: number | null,
    seed: { price: number; shares: number; volume: number; src: readonly [SeedSource, SeedSource, SeedSource] }
  ) => {
    if (tracked.has(ticker)) throw new Error(`duplicate ticker ${ticker}`)
    tracked.add(ticker)
    classification[cls.source]++
    priceSrc[seed.src[0]]++
    sharesSrc[seed.src[1]]++
    volumeSrc[seed.src[2]]++
    rows.push([
      ticker,
      name,
      assetType,
      exchanges.indexOf(exchange),
      country,
      intern(sectors, sectorIndex, cls.sector),
      intern(industries, industryIndex, cls.industry),
      classificationCode(cls.source),
      sp ? 1 : 0,
      rank,
      roundSig(seed.price, 6),
      Math.max(1, Math.round(seed.shares)),
      Math.max(1, Math.round(seed.volume)),
      seedSourceCode(...seed.src)
    ])
  }

  type Cls = { sector: string; industry: string; source: ClassificationSource }
  const sourced = new Map<string, { cls: Cls; country: string | undefined }>()
  const names = new Map<string, string>()
  for (const l of dir.listings) {
    const scr = screener.get(l.symbol)
    const gics = sp500.get(l.symbol)
    const isEtf = l.assetType === "ETF"
    names.set(
      l.symbol,
      isEtf
        ? cleanFundName(l.securityName)
        : cleanCompanyName(
            l.securityName.includes(" - ") && l.companyName.trim() !== "" ? l.companyName : l.securityName
          )
    )
    const country = countryCode(scr?.country) ?? countryFromSecurityName(l.securityName)
    const scrSector = scr === undefined ? undefined : screenerSector(scr.sector, scr.industry)
    if (gics !== undefined)
      sourced.set(l.symbol, { cls: { sector: gics.sector, industry: gics.subIndustry, source: "gics" }, country })
    else if (!isEtf && scr !== undefined && scrSector !== undefined)
      sourced.set(l.symbol, {
        cls: { sector: scrSector, industry: scr.industry.trim() || scrSector, source: "screener" },
        country
      })
  }
  const stockSymbols = dir.listings.filter((l) => l.assetType === "CS").map((l) => l.symbol)
  /** another share class of the same issuer that has a sourced classification (BRK.A → BRK.B, BELFA → BELFB) */
  const sibling = (symbol: string): { cls: Cls; country: string | undefined } | undefined => {
    const dot = symbol.indexOf(".")
    const root = dot > 0 ? symbol.slice(0, dot) : /^[A-Z]{4}[ABCK]$/.test(symbol) ? symbol.slice(0, 4) : undefined
    if (root === undefined) return undefined
    const candidates = stockSymbols.filter(
      (s) =>
        s !== symbol && (s === root || s.startsWith(`${root}.`) || (dot < 0 && s.length === 5 && s.startsWith(root)))
    )
    for (const c of candidates.sort()) {
      const found = sourced.get(c)
      if (found !== undefined) return found
    }
    return undefined
  }

  for (const l of dir.listings) {
    const fin = sp500Fin.get(l.symbol)
    const scr = screener.get(l.symbol)
    const gics = sp500.get(l.symbol)
    const isEtf = l.assetType === "ETF"
    const name = names.get(l.symbol)!
    const own = isEtf ? undefined : (sourced.get(l.symbol) ?? sibling(l.symbol))
    const cls: Cls = isEtf
      ? { sector: "ETF", industry: fundIndustry(name), source: "fund" }
      : (own?.cls ?? { ...sectorFromName(name), source: "heuristic" })
    let country = countryCode(scr?.country) ?? countryFromSecurityName(l.securityName) ?? own?.country
    if (country === undefined) {
      country = "us"
      if (!isEtf) countryDefaulted++
    }

    const d = derivedValues(l.symbol, l.assetType, cls.industry)
    const y = yahoo.get(l.symbol)
    let price: number
    let priceFrom: SeedSource
    if (scr?.lastsale !== undefined) [price, priceFrom] = [scr.lastsale, "screener"]
    else if (fin?.price !== undefined) [price, priceFrom] = [fin.price, "sp500"]
    else if (y !== undefined) [price, priceFrom] = [y.price, "yahoo"]
    else [price, priceFrom] = [d.price, "derived"]

    let volume: number
    let volumeFrom: SeedSource
    if (scr?.volume !== undefined) [volume, volumeFrom] = [scr.volume, "screener"]
    else if (y !== undefined) [volume, volumeFrom] = [y.volume, "yahoo"]
    else [volume, volumeFrom] = [Number.NaN, "derived"]

    let shares: number
    let sharesFrom: SeedSource
    if (scr?.marketCap !== undefined && scr.lastsale !== undefined)
      [shares, sharesFrom] = [scr.marketCap / scr.lastsale, "screener"]
    else if (fin?.marketCap !== undefined && fin.price !== undefined)
      [shares, sharesFrom] = [fin.marketCap / fin.price, "sp500"]
    else if (volumeFrom !== "derived")
      [shares, sharesFrom] = [Math.min(volume / d.turnover, MAX_DERIVED_CAP / price), "derived"]
    else [shares, sharesFrom] = [d.marketCap / price, "derived"]

    if (volumeFrom === "derived") volume = Math.max(100, shares * d.turnover)

    if (fin !== undefined && gics !== undefined && fin.fundamentals.some((v) => v !== null))
      fundamentals[l.symbol] = fin.fundamentals
    if (scr?.ipoYear !== undefined && scr.ipoYear > HISTORY_START_YEAR) firstYears[l.symbol] = scr.ipoYear
    push(l.symbol, name, l.assetType, l.exchange, country, cls, gics !== undefined, null, {
      price,
      shares,
      volume,
      src: [priceFrom, sharesFrom, volumeFrom]
    })
  }

  const collisions: Array<{ crypto: string; tracked: string; listed: string }> = []
  const listedName = new Map(rows.map((r) => [r[0], r[1]]))
  for (const c of crypto) {
    const listed = listedName.get(c.symbol)
    const ticker = listed === undefined ? c.symbol : cryptoPairSymbol(c.symbol)
    if (listed !== undefined) collisions.push({ crypto: c.symbol, tracked: ticker, listed: `${c.symbol} (${listed})` })
    firstYears[ticker] = cryptoFirstYears.get(c.symbol) ?? CRYPTO_UNDATED_YEAR
    push(
      ticker,
      c.name,
      "CRYPTO",
      "CRYPTO",
      "",
      { sector: "Crypto", industry: cryptoIndustry(c.symbol), source: "crypto" },
      false,
      c.rank,
      { price: c.price, shares: c.marketCap / c.price, volume: c.volume24hUsd / c.price, src: ["cmc", "cmc", "cmc"] }
    )
  }

  const otc = fillWithOtc(sec, dir, rows, tracked, (t, name, kind, country) => {
    const cls = { ...sectorFromName(name), source: "heuristic" as const }
    const d = derivedOtcValues(t, kind)
    const shares = d.marketCap / d.price
    push(t, name, "CS", "OTC", country, cls, false, null, {
      price: d.price,
      shares,
      volume: Math.max(100, shares * d.turnover),
      src: ["derived", "derived", "derived"]
    })
  })

  rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  const cs = rows.filter((r) => r[2] === "CS").length
  const etf = rows.filter((r) => r[2] === "ETF").length
  const report: BuildReport = {
    directoryRows: dir.rows,
    excluded: dir.excluded,
    tracked: { CS: cs, CS_OTC: otc.taken.total, ETF: etf, CRYPTO: crypto.length, total: rows.length },
    specEquityCount: SPEC_EQUITY_COUNT,
    equityShortfall: SPEC_EQUITY_COUNT - (cs + etf),
    otc,
    etnsAsEtf: dir.etns,
    collisions,
    classification,
    seedSources: { price: priceSrc, shares: sharesSrc, volume: volumeSrc },
    countryDefaulted,
    sp500: {
      constituents: sp500.size,
      tracked: rows.filter((r) => r[8] === 1).length,
      withFundamentals: Object.keys(fundamentals).length
    }
  }
  const seed: SeedFile = {
    format: SEED_FORMAT,
    sources: {
      listings:
        "symbols/nasdaq-listed-symbols.csv (2026-07-31), symbols/other-listed.csv (2026-08-22); NASDAQ Trader via datasets/*, ODC-PDDL-1.0",
      gics: "symbols/sp500_constituents.csv (2026-08-08), ODC-PDDL-1.0",
      fundamentals:
        "fundamentals/sp500_constituents_financials.csv (2026-08-22), ODC-PDDL-1.0 (figures from Yahoo Finance)",
      screener:
        "fundamentals/{nasdaq,nyse,amex}_full_tickers.json (nasdaq.com screener, 2026-08-21 close; licence unclear)",
      crypto: "crypto/crypto_marketcap_latest.csv (CoinMarketCap, 2025-11-03T02:01Z; licence unclear), ranks 1-100",
      etf_prices: "prices/etfs/{SPY,QQQ}.csv (Yahoo Finance, to 2021-06-04; licence unclear)",
      otc: "symbols/sec_company_tickers_exchange.json (SEC EDGAR, about 2025-12; public domain): OTC common stocks in file order, up to 12,947 CS + ETF",
      derived: "values marked derived come from a PRNG seeded by the ticker (scripts/build-ticker-seed.ts)"
    },
    counts: {
      CS: cs,
      CS_OTC: otc.taken.total,
      ETF: etf,
      CRYPTO: crypto.length,
      total: rows.length,
      excluded: dir.excluded,
      otc_skipped: otc.skipped,
      collisions: collisions.map((c) => c.tracked)
    },
    columns: SEED_COLUMNS,
    exchanges,
    sectors,
    industries,
    rows,
    fundamentals,
    first_years: firstYears
  }
  return { seed, report }
}

const main = (): void => {
  const dataDir = resolve(process.argv[2] || DEFAULT_DATA_DIR)
  const out = resolve(process.argv[3] || DEFAULT_OUT)
  const { seed, report } = buildSeed(dataDir)
  const text = encodeSeed(seed)
  writeFileSync(out, text)
  process.stdout.write(`${JSON.stringify(report, null, 2)}\nwrote ${out} (${text.length} bytes)\n`)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main()
