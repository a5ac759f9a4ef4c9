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
import {
  type BarLayout,
  type FlatHit,
  findLayout,
  flatResolver,
  type Layout,
  MAX_NANOS,
  MIN_NANOS,
  NANOS
} from "./csvLayout.js"
import { CsvImportError, num, splitCsvLine } from "./csvLine.js"

/** A parsed bar is what the store keeps of an imported daily bar. */
export type ParsedBar = StoredBar

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

const validDate = (text: string): boolean => {
  const m = DATE.exec(text)
  if (!m) return false
  const d = new Date(`${text}T00:00:00Z`)
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text
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
