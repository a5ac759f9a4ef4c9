/**
 * Parses daily bar files for import. Two layouts:
 *
 * - the long format `ticker,date,open,high,low,close,volume` (any number of
 *   tickers in one file), and
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
 * prices, low ≤ open, close ≤ high, volume ≥ 0) and reports the first bad
 * line as `file:line: reason`; callers store nothing unless the whole file
 * parsed.
 */
import type { StoredBar } from "../../store/importedBars.js"

/** A parsed bar is what the store keeps of an imported daily bar. */
export type ParsedBar = StoredBar

export class CsvImportError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
    readonly file = "input"
  ) {
    super(`${file}:${line}: ${reason}`)
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

interface Layout {
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
    date: idx("date", "timestamp"),
    open: idx("open"),
    high: idx("high"),
    low: idx("low"),
    close: idx("close"),
    volume: idx("volume"),
    adjClose: idx("adj_close", "adjusted_close", "adjclose"),
    split: idx("split_coefficient", "split_factor")
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
  return { ...layout, long: layout.ticker >= 0 }
}

const num = (raw: string | undefined, what: string, line: number, file: string, min: "positive" | "nonnegative") => {
  const text = (raw ?? "").trim()
  const v = text === "" ? Number.NaN : Number(text)
  if (!Number.isFinite(v)) throw new CsvImportError(line, `${what} is not a number (${JSON.stringify(text)})`, file)
  if (min === "positive" ? v <= 0 : v < 0) {
    throw new CsvImportError(line, `${what} must be ${min === "positive" ? "> 0" : ">= 0"} (got ${text})`, file)
  }
  return v
}

interface RawRow {
  ticker: string
  date: string
  open: number
  high: number
  low: number
  close: number
  volume: number
  adj: number
  split: number
  line: number
}

/**
 * An incremental parser: feed it text chunks as they arrive (a streamed
 * upload), then `finish()` for the validated, adjusted bars per ticker.
 */
export class CsvBarParser {
  private carry = ""
  private lineNo = 0
  private layout: Layout | undefined
  private readonly rows: Array<RawRow> = []

  constructor(
    private readonly options: {
      readonly file?: string
      /** ticker for a per-ticker file (required when the file has no ticker column) */
      readonly ticker?: string | undefined
      /** canonical form of a ticker, or undefined when it is not tracked */
      readonly resolveTicker: (symbol: string) => string | undefined
    }
  ) {}

  private get file() {
    return this.options.file ?? "input"
  }

  push(chunk: string): void {
    const text = this.carry + chunk
    const lines = text.split(/\r?\n/)
    this.carry = lines.pop() ?? ""
    for (const line of lines) this.line(line)
  }

  private line(raw: string): void {
    this.lineNo++
    const line = this.lineNo === 1 ? raw.replace(/^\uFEFF/, "") : raw
    if (line.trim() === "") return
    const fields = splitCsvLine(line)
    if (this.layout === undefined) {
      this.layout = findLayout(fields, this.file, this.options.ticker !== undefined)
      return
    }
    const l = this.layout
    const at = this.lineNo
    const file = this.file
    const symbol = l.long ? (fields[l.ticker] ?? "").trim() : (this.options.ticker ?? "")
    if (symbol === "") throw new CsvImportError(at, "ticker is empty", file)
    const date = (fields[l.date] ?? "").trim().slice(0, 10)
    if (!validDate(date))
      throw new CsvImportError(at, `date ${JSON.stringify(fields[l.date] ?? "")} is not YYYY-MM-DD`, file)
    const row: RawRow = {
      ticker: symbol,
      date,
      open: num(fields[l.open], "open", at, file, "positive"),
      high: num(fields[l.high], "high", at, file, "positive"),
      low: num(fields[l.low], "low", at, file, "positive"),
      close: num(fields[l.close], "close", at, file, "positive"),
      volume: num(fields[l.volume], "volume", at, file, "nonnegative"),
      adj: l.adjClose >= 0 ? num(fields[l.adjClose], "adjusted close", at, file, "positive") : Number.NaN,
      split: l.split >= 0 ? num(fields[l.split], "split coefficient", at, file, "positive") : 1,
      line: at
    }
    const eps = 1e-9 * row.high
    if (row.low > row.high + eps) throw new CsvImportError(at, `low ${row.low} is above high ${row.high}`, file)
    if (row.open > row.high + eps || row.open < row.low - eps) {
      throw new CsvImportError(at, `open ${row.open} is outside low..high (${row.low}..${row.high})`, file)
    }
    if (row.close > row.high + eps || row.close < row.low - eps) {
      throw new CsvImportError(at, `close ${row.close} is outside low..high (${row.low}..${row.high})`, file)
    }
    this.rows.push(row)
  }

  /** Validates the whole file and returns the adjusted bars grouped by canonical ticker, dates ascending. */
  finish(): ReadonlyMap<string, ReadonlyArray<ParsedBar>> {
    if (this.carry !== "") {
      const last = this.carry
      this.carry = ""
      this.line(last)
    }
    if (this.layout === undefined) throw new CsvImportError(1, "the file is empty (no header)", this.file)
    if (this.rows.length === 0) throw new CsvImportError(this.lineNo, "the file has a header but no rows", this.file)
    const byTicker = new Map<string, Array<RawRow>>()
    for (const row of this.rows) {
      const canonical = this.options.resolveTicker(row.ticker)
      if (canonical === undefined) {
        throw new CsvImportError(row.line, `ticker ${row.ticker} is not tracked by Vigil`, this.file)
      }
      const list = byTicker.get(canonical) ?? []
      list.push(row)
      byTicker.set(canonical, list)
    }
    const out = new Map<string, ReadonlyArray<ParsedBar>>()
    for (const [ticker, rows] of byTicker) {
      // files come oldest-first or newest-first; anything else is an error
      const ascending = rows.length < 2 || rows[0].date <= rows[rows.length - 1].date
      const ordered = ascending ? rows : [...rows].reverse()
      for (let i = 1; i < ordered.length; i++) {
        if (ordered[i].date <= ordered[i - 1].date) {
          const bad = ordered[i].line > ordered[i - 1].line ? ordered[i] : ordered[i - 1]
          throw new CsvImportError(
            bad.line,
            ordered[i].date === ordered[i - 1].date
              ? `duplicate date ${bad.date} for ${ticker}`
              : `dates of ${ticker} are not in order at ${bad.date}`,
            this.file
          )
        }
      }
      // volume: scale by the product of the splits that happen after each day
      let laterSplits = 1
      const bars: Array<ParsedBar> = new Array(ordered.length)
      for (let i = ordered.length - 1; i >= 0; i--) {
        const r = ordered[i]
        const factor = Number.isNaN(r.adj) ? 1 : r.adj / r.close
        bars[i] = {
          ticker,
          date: r.date,
          open: r.open * factor,
          high: r.high * factor,
          low: r.low * factor,
          close: r.close * factor,
          volume: r.volume * laterSplits
        }
        laterSplits *= r.split
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
