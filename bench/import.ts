/**
 * The bulk import's numbers (issue 17, item 6), on generated whole-market day files as the
 * Polygon/Massive flat files lay them out (`test/support/dayAggregates.ts`: every one of the
 * 13,047 tracked tickers plus 200 untracked symbols, 13,247 rows a day, gzip-compressed):
 *
 * - bars/s into the embedded store (PGlite, a fresh data directory) and, with DATABASE_URL set,
 *   into PostgreSQL (a fresh schema): the whole file pipeline as `npm run admin -- import <dir>`
 *   runs it without a service — read, gunzip, parse, validate, store one transaction per file
 *   (goals: ≥ 100,000 embedded, ≥ 150,000 PostgreSQL);
 * - one whole-market day, file to committed (goal ≤ 0.5 s), median over single-file imports;
 * - against a baseline in the same run: the same files read, gunzipped and parsed only (no store).
 *
 *   npm run bench:import                          (embedded only)
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:import
 *   npm run bench:import -- --days=30             (files in the throughput run; default 20)
 */
import { createReadStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { gzipSync } from "node:zlib"
import * as NodeStream from "@effect/platform-node/NodeStream"
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer, Logger, LogLevel, Redacted } from "effect"
import { importFiles } from "../src/admin/offlineImport.js"
import { addTradingDays } from "../src/market/calendar.js"
import { parseFile } from "../src/market/sources/importFile.js"
import { tickerDirectory } from "../src/market/tickers/index.js"
import { pgliteLayer, postgresLayer } from "../src/store/Database.js"
import { ImportedBars } from "../src/store/importedBars.js"
import { runMigrations } from "../src/store/migrate.js"
import { dayAggregatesCsv } from "../test/support/dayAggregates.js"
import { benchArgs } from "./support/args.js"
import { withPgSchema } from "./support/pgSchema.js"
import { quantile } from "./support/stats.js"

const args = benchArgs()
const DAYS = Number(args.get("days") ?? "20")
const SINGLES = 5
const UNTRACKED = 200

const directory = tickerDirectory()
const dir = mkdtempSync(join(tmpdir(), "vigil-bench-import-"))
const filesDir = join(dir, "files")
mkdirSync(filesDir)

// ---------------------------------------------------------------- the files
/** trading days from 2024-01-02: a warm-up day, DAYS for the throughput run, SINGLES single days */
const dates = Array.from({ length: 1 + DAYS + SINGLES }, (_, k) => addTradingDays("2024-01-02", k))
let t0 = performance.now()
const paths = dates.map((date) => {
  const path = join(filesDir, `${date}.csv.gz`)
  writeFileSync(path, gzipSync(dayAggregatesCsv(date, directory.all, UNTRACKED)))
  return path
})
const rowsPerFile = directory.size + UNTRACKED
console.log(
  `${paths.length} whole-market day files of ${rowsPerFile} rows (${directory.size} tracked, ${UNTRACKED} untracked), gzip, generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`
)
const warmup = paths[0]
const batch = paths.slice(1, 1 + DAYS)
const singles = paths.slice(1 + DAYS)
const BARS = DAYS * directory.size

const quiet = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.runPromise(effect.pipe(Logger.withMinimumLogLevel(LogLevel.Warning)))

const cpu = () => {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1000
}

// ---------------------------------------------------------------- baseline: read, gunzip, parse
const parseOnly = async (files: ReadonlyArray<string>) => {
  let bars = 0
  for (const file of files) {
    const parsed = await quiet(
      parseFile(
        NodeStream.fromReadable(
          () => createReadStream(file),
          (e) => e
        ),
        { file, directory, now: Date.now(), gzip: true }
      )
    )
    if (parsed.kind === "bars") for (const b of parsed.bars.values()) bars += b.length
  }
  return bars
}
await parseOnly([warmup])
const c0 = cpu()
t0 = performance.now()
const parsedBars = await parseOnly(batch)
const parseMs = performance.now() - t0
const parseCpu = cpu() - c0
const parseRate = parsedBars / (parseMs / 1000)
console.log(
  `baseline, read + gunzip + parse only: ${DAYS} files, ${parsedBars} bars in ${parseMs.toFixed(0)} ms (CPU ${parseCpu.toFixed(0)} ms): ${Math.round(parseRate).toLocaleString("en-US")} bars/s`
)

// ---------------------------------------------------------------- into a store
interface Result {
  readonly store: string
  readonly rate: number
  readonly ms: number
  readonly cpuMs: number
  readonly dayMs: ReadonlyArray<number>
}

const measure = (store: string, layer: Layer.Layer<SqlClient.SqlClient, SqlError>) =>
  quiet(
    Effect.gen(function* () {
      yield* runMigrations
      const run = (files: ReadonlyArray<string>) =>
        Effect.flatMap(importFiles(files, undefined), (r) =>
          r.error === undefined ? Effect.succeed(r.report) : Effect.die(new Error(r.error))
        )
      yield* run([warmup])
      const c = cpu()
      const start = performance.now()
      const report = yield* run(batch)
      const ms = performance.now() - start
      const cpuMs = cpu() - c
      if (report.rows !== BARS) throw new Error(`${store}: stored ${report.rows} bars, expected ${BARS}`)
      const dayMs: Array<number> = []
      for (const file of singles) {
        const s = performance.now()
        yield* run([file])
        dayMs.push(performance.now() - s)
      }
      return { store, rate: BARS / (ms / 1000), ms, cpuMs, dayMs } satisfies Result
    }).pipe(Effect.provide(ImportedBars.Default.pipe(Layer.provideMerge(layer))), Effect.scoped)
  )

console.log(
  `load average before the stores: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`
)
const results: Array<Result> = []
results.push(await measure("embedded (PGlite)", pgliteLayer(join(dir, "data"))))
const url = process.env.DATABASE_URL
if (url !== undefined && url !== "") {
  results.push(await withPgSchema(url, (schemaUrl) => measure("PostgreSQL", postgresLayer(Redacted.make(schemaUrl)))))
} else console.log("(DATABASE_URL not set: PostgreSQL skipped)")

const goal = (store: string) => (store === "PostgreSQL" ? 150_000 : 100_000)
console.log("")
console.log(
  "| Store | bars/s (whole pipeline) | goal | × parse-only baseline | CPU of this process | one whole-market day, median (min–max) | goal |"
)
console.log("|---|---|---|---|---|---|---|")
for (const r of results) {
  console.log(
    `| ${r.store} | ${Math.round(r.rate).toLocaleString("en-US")} (${DAYS} files in ${(r.ms / 1000).toFixed(2)} s) | ≥ ${goal(r.store).toLocaleString("en-US")} | ${(r.rate / parseRate).toFixed(2)} | ${r.cpuMs.toFixed(0)} ms | ${quantile(r.dayMs, 0.5).toFixed(0)} ms (${Math.min(...r.dayMs).toFixed(0)}–${Math.max(...r.dayMs).toFixed(0)}) | ≤ 500 ms |`
  )
}
console.log(
  `| parse-only baseline | ${Math.round(parseRate).toLocaleString("en-US")} | | 1.00 | ${parseCpu.toFixed(0)} ms | ${(parseMs / DAYS).toFixed(0)} ms a file | |`
)
console.log(
  `load average at the end: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")} (2 cores)`
)
rmSync(dir, { recursive: true, force: true })
