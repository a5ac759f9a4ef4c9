/**
 * Parses a splits file for import: `ticker,date,ratio` (columns found by header name, any order),
 * `ratio` new shares per old share from `date` on — 4 for a 4-for-1 split, 0.1 for a 1-for-10
 * reverse split. Polygon's split records (`execution_date`, `split_from`, `split_to`) work too:
 * ratio = split_to / split_from. A splits list covers a whole market, so a ticker Vigil does not
 * track is skipped and counted, as in a whole-market bars file; every other bad line (a date, a
 * ratio that is not a positive number, the same ticker and date twice, a split after the
 * ticker's current session) is refused as `file:line: reason`.
 */
import type { Split } from "../ports.js"
import { CsvImportError, headerColumns, splitCsvLine } from "./csvLine.js"

const DATE = /^\d{4}-\d{2}-\d{2}$/

interface SplitLayout {
  readonly ticker: number
  readonly date: number
  readonly ratio: number
  readonly from: number
  readonly to: number
}

/** The columns of a splits header, or undefined when `header` is not one (a bars file). */
export const splitsLayout = (header: ReadonlyArray<string>): SplitLayout | undefined => {
  const { names, idx } = headerColumns(header)
  const layout = {
    ticker: idx("ticker", "symbol"),
    date: idx("date", "execution_date", "ex_date"),
    ratio: idx("ratio", "split_ratio"),
    from: idx("split_from"),
    to: idx("split_to")
  }
  if (names.includes("open") || names.includes("close")) return undefined
  if (layout.ticker < 0 || layout.date < 0) return undefined
  if (layout.ratio < 0 && (layout.from < 0 || layout.to < 0)) return undefined
  return layout
}

const validDate = (text: string): boolean => {
  if (!DATE.test(text)) return false
  const d = new Date(`${text}T00:00:00Z`)
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text
}

export class CsvSplitParser {
  private carry = ""
  private lineNo = 0
  private layout: SplitLayout | undefined
  private splits: Array<Split & { readonly line: number }> = []
  private readonly skippedSymbols = new Map<string, number>()

  constructor(
    private readonly options: {
      readonly file?: string
      /** canonical form of a ticker, or undefined when it is not tracked */
      readonly resolveTicker: (symbol: string) => string | undefined
      /** the current session of a canonical ticker: a split dated after it has not happened yet, and is refused */
      readonly currentSession?: ((ticker: string) => string) | undefined
    }
  ) {}

  private get file() {
    return this.options.file ?? "input"
  }

  /** the symbols Vigil does not track (skipped), sorted, with their rows */
  get skipped(): ReadonlyMap<string, number> {
    return new Map([...this.skippedSymbols].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
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
    const at = this.lineNo
    if (this.layout === undefined) {
      this.layout = splitsLayout(fields)
      if (this.layout === undefined) {
        throw new CsvImportError(at, "the header is not a splits header (ticker,date,ratio)", this.file)
      }
      return
    }
    const l = this.layout
    const symbol = (fields[l.ticker] ?? "").trim()
    if (symbol === "") throw new CsvImportError(at, "ticker is empty", this.file)
    const date = (fields[l.date] ?? "").trim().slice(0, 10)
    if (!validDate(date)) {
      throw new CsvImportError(at, `date ${JSON.stringify(fields[l.date] ?? "")} is not YYYY-MM-DD`, this.file)
    }
    const positive = (k: number, name: string) => {
      const text = (fields[k] ?? "").trim()
      const v = text === "" ? Number.NaN : Number(text)
      if (!Number.isFinite(v) || v <= 0) {
        throw new CsvImportError(at, `${name} must be a number > 0 (got ${JSON.stringify(text)})`, this.file)
      }
      return v
    }
    const ratio =
      l.ratio >= 0 ? positive(l.ratio, "ratio") : positive(l.to, "split_to") / positive(l.from, "split_from")
    const ticker = this.options.resolveTicker(symbol)
    if (ticker === undefined) {
      this.skippedSymbols.set(symbol, (this.skippedSymbols.get(symbol) ?? 0) + 1)
      return
    }
    const session = this.options.currentSession?.(ticker)
    if (session !== undefined && date > session) {
      throw new CsvImportError(
        at,
        `${ticker}: split dated ${date} is after the current session (${session}); import it once it took effect`,
        this.file
      )
    }
    this.splits.push({ ticker, date, ratio, line: at })
  }

  /** The splits of the file by ticker and date; the same ticker and date twice is refused. */
  finish(): ReadonlyArray<Split> {
    if (this.carry !== "") {
      const last = this.carry
      this.carry = ""
      this.line(last)
    }
    if (this.layout === undefined) throw new CsvImportError(1, "the file is empty (no header)", this.file)
    const splits = this.splits
    this.splits = []
    const seen = new Map<string, number>()
    for (const s of splits) {
      const key = `${s.ticker} ${s.date}`
      if (seen.has(key)) {
        throw new CsvImportError(
          s.line,
          `duplicate split of ${s.ticker} on ${s.date} (line ${seen.get(key)})`,
          this.file
        )
      }
      seen.set(key, s.line)
    }
    return splits
      .map(({ ticker, date, ratio }) => ({ ticker, date, ratio }))
      .sort((a, b) =>
        a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : a.date < b.date ? -1 : a.date > b.date ? 1 : 0
      )
  }
}
