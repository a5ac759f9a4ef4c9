/**
 * The bulk import's parsing (issue 17, item 6): the whole-market daily aggregate layout
 * (nanosecond `window_start` → New York date for shares, UTC date for crypto pairs, untracked
 * symbols skipped and counted, bad lines as `file:line: reason`), splits files, gzip, the choice
 * of parser by header, and the pipeline's bounded memory: never more than two files held.
 */
import { gzipSync } from "node:zlib"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { nyWallTime } from "../../src/market/calendar.js"
import { BulkImport, type ImportSource, importEach } from "../../src/market/sources/bulkImport.js"
import { flatFileSymbol } from "../../src/market/sources/csvLayout.js"
import { CsvImportError } from "../../src/market/sources/csvLine.js"
import { ImportFileParser, type ParsedImport, parseFile } from "../../src/market/sources/importFile.js"
import { makeTickerDirectory, type TickerMeta, tickerDirectory } from "../../src/market/tickers/index.js"
import type { ImportedBars } from "../../src/store/importedBars.js"
import { AGGREGATES_HEADER, dayAggregatesCsv, windowStart } from "../support/dayAggregates.js"

const all = tickerDirectory()
const meta = (ticker: string): TickerMeta => {
  const t = all.lookup(ticker)
  if (t === undefined) throw new Error(`no ${ticker} in the seed`)
  return t
}
/** AAPL, BRK.B, SPY, Interlink (LINK) and the cryptos BTC-USD and Chainlink (LINK-USD) */
const directory = makeTickerDirectory(["AAPL", "BRK.B", "SPY", "LINK", "BTC-USD", "LINK-USD"].map(meta))
/** a time well after every date below */
const NOW = Date.UTC(2026, 0, 15, 18)

const parse = (text: string, options: { file?: string; ticker?: string; now?: number } = {}): ParsedImport => {
  const parser = new ImportFileParser({
    file: options.file ?? "day.csv",
    ticker: options.ticker,
    directory,
    now: options.now ?? NOW
  })
  parser.push(text)
  return parser.finish()
}
const bars = (parsed: ParsedImport) => {
  if (parsed.kind !== "bars") throw new Error("expected bars")
  return parsed
}
const errorOf = (f: () => unknown): CsvImportError => {
  try {
    f()
  } catch (e) {
    if (e instanceof CsvImportError) return e
    throw e
  }
  throw new Error("expected a CsvImportError")
}

describe("the whole-market daily aggregate layout", () => {
  it("reads window_start in nanoseconds as the New York date for shares and the UTC date for crypto", () => {
    // 2024-03-08 02:00 UTC is still March 7 in New York
    const ns = `${Date.UTC(2024, 2, 8, 2)}000000`
    const parsed = bars(
      parse(
        [
          AGGREGATES_HEADER,
          `AAPL,1000,10,11,12,9,${ns},5`,
          `X:BTCUSD,12.5,60000,61000,62000,59000,${ns},7`,
          // Polygon's share rows start at New York midnight, crypto rows at UTC midnight
          `SPY,500,400,401,402,399,${windowStart("2024-03-08", false)},3`,
          `X:LINKUSD,0.25,18,18.5,19,17.5,${windowStart("2024-03-08", true)},3`
        ].join("\n")
      )
    )
    expect(parsed.layout).toBe("aggregates")
    expect(parsed.bars.get("AAPL")).toEqual([
      { ticker: "AAPL", date: "2024-03-07", open: 10, high: 12, low: 9, close: 11, volume: 1000 }
    ])
    expect(parsed.bars.get("BTC-USD")).toEqual([
      { ticker: "BTC-USD", date: "2024-03-08", open: 60000, high: 62000, low: 59000, close: 61000, volume: 12.5 }
    ])
    expect(parsed.bars.get("SPY")![0].date).toBe("2024-03-08")
    // X:LINKUSD is Chainlink, not Interlink (LINK)
    expect(parsed.bars.get("LINK-USD")![0]).toMatchObject({ date: "2024-03-08", volume: 0.25 })
    expect(parsed.bars.has("LINK")).toBe(false)
    expect(nyWallTime("2024-03-08", 0) * 1e6).toBe(Number(windowStart("2024-03-08", false)))
  })

  it("takes the columns in any order", () => {
    const parsed = bars(
      parse(
        `window_start,low,high,close,open,volume,ticker,transactions\n${windowStart("2024-01-03", false)},9,12,11,10,7,AAPL,1\n`
      )
    )
    expect(parsed.bars.get("AAPL")).toEqual([
      { ticker: "AAPL", date: "2024-01-03", open: 10, high: 12, low: 9, close: 11, volume: 7 }
    ])
  })

  it("skips and counts the symbols Vigil does not track, and keeps the rest", () => {
    const day = dayAggregatesCsv("2024-01-03", directory.all, 3)
    const extra = [
      `X:BTCEUR,1,1,1,1,1,${windowStart("2024-01-03", true)},1`, // not quoted in USD
      `C:EURUSD,1,1,1,1,1,${windowStart("2024-01-03", true)},1`, // forex
      `I:SPX,1,1,1,1,1,${windowStart("2024-01-03", false)},1`, // an index
      `AAPLw,1,1,1,1,1,${windowStart("2024-01-03", false)},1`, // when-issued
      `BRK.A,1,1,1,1,1,${windowStart("2024-01-03", false)},1` // a share class not in this directory
    ]
    const parsed = bars(parse(day + extra.join("\n")))
    expect([...parsed.bars.keys()].sort()).toEqual(["AAPL", "BRK.B", "BTC-USD", "LINK", "LINK-USD", "SPY"])
    expect([...parsed.skipped.keys()]).toEqual([
      "AAPLw",
      "BRK.A",
      "C:EURUSD",
      "I:SPX",
      "X:BTCEUR",
      "ZZQ0",
      "ZZQ1",
      "ZZQ2"
    ])
    expect(flatFileSymbol("X:ETHUSD")).toEqual({ symbol: "ETH-USD", crypto: true })
    expect(flatFileSymbol("ABCpD")).toBeUndefined()
  })

  it("a file of untracked symbols only stores nothing, without failing", () => {
    const parsed = bars(parse(`${AGGREGATES_HEADER}\nZZQ9,1,1,1,1,1,${windowStart("2024-01-03", false)},1\n`))
    expect(parsed.bars.size).toBe(0)
    expect(parsed.skipped.get("ZZQ9")).toBe(1)
  })

  const row = (fields: Partial<Record<"ticker" | "volume" | "open" | "close" | "high" | "low" | "ws", string>>) => {
    const f = {
      ticker: "AAPL",
      volume: "100",
      open: "10",
      close: "11",
      high: "12",
      low: "9",
      ws: windowStart("2024-01-03", false),
      ...fields
    }
    return `${f.ticker},${f.volume},${f.open},${f.close},${f.high},${f.low},${f.ws},1`
  }
  it.each([
    [row({ ws: "2024-01-03" }), 'window_start "2024-01-03" is not nanoseconds since the epoch'],
    [row({ ws: "1704258000000" }), "is not nanoseconds since the epoch"], // milliseconds
    [row({ ws: "9999999999999999999" }), "is outside 1990..2099"],
    [row({ open: "abc" }), "open is not a number"],
    [row({ ticker: "ZZQ1", volume: "" }), "volume is not a number"], // skipped, but still malformed
    [row({ low: "13" }), "low 13 is above high 12"],
    [row({ close: "0" }), "close must be > 0"],
    [row({ volume: "-1" }), "volume must be >= 0"],
    [row({ ticker: "" }), "ticker is empty"],
    [
      row({ ws: windowStart("2026-01-15", false) }),
      "AAPL: bar dated 2026-01-15 is not before the current session (2026-01-15)"
    ]
  ])("refuses a bad line as file:line: reason (%#)", (bad, reason) => {
    const text = [AGGREGATES_HEADER, row({ ticker: "SPY" }), bad, row({ ticker: "BRK.B" })].join("\n")
    const error = errorOf(() => parse(text, { file: "2024-01-03.csv.gz" }))
    expect(error.message).toContain("2024-01-03.csv.gz:3: ")
    expect(error.message).toContain(reason)
  })

  it("refuses a symbol twice on one day, naming the second line", () => {
    const error = errorOf(() => parse([AGGREGATES_HEADER, row({}), row({ ticker: "SPY" }), row({})].join("\n")))
    expect(error.line).toBe(4)
    expect(error.message).toContain("duplicate date 2024-01-03 for AAPL")
  })
})

describe("choosing the parser by header", () => {
  it("keeps the long and per-ticker layouts as they were", () => {
    const long = bars(parse("ticker,date,open,high,low,close,volume\nAAPL,2024-01-02,10,11,9,10.5,100\n"))
    expect(long.layout).toBe("long")
    expect(long.adjusted).toBe(false)
    const perTicker = bars(
      parse("Date,Open,High,Low,Close,Adj Close,Volume\n2024-01-02,10,11,9,10,5,100\n", { ticker: "SPY" })
    )
    expect(perTicker.layout).toBe("per-ticker")
    expect(perTicker.adjusted).toBe(true)
    expect(perTicker.bars.get("SPY")![0].close).toBe(5)
    // untracked tickers still fail a long file: it names its tickers on purpose
    expect(
      errorOf(() => parse("ticker,date,open,high,low,close,volume\nZZQ1,2024-01-02,1,1,1,1,1\n")).message
    ).toContain("ZZQ1 is not tracked")
  })

  it("reads a splits file: ratio, or Polygon's split_from/split_to; untracked tickers skipped", () => {
    const parsed = parse("ticker,date,ratio\nAAPL,2020-08-31,4\nZZQ1,2020-01-02,2\nSPY,2021-01-04,0.5\n")
    expect(parsed).toEqual({
      kind: "splits",
      splits: [
        { ticker: "AAPL", date: "2020-08-31", ratio: 4 },
        { ticker: "SPY", date: "2021-01-04", ratio: 0.5 }
      ],
      skipped: new Map([["ZZQ1", 1]])
    })
    const polygon = parse("execution_date,split_from,split_to,ticker\n2020-08-31,1,4,AAPL\n")
    expect(polygon.kind === "splits" && polygon.splits).toEqual([{ ticker: "AAPL", date: "2020-08-31", ratio: 4 }])
  })

  it.each([
    ["ticker,date,ratio\nAAPL,2020-8-31,4\n", 2, "is not YYYY-MM-DD"],
    ["ticker,date,ratio\nAAPL,2020-08-31,0\n", 2, "ratio must be a number > 0"],
    ["ticker,date,ratio\nAAPL,2020-08-31,x\n", 2, "ratio must be a number > 0"],
    ["ticker,date,ratio\nAAPL,2020-08-31,4\nAAPL,2020-08-31,4\n", 3, "duplicate split of AAPL on 2020-08-31"],
    ["ticker,date,ratio\nAAPL,2026-02-02,4\n", 2, "is after the current session"]
  ])("refuses a bad splits line (%#)", (text, line, reason) => {
    const error = errorOf(() => parse(text, { file: "splits.csv" }))
    expect(error.message).toContain(`splits.csv:${line}: `)
    expect(error.message).toContain(reason)
  })
})

const bytesOf = (text: string, chunk = 4096): Stream.Stream<Uint8Array> => {
  const all = new TextEncoder().encode(text)
  return Stream.fromIterable(
    Array.from({ length: Math.ceil(all.length / chunk) }, (_, i) => all.subarray(i * chunk, (i + 1) * chunk))
  )
}

describe("parseFile: streamed bytes, gzip", () => {
  const day = dayAggregatesCsv("2024-01-03", directory.all, 2)

  it.effect("gives the same bars from gzip as from plain text, in any chunking", () =>
    Effect.gen(function* () {
      const plain = yield* parseFile(bytesOf(day, 7), { file: "d.csv", directory, now: NOW, gzip: false })
      const zipped = gzipSync(day)
      const gz = yield* parseFile(
        Stream.fromIterable([zipped.subarray(0, 10), zipped.subarray(10, 11), zipped.subarray(11)]),
        { file: "d.csv.gz", directory, now: NOW, gzip: true }
      )
      expect(gz).toEqual(plain)
      expect(bars(plain).bars.size).toBe(6)
    })
  )

  it.effect("refuses bad gzip, and gzip sent as plain text, naming the file", () =>
    Effect.gen(function* () {
      const bad = yield* Effect.flip(
        parseFile(bytesOf("not gzip at all"), { file: "x.csv.gz", directory, now: NOW, gzip: true })
      )
      expect(bad.message).toMatch(/^x\.csv\.gz: the gzip data is invalid/)
      const truncated = gzipSync(day).subarray(0, 200)
      const cut = yield* Effect.flip(
        parseFile(Stream.make(truncated), { file: "cut.csv.gz", directory, now: NOW, gzip: true })
      )
      expect(cut.message).toMatch(/^cut\.csv\.gz: the gzip data is invalid/)
      const undeclared = yield* Effect.flip(
        parseFile(Stream.make(new Uint8Array(gzipSync(day))), { file: "up", directory, now: NOW, gzip: false })
      )
      expect(undeclared.message).toContain("up: the data is gzip-compressed")
    })
  )

  it.effect("reads the whole body after a bad line (the client gets the answer, not a reset)", () =>
    Effect.gen(function* () {
      let pulled = 0
      const chunks = Stream.fromIterable([
        "ticker,date,open,high,low,close,volume\n",
        "AAPL,bad,1,1,1,1,1\n",
        "AAPL,2024-01-03,1,1,1,1,1\n"
      ]).pipe(
        Stream.map((t) => {
          pulled++
          return new TextEncoder().encode(t)
        })
      )
      const error = yield* Effect.flip(parseFile(chunks, { file: "f.csv", directory, now: NOW, gzip: false }))
      expect(error.message).toContain("f.csv:2: date")
      expect(pulled).toBe(3)
    })
  )
})

describe("the pipeline: one file after the other, at most two held", () => {
  /** a store that records what it is given, slowly (the next file is parsed meanwhile) */
  const slowStore = (log: Array<string>) =>
    ({
      replace: (byTicker: ReadonlyMap<string, ReadonlyArray<{ date: string }>>) =>
        Effect.gen(function* () {
          const date = [...byTicker.values()][0]![0]!.date
          log.push(`store ${date}`)
          yield* Effect.sleep("20 millis")
          log.push(`stored ${date}`)
        }),
      replaceSplits: () => Effect.void
    }) as unknown as ImportedBars

  const dates = ["2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05", "2024-01-08"]
  const source = (
    date: string,
    log: Array<string>,
    text = dayAggregatesCsv(date, directory.all, 1)
  ): ImportSource<never> => ({
    file: `${date}.csv`,
    bytes: Stream.suspend(() => {
      log.push(`read ${date}`)
      return bytesOf(text)
    }),
    gzip: false
  })

  it.live("reads a file only once the one before the last was stored", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const bulk = new BulkImport(slowStore(log))
      const error = yield* importEach(
        dates.map((d) => source(d, log)),
        bulk,
        { directory, now: NOW }
      )
      expect(error).toBeUndefined()
      // files held (read, not yet stored) never exceed two: the one being stored and the next
      let held = 0
      let most = 0
      for (const entry of log) {
        if (entry.startsWith("read")) held++
        if (entry.startsWith("stored")) held--
        most = Math.max(most, held)
      }
      expect(most).toBeLessThanOrEqual(2)
      // stored in order, each once
      expect(log.filter((e) => e.startsWith("stored"))).toEqual(dates.map((d) => `stored ${d}`))
      expect(bulk.report().files.map((f) => [f.file, f.rows, f.skipped_tickers])).toEqual(
        dates.map((d) => [`${d}.csv`, 6, 1])
      )
    })
  )

  it.live("stops at the first bad file: the files before it stored, it and those after not", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const bulk = new BulkImport(slowStore(log))
      const bad = `${AGGREGATES_HEADER}\nAAPL,1,1,1,1,1,${windowStart("2024-01-03", false)},1\nSPY,x,1,1,1,1,${windowStart("2024-01-03", false)},1\n`
      const error = yield* importEach(
        [source(dates[0]!, log), source(dates[1]!, log, bad), source(dates[2]!, log)],
        bulk,
        { directory, now: NOW }
      )
      expect(error).toBe('2024-01-03.csv:3: volume is not a number ("x")')
      expect(log).toEqual(["read 2024-01-02", "store 2024-01-02", "read 2024-01-03", "stored 2024-01-02"])
      expect(bulk.report()).toMatchObject({ rows: 6, from: "2024-01-02", to: "2024-01-02" })
      expect(bulk.report().files.map((f) => f.file)).toEqual(["2024-01-02.csv"])
    })
  )

  it("a parser lets go of its rows when it finishes", () => {
    const parser = new ImportFileParser({ file: "d.csv", directory, now: NOW })
    parser.push(dayAggregatesCsv("2024-01-03", directory.all, 0))
    const first = parser.finish()
    expect(bars(first).bars.size).toBe(6)
    // what it held went with the answer
    const held = (parser as any).target
    expect(held.symbols).toHaveLength(0)
    expect(held.opens).toHaveLength(0)
  })

  it("summarizes what the live market must take: the tickers stored within its window", () => {
    const bulk = new BulkImport({} as ImportedBars, "2024-01-03")
    const summary = (bulk as any).addBars("a.csv", bars(parse(dayAggregatesCsv("2024-01-02", directory.all, 0))))
    expect(summary.rows).toBe(6)
    expect(bulk.marketUpdate()).toBeUndefined()
    ;(bulk as any).addBars("b.csv", bars(parse(dayAggregatesCsv("2024-01-04", directory.all, 0))))
    expect(bulk.marketUpdate()).toEqual({
      tickers: [...directory.all.map((t) => t.ticker)].sort(),
      from: "2024-01-04",
      to: "2024-01-04"
    })
    const splits = parse("ticker,date,ratio\nAAPL,2024-01-05,2\nSPY,2020-01-02,2\n")
    ;(bulk as any).addSplits("s.csv", splits)
    // a split within the window changes the bars the market holds from the window's start; one before it, none
    expect(bulk.marketUpdate()).toMatchObject({ from: "2024-01-03", to: "2024-01-05" })
    expect(bulk.report()).toMatchObject({
      rows: 14,
      splits: 2,
      from: "2020-01-02",
      to: "2024-01-05",
      skipped_tickers: 0
    })
  })
})
