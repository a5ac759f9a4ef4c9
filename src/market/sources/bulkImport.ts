/**
 * Importing files in bulk (issue 17): `POST /admin/import` and `npm run admin -- import` take
 * one file or many (a multipart body; the CLI's directories and globs), each CSV or gzip. Files
 * are taken one at a time: its bytes streamed (gunzipped on the way) into the parser its header
 * chooses (`ImportFileParser`: bars in any of csvBars.ts's layouts, or splits), validated whole,
 * then stored in one transaction — all of a file or nothing of it — while the next file is read
 * and parsed (`enqueue`): memory holds at most two files' rows, never the import's.
 *
 * `BulkImport` keeps the summary (per file: rows, tickers, dates, the symbols skipped) and what
 * the live market must take afterwards: the tickers whose stored bars changed within the window
 * the market holds in memory (`earliest` on), read back split-adjusted once the import is done.
 */
import { createGunzip } from "node:zlib"
import type { SqlError } from "@effect/sql/SqlError"
import { Data, Effect, Fiber, Stream } from "effect"
import { cryptoTradingDate, equityTradingDate } from "../calendar.js"
import type { BulkBarStore, Split } from "../ports.js"
import type { TickerDirectory, TickerMeta } from "../tickers/index.js"
import {
  type BarLayout,
  CsvBarParser,
  CsvImportError,
  type FlatHit,
  flatResolver,
  type ParsedBar,
  splitCsvLine
} from "./csvBars.js"
import { CsvSplitParser, splitsLayout } from "./csvSplits.js"

/** What one file held, parsed and validated. */
export type ParsedImport =
  | {
      readonly kind: "bars"
      readonly layout: BarLayout
      readonly bars: ReadonlyMap<string, ReadonlyArray<ParsedBar>>
      /** the file adjusted its bars for splits itself */
      readonly adjusted: boolean
      /** symbols not tracked (whole-market files), with their rows */
      readonly skipped: ReadonlyMap<string, number>
    }
  | { readonly kind: "splits"; readonly splits: ReadonlyArray<Split>; readonly skipped: ReadonlyMap<string, number> }

export interface ParserOptions {
  readonly file: string
  /** the ticker of a per-ticker file */
  readonly ticker?: string | undefined
  readonly directory: Pick<TickerDirectory, "lookup">
  /** epoch ms: bars must be dated before, and splits not after, each ticker's session at this time */
  readonly now: number
}

const GZIP_MAGIC = "\u001f\ufffd"

interface Resolvers {
  readonly lookup: (symbol: string) => TickerMeta | undefined
  readonly flat: (symbol: string) => FlatHit
}

const resolvers = new WeakMap<object, Resolvers>()

/**
 * The directory's lookups, remembered per symbol for the life of the directory: a whole-market
 * file names ~13,000 symbols, the same in every file, and a lookup normalizes its symbol first.
 */
const resolversOf = (directory: Pick<TickerDirectory, "lookup">): Resolvers => {
  let found = resolvers.get(directory)
  if (found === undefined) {
    const known = new Map<string, TickerMeta | null>()
    const lookup = (symbol: string): TickerMeta | undefined => {
      let hit = known.get(symbol)
      if (hit === undefined) {
        hit = directory.lookup(symbol) ?? null
        known.set(symbol, hit)
      }
      return hit ?? undefined
    }
    found = {
      lookup,
      flat: flatResolver(
        (symbol) => lookup(symbol)?.ticker,
        (ticker) => lookup(ticker)?.asset_type === "CRYPTO"
      )
    }
    resolvers.set(directory, found)
  }
  return found
}

/**
 * One file's parser: reads the header, then hands the text to the bars parser or the splits
 * parser (a header naming `ratio` or `split_from`/`split_to` and no prices).
 */
export class ImportFileParser {
  private head = ""
  private target: CsvBarParser | CsvSplitParser | undefined

  constructor(private readonly options: ParserOptions) {}

  push(text: string): void {
    if (this.target !== undefined) {
      this.target.push(text)
      return
    }
    this.head += text
    const end = this.head.indexOf("\n")
    if (end < 0 && this.head.length < 64 * 1024) return
    this.open(end < 0 ? this.head : this.head.slice(0, end))
    const head = this.head
    this.head = ""
    this.target!.push(head)
  }

  private open(header: string): void {
    const { file, directory, now } = this.options
    if (header.startsWith(GZIP_MAGIC)) {
      throw new CsvImportError(
        0,
        "the data is gzip-compressed: name the file .gz, or send it with Content-Encoding: gzip",
        file
      )
    }
    const { lookup, flat } = resolversOf(directory)
    const resolveTicker = (symbol: string) => lookup(symbol)?.ticker
    const isCrypto = (ticker: string) => lookup(ticker)?.asset_type === "CRYPTO"
    const equity = equityTradingDate(now)
    const crypto = cryptoTradingDate(now)
    const currentSession = (ticker: string) => (isCrypto(ticker) ? crypto : equity)
    this.target =
      splitsLayout(splitCsvLine(header.replace(/^\uFEFF/, "").replace(/\r$/, ""))) === undefined
        ? new CsvBarParser({
            file,
            ticker: this.options.ticker,
            resolveTicker,
            isCrypto,
            currentSession,
            resolveFlat: flat
          })
        : new CsvSplitParser({ file, resolveTicker, currentSession })
  }

  finish(): ParsedImport {
    if (this.target === undefined) this.open(this.head)
    const target = this.target!
    if (this.head !== "") {
      target.push(this.head)
      this.head = ""
    }
    if (target instanceof CsvSplitParser) return { kind: "splits", splits: target.finish(), skipped: target.skipped }
    const bars = target.finish()
    return { kind: "bars", layout: target.layoutKind!, bars, adjusted: target.adjusted, skipped: target.skipped }
  }
}

/** gzip data that does not decompress */
export class ImportDecodeError extends Data.TaggedError("ImportDecodeError")<{ readonly message: string }> {}

/**
 * Parses one file from its bytes (gunzipped when `gzip`, node:zlib as the bytes come), in bounded
 * memory beside the rows. The bytes are read to their end whatever happens — after the first bad
 * line or bad gzip data they are dropped — so an HTTP client still sending gets the answer rather
 * than a reset, and the next part of a multipart body is where it should be.
 */
export const parseFile = <E, R>(
  bytes: Stream.Stream<Uint8Array, E, R>,
  options: ParserOptions & { readonly gzip: boolean }
): Effect.Effect<ParsedImport, CsvImportError | ImportDecodeError | E, R> =>
  Effect.suspend(() => {
    const parser = new ImportFileParser(options)
    const decoder = new TextDecoder()
    let failure: CsvImportError | ImportDecodeError | undefined
    const feed = (chunk: Uint8Array) => {
      if (failure !== undefined) return
      try {
        parser.push(decoder.decode(chunk, { stream: true }))
      } catch (e) {
        failure =
          e instanceof CsvImportError ? e : new CsvImportError(0, `could not be read (${String(e)})`, options.file)
      }
    }
    const finish = Effect.suspend(() => {
      if (failure !== undefined) return Effect.fail(failure)
      return Effect.try({
        try: () => {
          parser.push(decoder.decode())
          return parser.finish()
        },
        catch: (e) =>
          e instanceof CsvImportError ? e : new CsvImportError(0, `could not be read (${String(e)})`, options.file)
      })
    })
    if (!options.gzip)
      return Stream.runForEach(bytes, (chunk) => Effect.sync(() => feed(chunk))).pipe(Effect.zipRight(finish))

    const gunzip = createGunzip()
    let ended = false
    gunzip.on("data", (chunk: Buffer) => feed(chunk))
    gunzip.on("error", (e) => {
      failure ??= new ImportDecodeError({ message: `${options.file}: the gzip data is invalid (${e.message})` })
    })
    gunzip.on("end", () => {
      ended = true
    })
    const settled = () => failure instanceof ImportDecodeError || ended || gunzip.destroyed
    /** resolves once the inflater can take more (or has failed) */
    const drained = Effect.async<void>((resume) => {
      const done = () => {
        gunzip.off("drain", done)
        gunzip.off("error", done)
        resume(Effect.void)
      }
      gunzip.on("drain", done)
      gunzip.on("error", done)
      return Effect.sync(() => {
        gunzip.off("drain", done)
        gunzip.off("error", done)
      })
    })
    const write = (chunk: Uint8Array) =>
      Effect.suspend(() => (settled() || gunzip.write(chunk) ? Effect.void : drained))
    /** resolves once the inflater has given everything (or has failed) */
    const end = Effect.async<void>((resume) => {
      if (settled()) return resume(Effect.void)
      const done = () => resume(Effect.void)
      gunzip.once("end", done)
      gunzip.once("error", done)
      gunzip.once("close", done)
      gunzip.end()
    })
    return Stream.runForEach(bytes, write).pipe(
      Effect.zipRight(end),
      Effect.zipRight(finish),
      Effect.ensuring(Effect.sync(() => gunzip.destroy()))
    )
  })

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
