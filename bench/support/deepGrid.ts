/** The whole market's grid of states for the benchmarks that read before the window (`--grid-dir=D`). */
import { mkdirSync } from "node:fs"
import type { MarketData } from "../../src/market/engine/MarketData.js"
import { deepGridKey, openDeepGridFile, writeDeepGridFile } from "../../src/market/history/deepGridFile.js"

/**
 * With `--grid-dir=D` on the command line: `md` adopts the grid of its seed and bars kept in D, built
 * into D first unless it is there (`bench:deep-history --dir=D` makes the same one). Returns D, or
 * undefined without the flag (the market reads its window only).
 */
export const adoptGridFromArgs = (md: MarketData, seed: number): string | undefined => {
  const dir = process.argv.find((a) => a.startsWith("--grid-dir="))?.slice(11)
  if (dir === undefined) return undefined
  mkdirSync(dir, { recursive: true })
  const key = deepGridKey(seed, md.deepGridSpec())
  if (openDeepGridFile(dir, key) === undefined) {
    console.log(`building the grid of the years before the window into ${dir} …`)
    const walk = writeDeepGridFile(dir, key, md.deepGridSpec())
    while (!walk.next().done) {}
  }
  md.adoptDeepGrid(openDeepGridFile(dir, key)!)
  return dir
}
