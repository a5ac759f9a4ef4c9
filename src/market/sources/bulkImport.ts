/**
 * Importing files in bulk (issue 17): `POST /admin/import` and `npm run admin -- import` take
 * one file or many (a multipart body; the CLI's directories and globs), each CSV or gzip. Files
 * are taken one at a time: its bytes streamed (gunzipped on the way) into the parser its header
 * chooses (importFile.ts: bars in any of csvBars.ts's layouts, or splits), validated whole,
 * then stored in one transaction — all of a file or nothing of it — while the next file is read
 * and parsed (`enqueue`): memory holds at most two files' rows, never the import's.
 *
 * `BulkImport` keeps the summary (per file: rows, tickers, dates, the symbols skipped) and what
 * the live market must take afterwards: the tickers whose stored bars changed within the window
 * the market holds in memory (`earliest` on), read back split-adjusted once the import is done.
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Fiber, type Stream } from "effect"
import type { BulkBarStore } from "../ports.js"
import type { BarLayout } from "./csvLayout.js"
import { CsvImportError } from "./csvLine.js"
import { ImportDecodeError, type ParsedImport, type ParserOptions, parseFile } from "./importFile.js"

/** One file of an import, as the summary gives it. */
export interface FileSummary {
  readonly file: string
  readonly layout: BarLayout | "splits"
  /** rows stored: bars, or splits for a splits file */
  readonly rows: number
  /** tickers with rows stored */
  readonly tickers: number
  /** first and last date stored (null: nothing stored) */
  readonly from: string | null
  readonly to: string | null
  /** symbols of the file Vigil does not track, skipped (whole-market and splits files) */
  readonly skipped_tickers: number
  /** the first of them, alphabetically (up to 20) */
  readonly skipped_examples: ReadonlyArray<string>
}

/** An import's answer: the contract's `{tickers, rows, from, to}` over everything stored, and per file. */
export interface ImportReport {
  /** tickers with rows stored (bars or splits), sorted */
  readonly tickers: ReadonlyArray<string>
  /** rows stored: bars and splits */
  readonly rows: number
  /** first and last date stored ("" when nothing was) */
  readonly from: string
  readonly to: string
  /** the files stored, in order */
  readonly files: ReadonlyArray<FileSummary>
  /** splits stored (of `rows`) */
  readonly splits: number
  /** distinct symbols skipped over all files, and which (sorted) */
  readonly skipped_tickers: number
  readonly skipped: ReadonlyArray<string>
}

/** What the live market takes after an import: these tickers' stored bars dated `from`..`to`. */
export interface MarketUpdate {
  readonly tickers: ReadonlyArray<string>
  readonly from: string
  readonly to: string
}

const SKIPPED_EXAMPLES = 20

/**
 * The files of one import, stored one by one; `earliest`: the first date the live market holds
 * in memory (undefined: no live market, nothing to update).
 */
export class BulkImport {
  private readonly files: Array<FileSummary> = []
  private readonly tickers = new Set<string>()
  private readonly skipped = new Set<string>()
  private rows = 0
  private splits = 0
  private from = ""
  private to = ""
  private readonly update = new Set<string>()
  private updateFrom = ""
  private updateTo = ""

  constructor(
    private readonly store: BulkBarStore,
    private readonly earliest?: string | undefined
  ) {}

  private pending: Fiber.RuntimeFiber<FileSummary, SqlError> | undefined

  /**
   * Stores `parsed` once the file before it is stored, without waiting for its own store: the
   * caller reads the next file meanwhile (the database works on one file while this process
   * parses the next, so at most two files' rows are held). `settle` waits for it.
   */
  enqueue(file: string, parsed: ParsedImport): Effect.Effect<void, SqlError> {
    return Effect.zipRight(
      this.settle,
      // a daemon: the caller may read its files in a stream whose scope ends before `settle`
      // (a multipart body); a file validated whole is stored even if the caller goes away
      Effect.flatMap(Effect.forkDaemon(this.store1(file, parsed)), (fiber) =>
        Effect.sync(() => {
          this.pending = fiber
        })
      )
    )
  }

  /** waits for the file being stored, if one is */
  get settle(): Effect.Effect<void, SqlError> {
    return Effect.suspend(() => {
      const fiber = this.pending
      this.pending = undefined
      return fiber === undefined ? Effect.void : Effect.asVoid(Fiber.join(fiber))
    })
  }

  /** Stores one parsed file in one transaction and adds it to the summary. */
  store1(file: string, parsed: ParsedImport): Effect.Effect<FileSummary, SqlError> {
    return Effect.suspend(() => {
      if (parsed.kind === "splits") {
        return Effect.map(this.store.replaceSplits(parsed.splits, { log: false }), () => this.addSplits(file, parsed))
      }
      return Effect.map(this.store.replace(parsed.bars, { adjusted: parsed.adjusted, log: false }), () =>
        this.addBars(file, parsed)
      )
    })
  }

  private widen(from: string, to: string) {
    if (this.from === "" || from < this.from) this.from = from
    if (to > this.to) this.to = to
  }

  private toUpdate(ticker: string, from: string, to: string) {
    this.update.add(ticker)
    if (this.updateFrom === "" || from < this.updateFrom) this.updateFrom = from
    if (to > this.updateTo) this.updateTo = to
  }

  private summarize(
    file: string,
    layout: FileSummary["layout"],
    rows: number,
    tickers: number,
    from: string,
    to: string,
    skipped: ReadonlyMap<string, number>
  ): FileSummary {
    for (const s of skipped.keys()) this.skipped.add(s)
    this.rows += rows
    if (rows > 0) this.widen(from, to)
    const summary: FileSummary = {
      file,
      layout,
      rows,
      tickers,
      from: rows > 0 ? from : null,
      to: rows > 0 ? to : null,
      skipped_tickers: skipped.size,
      skipped_examples: [...skipped.keys()].slice(0, SKIPPED_EXAMPLES)
    }
    this.files.push(summary)
    return summary
  }

  private addBars(file: string, parsed: Extract<ParsedImport, { kind: "bars" }>): FileSummary {
    let rows = 0
    let from = ""
    let to = ""
    for (const [ticker, bars] of parsed.bars) {
      if (bars.length === 0) continue
      this.tickers.add(ticker)
      rows += bars.length
      const first = bars[0].date
      const last = bars[bars.length - 1].date
      if (from === "" || first < from) from = first
      if (last > to) to = last
      if (this.earliest !== undefined && last >= this.earliest) {
        this.toUpdate(ticker, first < this.earliest ? this.earliest : first, last)
      }
    }
    return this.summarize(file, parsed.layout, rows, parsed.bars.size, from, to, parsed.skipped)
  }

  private addSplits(file: string, parsed: Extract<ParsedImport, { kind: "splits" }>): FileSummary {
    let from = ""
    let to = ""
    const tickers = new Set<string>()
    for (const s of parsed.splits) {
      tickers.add(s.ticker)
      this.tickers.add(s.ticker)
      if (from === "" || s.date < from) from = s.date
      if (s.date > to) to = s.date
      // the bars before the split change: those the market holds, from `earliest` to the split
      if (this.earliest !== undefined && s.date > this.earliest) this.toUpdate(s.ticker, this.earliest, s.date)
    }
    this.splits += parsed.splits.length
    return this.summarize(file, "splits", parsed.splits.length, tickers.size, from, to, parsed.skipped)
  }

  /** the summary of the files stored so far */
  report(): ImportReport {
    return {
      tickers: [...this.tickers].sort(),
      rows: this.rows,
      from: this.from,
      to: this.to,
      files: [...this.files],
      splits: this.splits,
      skipped_tickers: this.skipped.size,
      skipped: [...this.skipped].sort()
    }
  }

  /** every ticker with rows stored so far (what processes following ticks re-read) */
  storedTickers(): ReadonlyArray<string> {
    return [...this.tickers].sort()
  }

  /** what the live market must take, undefined when nothing it holds changed */
  marketUpdate(): MarketUpdate | undefined {
    if (this.update.size === 0) return undefined
    return { tickers: [...this.update].sort(), from: this.updateFrom, to: this.updateTo }
  }
}

/** One file of an import: its name (in messages and the summary) and its bytes. */
export interface ImportSource<E> {
  readonly file: string
  readonly bytes: Stream.Stream<Uint8Array, E>
  /** the bytes are gzip-compressed */
  readonly gzip: boolean
}

/**
 * Imports `sources` in order into `bulk`: each parsed, then stored while the next is parsed. The
 * first file that cannot be imported stops the import (those before it stay stored); its error
 * (`file:line: reason`) is the answer, undefined when every file was stored.
 */
export const importEach = <E>(
  sources: Iterable<ImportSource<E>>,
  bulk: BulkImport,
  options: Omit<ParserOptions, "file">,
  describe: (error: E) => string = String
): Effect.Effect<string | undefined, SqlError> =>
  Effect.gen(function* () {
    for (const source of sources) {
      const parsed = yield* Effect.either(parseFile(source.bytes, { ...options, file: source.file, gzip: source.gzip }))
      if (parsed._tag === "Left") {
        yield* bulk.settle
        const e = parsed.left
        return e instanceof CsvImportError || e instanceof ImportDecodeError ? e.message : describe(e as E)
      }
      yield* bulk.enqueue(source.file, parsed.right)
    }
    yield* bulk.settle
    return undefined
  })
