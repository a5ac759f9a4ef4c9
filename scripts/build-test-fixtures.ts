/**
 * Builds test/fixtures/ from the shared reference data (its SOURCES.md), so that
 * `npm test` needs nothing beside the clone. Only files whose licence allows
 * copying go in (test/fixtures/SOURCES.md); the tests generate the rest.
 *
 *   npx tsx scripts/build-test-fixtures.ts [dataDir]
 *
 * dataDir defaults to $VIGIL_SHARED_DATA, else `../shared/data` beside the repository root.
 * Deterministic: the same inputs give byte-identical files.
 */
import { createHash } from "node:crypto"
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { DEFAULT_DATA_DIR, REPO_ROOT } from "./build-ticker-seed.js"

export const FIXTURES_DIR = resolve(REPO_ROOT, "test/fixtures")
/** The Alpha Vantage files (MIT repository) copied whole: two long histories with splits and dividends, one recent listing. */
export const ALPHA_VANTAGE_COPIED = ["AAPL", "MSFT", "CARR"] as const
export const AV_SUBDIR = "prices/equities/alphavantage_daily_adjusted"

/** The dates (first column) of a daily CSV, header skipped. */
export const csvDates = (text: string): Array<string> =>
  text
    .trim()
    .split(/\r?\n/)
    .slice(1)
    .map((line) => line.slice(0, line.indexOf(",")))

/** SHA-256 (hex) of dates joined by "\n": the fingerprint `dates.csv` keeps of each file's date column. */
export const datesDigest = (dates: ReadonlyArray<string>): string =>
  createHash("sha256").update(dates.join("\n")).digest("hex")

/** `file,first,last,rows,sha256` for every Alpha Vantage file: the date column of all 47, without their prices. */
export const alphaVantageDates = (dataDir: string): string => {
  const dir = resolve(dataDir, AV_SUBDIR)
  const lines = ["file,first,last,rows,sha256"]
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".csv"))
    .sort()) {
    const dates = csvDates(readFileSync(resolve(dir, file), "utf8"))
    lines.push([file, dates[0], dates.at(-1), dates.length, datesDigest(dates)].join(","))
  }
  return `${lines.join("\n")}\n`
}

const main = (): void => {
  const dataDir = resolve(process.argv[2] || DEFAULT_DATA_DIR)
  const out = resolve(FIXTURES_DIR, "alphavantage")
  mkdirSync(out, { recursive: true })
  for (const ticker of ALPHA_VANTAGE_COPIED) {
    const file = `DA-${ticker}-T-2021-04-21.csv`
    copyFileSync(resolve(dataDir, AV_SUBDIR, file), resolve(out, file))
  }
  writeFileSync(resolve(out, "dates.csv"), alphaVantageDates(dataDir))
  process.stdout.write(`wrote ${out}\n`)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main()
