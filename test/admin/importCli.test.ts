/**
 * `npm run admin -- import` in bulk (issue 17, item 6): files, directories and globs, `.gz` files,
 * through a running service (several files in multipart requests, one file gzip-encoded) and
 * without one (straight into the database, a transaction per file: a bad second file leaves the
 * first stored and the second not, and stops the import).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { Effect, Layer } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { expandGlob, importPaths, isGzipFile, segmentPattern } from "../../src/admin/importPaths.js"
import { addTradingDays, equityTradingDate } from "../../src/market/calendar.js"
import { pgliteLayer } from "../../src/store/Database.js"
import { ImportedBars } from "../../src/store/importedBars.js"
import { ROOT, runAdminCli } from "../support/adminCli.js"
import { dayAggregatesCsv } from "../support/dayAggregates.js"
import { SAMPLE } from "../support/inProcess.js"
import { sampleDirectory } from "../support/sampleTickers.js"
import { ADMIN_TOKEN, newDataDir } from "../support/server.js"
import { serveForSuite } from "../support/suiteServer.js"

const dirs: Array<string> = []
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "vigil-import-cli-"))
  dirs.push(d)
  return d
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** runs `npm run admin -- import …` (the CLI as node runs it), in `cwd` */
const cli = (args: ReadonlyArray<string>, env: Record<string, string | undefined>, cwd = ROOT) =>
  runAdminCli(["import", ...args], { ADMIN_TOKEN, ...env }, cwd)

describe("the files an import names", () => {
  it("expands directories (their files by name, not hidden ones nor subdirectories) and globs", () => {
    const d = tempDir()
    mkdirSync(join(d, "2024", "01"), { recursive: true })
    for (const f of ["b.csv.gz", "a.csv.gz", "c.csv", ".hidden.csv", "2024/x.csv.gz", "2024/01/y.csv.gz"]) {
      writeFileSync(join(d, f), "x")
    }
    symlinkSync(join(d, "a.csv.gz"), join(d, "link.csv.gz"))
    expect(importPaths([d])).toEqual(["a.csv.gz", "b.csv.gz", "c.csv", "link.csv.gz"].map((f) => join(d, f)))
    expect(expandGlob(`${d}/*.csv.gz`)).toEqual(["a.csv.gz", "b.csv.gz", "link.csv.gz"].map((f) => join(d, f)))
    expect(expandGlob(`${d}/**/*.gz`)).toEqual(
      ["2024/01/y.csv.gz", "2024/x.csv.gz", "a.csv.gz", "b.csv.gz", "link.csv.gz"].map((f) => join(d, f))
    )
    expect(expandGlob(`${d}/[ab].csv*`)).toEqual([join(d, "a.csv.gz"), join(d, "b.csv.gz")])
    expect(expandGlob(`${d}/[!ab].csv*`)).toEqual([join(d, "c.csv")])
    // each file once, in the order named
    expect(importPaths([join(d, "c.csv"), `${d}/*.csv*`])).toEqual(
      ["c.csv", "a.csv.gz", "b.csv.gz", "link.csv.gz"].map((f) => join(d, f))
    )
    expect(() => importPaths([`${d}/*.zip`])).toThrow("no file matches")
    expect(() => importPaths([join(d, "missing.csv")])).toThrow("cannot read")
    expect(segmentPattern("day_?.csv.gz").test("day_1.csv.gz")).toBe(true)
    expect(segmentPattern("day_?.csv.gz").test("day_1xcsv.gz")).toBe(false)
  })

  it("knows a gzip file by its name or its first bytes", () => {
    const d = tempDir()
    writeFileSync(join(d, "plain.csv"), "ticker,date\n")
    writeFileSync(join(d, "zipped.csv"), gzipSync("ticker,date\n"))
    expect(isGzipFile(join(d, "plain.csv"))).toBe(false)
    expect(isGzipFile(join(d, "zipped.csv"))).toBe(true)
    expect(isGzipFile(join(d, "whatever.gz"))).toBe(true)
  })
})

describe("import through a running service", () => {
  const server = serveForSuite({}, SAMPLE)
  const today = equityTradingDate(Date.now())
  const day = (k: number) => addTradingDays(today, -20 + k)

  it("sends a directory's .gz files (multipart) and a glob's, and prints the files stored", async () => {
    const d = tempDir()
    const sample = sampleDirectory().all
    for (const k of [0, 1, 2]) writeFileSync(join(d, `${day(k)}.csv.gz`), gzipSync(dayAggregatesCsv(day(k), sample, 4)))
    writeFileSync(join(d, "splits.csv"), `ticker,date,ratio\nKO,${day(2)},2\n`)
    const all = await cli([d], { VIGIL_URL: server.url })
    expect(all.stderr).not.toContain("failed")
    expect(all.code).toBe(0)
    const summary = JSON.parse(all.stdout)
    expect(summary).toMatchObject({
      rows: 3 * sample.length + 1,
      from: day(0),
      to: day(2),
      splits: 1,
      skipped_tickers: 4
    })
    expect(summary.files.map((f: any) => [f.file, f.layout, f.rows])).toEqual([
      [join(d, `${day(0)}.csv.gz`), "aggregates", sample.length],
      [join(d, `${day(1)}.csv.gz`), "aggregates", sample.length],
      [join(d, `${day(2)}.csv.gz`), "aggregates", sample.length],
      [join(d, "splits.csv"), "splits", 1]
    ])
    // a glob (as a quoted argument: the CLI expands it), relative to the working directory
    const glob = await cli(["*.csv.gz"], { VIGIL_URL: server.url }, d)
    expect(glob.code).toBe(0)
    expect(JSON.parse(glob.stdout).files.map((f: any) => f.file)).toEqual([0, 1, 2].map((k) => `${day(k)}.csv.gz`))
    // more files than one request takes: several requests, one summary
    const many = tempDir()
    const dates = Array.from({ length: 18 }, (_, k) => addTradingDays(today, -40 + k))
    for (const date of dates) {
      writeFileSync(
        join(many, `KO-${date}.csv`),
        `ticker,date,open,high,low,close,volume\nKO,${date},50,51,49,50.5,1000\n`
      )
    }
    const batched = await cli([many], { VIGIL_URL: server.url })
    expect(batched.code).toBe(0)
    expect(batched.stderr).toContain("stored 16 of 18 files")
    expect(JSON.parse(batched.stdout)).toMatchObject({ tickers: ["KO"], rows: 18, from: dates[0], to: dates[17] })
    expect(JSON.parse(batched.stdout).files).toHaveLength(18)
    // one file: its body gzip-encoded
    const one = await cli([join(d, `${day(1)}.csv.gz`)], { VIGIL_URL: server.url })
    expect(one.code).toBe(0)
    expect(JSON.parse(one.stdout).files).toEqual([
      expect.objectContaining({ file: join(d, `${day(1)}.csv.gz`), rows: sample.length, skipped_tickers: 4 })
    ])
  }, 180_000)
})

describe("import without a service", () => {
  it("stores file by file: a bad second file leaves the first stored and the second not, and stops there", async () => {
    const d = tempDir()
    const dataDir = newDataDir({})
    dirs.push(dataDir)
    const sample = sampleDirectory().all.slice(0, 40)
    const [d1, d2, d3] = ["2024-03-04", "2024-03-05", "2024-03-06"]
    const bad = dayAggregatesCsv(d2!, sample, 2).split("\n")
    bad[12] = bad[12]!.replace(/^([^,]*),([^,]*),([^,]*),/, "$1,$2,oops,")
    writeFileSync(join(d, `${d1}.csv.gz`), gzipSync(dayAggregatesCsv(d1!, sample, 2)))
    writeFileSync(join(d, `${d2}.csv.gz`), gzipSync(bad.join("\n")))
    writeFileSync(join(d, `${d3}.csv.gz`), gzipSync(dayAggregatesCsv(d3!, sample, 2)))
    const run = await cli([d], { VIGIL_URL: "http://127.0.0.1:9", DATA_DIR: dataDir, DATABASE_URL: undefined })
    expect(run.stderr).toContain("importing straight into the database")
    expect(run.stderr).toContain(`import failed: ${join(d, `${d2}.csv.gz`)}:13: open is not a number ("oops")`)
    expect(run.code).toBe(2)
    const summary = JSON.parse(run.stdout)
    expect(summary.files.map((f: any) => [f.file, f.rows])).toEqual([[join(d, `${d1}.csv.gz`), 40]])
    expect(summary).toMatchObject({ rows: 40, from: d1, to: d1, skipped_tickers: 2 })
    // in the database: the first file, not the second nor the third
    const stored = await Effect.runPromise(
      Effect.flatMap(ImportedBars, (repo) => repo.loadAll).pipe(
        Effect.provide(ImportedBars.Default.pipe(Layer.provideMerge(pgliteLayer(dataDir)))),
        Effect.scoped
      )
    )
    const dates = new Set([...stored.values()].flatMap((bars) => bars.map((b) => b.date)))
    expect([...dates]).toEqual([d1])
    expect(stored.size).toBe(40)
  }, 180_000)
})
