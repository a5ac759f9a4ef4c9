/**
 * Parses daily bar files for import. Three layouts, told apart by the header:
 *
 * - the long format `ticker,date,open,high,low,close,volume` (any number of
 *   tickers in one file),
 * - the whole-market daily aggregates of Polygon/Massive flat files
 *   (`ticker,volume,open,close,high,low,window_start,transactions`, any column
 *   order): `window_start` is the session's start in nanoseconds since the
 *   epoch, read as the New York date for equities and the UTC date for crypto
 *   (`X:BTCUSD` is the pair BTC-USD). Such a file holds every symbol of its
 *   market; the symbols Vigil does not track are skipped and counted
 *   (`skipped`), not refused, and
 * - a per-ticker file whose header names the columns in any order: `date` or
 *   `timestamp`, `open`, `high`, `low`, `close`, `volume`, and optionally an
 *   adjusted close (`adj close`, `adj_close`, `adjusted_close`) and a split
 *   coefficient (`split_coefficient`), as Yahoo and Alpha Vantage write them.
 *   The ticker comes from the caller.
 *
 * With an adjusted close, open/high/low/close are scaled by adjusted/close so
 * the series is split- and dividend-adjusted. With a split coefficient, the
 * volume is scaled by the cumulative later splits (split-adjusted, not
 * dividend-adjusted, as volume should be); without one it is taken as is.
 *
 * The parser validates every row (date form and order, positive finite
 * prices, low ≤ open, close ≤ high, volume ≥ 0, a tracked ticker, and with
 * `currentSession` a date before the ticker's current session) and reports the
 * first bad line as `file:line: reason`; callers store nothing unless the
 * whole file parsed. A skipped row of a whole-market file must still be well
 * formed (numbers, a timestamp); only the checks of tracked bars are spared it.
 */
import { nyDate } from "../calendar.js"
import { isoDate } from "../indicators/days.js"
import type { StoredBar } from "../ports.js"

/** A parsed bar is what the store keeps of an imported daily bar. */
export type ParsedBar = StoredBar

export class CsvImportError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
    readonly file = "input"
  ) {
    // line 0: the file as a whole (its compression, its reading)
    super(line === 0 ? `${file}: ${reason}` : `${file}:${line}: ${reason}`)
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

const validDate = (text: string): boolean => {
  const m = DATE.exec(text)
  if (!m) return false
  const d = new Date(`${text}T00:00:00Z`)
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text
}

/** Splits one CSV line; handles double-quoted fields with "" escapes. */
export const splitCsvLine = (line: string): Array<string> => {
  if (!line.includes('"')) return line.split(",")
  const out: Array<string> = []
  let field = ""
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"'
        i++
      } else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') quoted = true
    else if (c === ",") {
      out.push(field)
      field = ""
    } else field += c
  }
  out.push(field)
  return out
}

const normalizeHeader = (h: string) =>
  h
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_")

/** How a bar file lays out its rows (`splits` files are parsed by `csvSplits.ts`). */
export type BarLayout = "long" | "per-ticker" | "aggregates"

interface Layout {
  readonly kind: BarLayout
  readonly long: boolean
  readonly ticker: number
  readonly date: number
  readonly open: number
  readonly high: number
  readonly low: number
  readonly close: number
  readonly volume: number
  readonly adjClose: number
  readonly split: number
  /** `window_start` (aggregates): nanoseconds since the epoch */
  readonly windowStart: number
}

const findLayout = (header: ReadonlyArray<string>, file: string, tickerGiven: boolean): Layout => {
  const names = header.map(normalizeHeader)
  const idx = (...candidates: Array<string>) => {
    for (const c of candidates) {
      const i = names.indexOf(c)
      if (i >= 0) return i
    }
    return -1
  }
  const layout = {
    ticker: idx("ticker", "symbol"),
    date: idx("date", "timestamp", "window_start"),
    open: idx("open"),
    high: idx("high"),
    low: idx("low"),
    close: idx("close"),
    volume: idx("volume"),
    adjClose: idx("adj_close", "adjusted_close", "adjclose"),
    split: idx("split_coefficient", "split_factor"),
    windowStart: idx("window_start")
  }
  const missing = (["date", "open", "high", "low", "close", "volume"] as const).filter((k) => layout[k] < 0)
  if (missing.length > 0) {
    throw new CsvImportError(
      1,
      `header lacks ${missing.join(", ")} (expected ticker,date,open,high,low,close,volume or a per-ticker header such as Date,Open,High,Low,Close,Adj Close,Volume)`,
      file
    )
  }
  if (layout.ticker < 0 && !tickerGiven) {
    throw new CsvImportError(1, "the file has no ticker column: name the ticker (--ticker T / ?ticker=T)", file)
  }
  const aggregates = layout.windowStart >= 0 && layout.ticker >= 0
  return {
    ...layout,
    kind: aggregates ? "aggregates" : layout.ticker >= 0 ? "long" : "per-ticker",
    long: layout.ticker >= 0
  }
}

/** `window_start` digits: nanoseconds since the epoch, 1990 to 2100 (`calendar.ts`'s range). */
const NANOS = /^\d{18,19}$/
const MIN_NANOS = Date.UTC(1990, 0, 1) * 1e6
const MAX_NANOS = Date.UTC(2100, 0, 1) * 1e6

/**
 * A flat file's symbol as Vigil would look it up: `X:BTCUSD` → `BTC-USD` (crypto pairs quoted in
 * USD; other quotes, forex `C:` and indices `I:` are not tracked), undefined for a symbol that is
 * not a listed share Vigil could track (lower-case letters mark preferreds, when-issued and the
 * like in these files: `ABCpD`, `ABCw`).
 */
export const flatFileSymbol = (symbol: string): { readonly symbol: string; readonly crypto: boolean } | undefined => {
  if (symbol.startsWith("X:")) {
    const pair = /^X:([A-Z0-9]+)USD$/.exec(symbol)
    return pair === null ? undefined : { symbol: `${pair[1]}-USD`, crypto: true }
  }
  if (symbol.includes(":") || /[a-z]/.test(symbol)) return undefined
  return { symbol, crypto: false }
}

const num = (raw: string | undefined, what: string, line: number, file: string, min: "positive" | "nonnegative") => {
  // Number() reads surrounding blanks itself, and reads "" and blanks alone as 0
  const v = raw === undefined || raw.length === 0 ? Number.NaN : Number(raw)
  if (!Number.isFinite(v) || (v === 0 && raw!.trim() === "")) {
    throw new CsvImportError(line, `${what} is not a number (${JSON.stringify((raw ?? "").trim())})`, file)
  }
  if (min === "positive" ? v <= 0 : v < 0) {
    throw new CsvImportError(line, `${what} must be ${min === "positive" ? "> 0" : ">= 0"} (got ${raw!.trim()})`, file)
  }
  return v
}

/** A whole-market file's symbol resolved: its canonical ticker and asset class, null when not tracked. */
export type FlatHit = { readonly ticker: string; readonly crypto: boolean } | null

/**
 * Resolves whole-market symbols (`flatFileSymbol`, then the directory), remembering each: a
 * resolver shared by the files of an import (or a process) resolves each symbol once.
 */
export const flatResolver = (
  resolveTicker: (symbol: string) => string | undefined,
  isCrypto: (ticker: string) => boolean
): ((symbol: string) => FlatHit) => {
  const known = new Map<string, FlatHit>()
  return (symbol) => {
    let hit = known.get(symbol)
    if (hit === undefined) {
      const flat = flatFileSymbol(symbol)
      const ticker = flat === undefined ? undefined : resolveTicker(flat.symbol)
      const crypto = ticker !== undefined && isCrypto(ticker)
      // a crypto pair must find a crypto, and a share a share (`X:LINKUSD` is not Interlink)
      hit = ticker === undefined || crypto !== flat!.crypto ? null : { ticker, crypto }
      known.set(symbol, hit)
    }
    return hit
  }
}

const PRICE_NAMES = ["open", "high", "low", "close", "volume"] as const

/**
 * An incremental parser: feed it text chunks as they arrive (a streamed
 * upload), then `finish()` for the validated, adjusted bars per ticker. The
 * rows read are kept in columns until then (no object per row).
 */
export class CsvBarParser {
  private carry = ""
  private lineNo = 0
  private layout: Layout | undefined
  private rowCount = 0
  // the rows kept (skipped rows aside), in columns
  private symbols: Array<string> = []
  /** the canonical ticker when resolved while reading (aggregates), else undefined */
  private canonicals: Array<string | undefined> = []
  private dates: Array<string> = []
  private opens: Array<number> = []
  private highs: Array<number> = []
  private lows: Array<number> = []
  private closes: Array<number> = []
  private volumes: Array<number> = []
  /** adjusted closes and split coefficients, when the layout has them */
  private adjs: Array<number> = []
  private splits: Array<number> = []
  private lines: Array<number> = []
  private readonly resolveFlat: (symbol: string) => FlatHit
  /** aggregates: the symbols skipped (not tracked), with their rows */
  private readonly skippedSymbols = new Map<string, number>()
  /** aggregates: the last window_start read and its dates (a day file repeats one or two) */
  private lastNanos = ""
  private lastNanosDate: readonly [string, string] = ["", ""]
  /** aggregates: the current session of shares and of crypto, once asked */
  private readonly sessions: [string | undefined, string | undefined] = [undefined, undefined]

  constructor(
    private readonly options: {
      readonly file?: string
      /** ticker for a per-ticker file (required when the file has no ticker column) */
      readonly ticker?: string | undefined
      /** canonical form of a ticker, or undefined when it is not tracked */
      readonly resolveTicker: (symbol: string) => string | undefined
      /** whether a canonical ticker is a crypto (its trading date is the UTC date); default none */
      readonly isCrypto?: ((ticker: string) => boolean) | undefined
      /** the current session of a canonical ticker (`YYYY-MM-DD`): a bar dated on or after it is refused */
      readonly currentSession?: ((ticker: string) => string) | undefined
      /** resolves whole-market symbols (default: one of its own over `resolveTicker` and `isCrypto`) */
      readonly resolveFlat?: ((symbol: string) => FlatHit) | undefined
    }
  ) {
    this.resolveFlat = options.resolveFlat ?? flatResolver(options.resolveTicker, (t) => options.isCrypto?.(t) === true)
  }

  private get file() {
    return this.options.file ?? "input"
  }

  /** the layout the header gave (undefined before the header is read) */
  get layoutKind(): BarLayout | undefined {
    return this.layout?.kind
  }

  /** whether the file adjusted its bars for splits itself (an adjusted close or a split coefficient column) */
  get adjusted(): boolean {
    return this.layout !== undefined && (this.layout.adjClose >= 0 || this.layout.split >= 0)
  }

  /** the symbols of a whole-market file that Vigil does not track (skipped), sorted, with their rows */
  get skipped(): ReadonlyMap<string, number> {
    return new Map([...this.skippedSymbols].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  }

  /** the rows of the file read so far (after the header, blank lines aside; skipped ones too) */
  get rowsRead(): number {
    return this.rowCount
  }

  /** `window_start` (nanoseconds) as the trading date: New York for equities, UTC for crypto */
  private windowDate(raw: string | undefined, crypto: boolean, at: number): string {
    const text = (raw ?? "").trim()
    if (text !== this.lastNanos) {
      if (!NANOS.test(text)) {
        throw new CsvImportError(
          at,
          `window_start ${JSON.stringify(text)} is not nanoseconds since the epoch`,
          this.file
        )
      }
      const nanos = Number(text)
      if (nanos < MIN_NANOS || nanos >= MAX_NANOS) {
        throw new CsvImportError(at, `window_start ${text} is outside 1990..2099`, this.file)
      }
      const ms = nanos / 1e6
      this.lastNanos = text
      this.lastNanosDate = [nyDate(ms), isoDate(Math.floor(ms / 86_400_000))]
    }
    return this.lastNanosDate[crypto ? 1 : 0]
  }

  push(chunk: string): void {
    const text = this.carry + chunk
    const lines = text.split("\n")
    this.carry = lines.pop() ?? ""
    for (const line of lines) this.line(line.endsWith("\r") ? line.slice(0, -1) : line)
  }

  private line(raw: string): void {
    this.lineNo++
    const line = this.lineNo === 1 ? raw.replace(/^\uFEFF/, "") : raw
    if (line.length === 0 || (line.charCodeAt(0) <= 32 && line.trim() === "")) return
    const fields = splitCsvLine(line)
    if (this.layout === undefined) {
      this.layout = findLayout(fields, this.file, this.options.ticker !== undefined)
      return
    }
    const l = this.layout
    const at = this.lineNo
    const file = this.file
    this.rowCount++
    const symbol = l.long ? (fields[l.ticker] ?? "").trim() : (this.options.ticker ?? "")
    if (symbol === "") throw new CsvImportError(at, "ticker is empty", file)
    let date: string
    let canonical: string | undefined
    if (l.kind === "aggregates") {
      const hit = this.resolveFlat(symbol)
      date = this.windowDate(fields[l.windowStart], hit?.crypto === true, at)
      if (hit === null) {
        // not tracked: counted and skipped, once its numbers are known to be numbers
        const columns = [l.open, l.high, l.low, l.close, l.volume]
        for (let k = 0; k < columns.length; k++) {
          const text = (fields[columns[k]] ?? "").trim()
          if (text === "" || !Number.isFinite(Number(text))) {
            throw new CsvImportError(at, `${PRICE_NAMES[k]} is not a number (${JSON.stringify(text)})`, file)
          }
        }
        this.skippedSymbols.set(symbol, (this.skippedSymbols.get(symbol) ?? 0) + 1)
        return
      }
      canonical = hit.ticker
      const current = this.options.currentSession
      if (current !== undefined) {
        // the session of its asset class, asked once per file
        const k = hit.crypto ? 1 : 0
        const session = (this.sessions[k] ??= current(canonical))
        if (date >= session) {
          throw new CsvImportError(
            at,
            `${canonical}: bar dated ${date} is not before the current session (${session}); only completed days can be imported`,
            file
          )
        }
      }
    } else {
      date = (fields[l.date] ?? "").trim().slice(0, 10)
      if (!validDate(date))
        throw new CsvImportError(at, `date ${JSON.stringify(fields[l.date] ?? "")} is not YYYY-MM-DD`, file)
    }
    const open = num(fields[l.open], "open", at, file, "positive")
    const high = num(fields[l.high], "high", at, file, "positive")
    const low = num(fields[l.low], "low", at, file, "positive")
    const close = num(fields[l.close], "close", at, file, "positive")
    const volume = num(fields[l.volume], "volume", at, file, "nonnegative")
    const eps = 1e-9 * high
    if (low > high + eps) throw new CsvImportError(at, `low ${low} is above high ${high}`, file)
    if (open > high + eps || open < low - eps) {
      throw new CsvImportError(at, `open ${open} is outside low..high (${low}..${high})`, file)
    }
    if (close > high + eps || close < low - eps) {
      throw new CsvImportError(at, `close ${close} is outside low..high (${low}..${high})`, file)
    }
    if (l.adjClose >= 0) this.adjs.push(num(fields[l.adjClose], "adjusted close", at, file, "positive"))
    if (l.split >= 0) this.splits.push(num(fields[l.split], "split coefficient", at, file, "positive"))
    this.symbols.push(symbol)
    this.canonicals.push(canonical)
    this.dates.push(date)
    this.opens.push(open)
    this.highs.push(high)
    this.lows.push(low)
    this.closes.push(close)
    this.volumes.push(volume)
    this.lines.push(at)
  }

  /** Validates the whole file and returns the adjusted bars grouped by canonical ticker, dates ascending. */
  finish(): ReadonlyMap<string, ReadonlyArray<ParsedBar>> {
    if (this.carry !== "") {
      const last = this.carry
      this.carry = ""
      this.line(last)
    }
    if (this.layout === undefined) throw new CsvImportError(1, "the file is empty (no header)", this.file)
    if (this.rowCount === 0) throw new CsvImportError(this.lineNo, "the file has a header but no rows", this.file)
    const { symbols, canonicals, dates, opens, highs, lows, closes, volumes, adjs, splits, lines } = this
    // the rows go with this call: a parser holds one file's rows until then, never more
    this.symbols = []
    this.canonicals = []
    this.dates = []
    this.opens = []
    this.highs = []
    this.lows = []
    this.closes = []
    this.volumes = []
    this.adjs = []
    this.splits = []
    this.lines = []
    const hasAdj = adjs.length > 0
    const hasSplit = splits.length > 0
    // by ticker: the index of its one row (a whole-market day), or of its several
    const byTicker = new Map<string, number | Array<number>>()
    const current = this.options.currentSession
    for (let r = 0; r < symbols.length; r++) {
      const canonical = canonicals[r] ?? this.options.resolveTicker(symbols[r])
      if (canonical === undefined) {
        throw new CsvImportError(lines[r], `ticker ${symbols[r]} is not tracked by Vigil`, this.file)
      }
      // (an aggregates row, resolved while read, was checked then)
      if (current !== undefined && canonicals[r] === undefined) {
        const session = current(canonical)
        if (dates[r] >= session) {
          throw new CsvImportError(
            lines[r],
            `${canonical}: bar dated ${dates[r]} is not before the current session (${session}); only completed days can be imported`,
            this.file
          )
        }
      }
      const held = byTicker.get(canonical)
      if (held === undefined) byTicker.set(canonical, r)
      else if (typeof held === "number") byTicker.set(canonical, [held, r])
      else held.push(r)
    }
    const out = new Map<string, ReadonlyArray<ParsedBar>>()
    for (const [ticker, held] of byTicker) {
      if (typeof held === "number") {
        const factor = hasAdj ? adjs[held] / closes[held] : 1
        out.set(ticker, [
          {
            ticker,
            date: dates[held],
            open: opens[held] * factor,
            high: highs[held] * factor,
            low: lows[held] * factor,
            close: closes[held] * factor,
            volume: volumes[held]
          }
        ])
        continue
      }
      // files come oldest-first or newest-first; anything else is an error
      const ordered = dates[held[0]] <= dates[held[held.length - 1]] ? held : [...held].reverse()
      for (let i = 1; i < ordered.length; i++) {
        const a = ordered[i - 1]
        const b = ordered[i]
        if (dates[b] <= dates[a]) {
          const bad = lines[b] > lines[a] ? b : a
          throw new CsvImportError(
            lines[bad],
            dates[b] === dates[a]
              ? `duplicate date ${dates[bad]} for ${ticker}`
              : `dates of ${ticker} are not in order at ${dates[bad]}`,
            this.file
          )
        }
      }
      // volume: scale by the product of the splits that happen after each day
      let laterSplits = 1
      const bars: Array<ParsedBar> = new Array(ordered.length)
      for (let i = ordered.length - 1; i >= 0; i--) {
        const r = ordered[i]
        const factor = hasAdj ? adjs[r] / closes[r] : 1
        bars[i] = {
          ticker,
          date: dates[r],
          open: opens[r] * factor,
          high: highs[r] * factor,
          low: lows[r] * factor,
          close: closes[r] * factor,
          volume: volumes[r] * laterSplits
        }
        if (hasSplit) laterSplits *= splits[r]
      }
      out.set(ticker, bars)
    }
    return out
  }
}

/** Parses a whole file given as one string. */
export const parseCsvBars = (
  text: string,
  options: ConstructorParameters<typeof CsvBarParser>[0]
): ReadonlyMap<string, ReadonlyArray<ParsedBar>> => {
  const parser = new CsvBarParser(options)
  parser.push(text)
  return parser.finish()
}
