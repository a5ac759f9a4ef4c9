/**
 * One file of a bulk import (bulkImport.ts), parsed and validated whole: `ImportFileParser` reads
 * the header and hands the text to the parser it chooses (bars in any of csvBars.ts's layouts, or
 * splits), and `parseFile` feeds it the file's bytes as they come (gunzipped on the way), in
 * bounded memory beside the rows. The directory's lookups are remembered per symbol for the life
 * of the directory, shared by the files of an import.
 */
import { createGunzip } from "node:zlib"
import { Data, Effect, Stream } from "effect"
import { cryptoTradingDate, equityTradingDate } from "../calendar.js"
import type { Split } from "../ports.js"
import type { TickerDirectory, TickerMeta } from "../tickers/index.js"
import { CsvBarParser, type ParsedBar } from "./csvBars.js"
import { type BarLayout, type FlatHit, flatResolver } from "./csvLayout.js"
import { CsvImportError, splitCsvLine } from "./csvLine.js"
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
