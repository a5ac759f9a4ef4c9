/**
 * The whole-market grid of states (`deepGrid.ts`) kept in a file of the data directory, so it is
 * built once per market, not once per start: `deep-grid-<key>.bin` (the blocks, grid day by grid
 * day, doubles in the machine's byte order) beside `deep-grid-<key>.json` (its description and
 * the memberships). The key is a digest of everything the grid is a function of — the code's
 * format version, the seed, the tickers and their first days, the grid's span, every imported
 * bar the grid reads (to `deepGridBarsTo`: an import into the window keeps the grid) — so another market, an import or a new window never reads a stale grid. Written under a
 * temporary name and renamed once complete: a process killed mid-build leaves no grid behind.
 * A read takes one grid day's block (13,047 tickers: 2.7 MB) with one positional read.
 */
import { createHash } from "node:crypto"
import {
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statfsSync,
  writeFileSync,
  writeSync
} from "node:fs"
import { join } from "node:path"
import type { DeepGridReader } from "../engine/deepAsOf.js"
import { isoDate } from "../indicators/days.js"
import { BARS_BEFORE_ORIGIN, type DeepBarsLayout } from "./deepBars.js"
import { DeepBarsReader, readFully } from "./deepBarsReader.js"
import { buildDeepGrid, type DeepGridMeta, type DeepGridSpec, deepGridBarsTo } from "./deepGrid.js"
import { GRID_SLOT, gridDays } from "./gridStates.js"

/** bumped whenever the grid's layout or what a slot holds (the indicator state) changes */
export const DEEP_GRID_FORMAT = 3
const PREFIX = "deep-grid-"

/** The digest naming a grid of `spec` over the market of `seed`. */
export const deepGridKey = (seed: number, spec: DeepGridSpec): string => {
  const hash = createHash("sha256")
  const lastRead = isoDate(deepGridBarsTo(spec))
  hash.update(JSON.stringify([DEEP_GRID_FORMAT, seed, spec.origin, spec.every, spec.toDay]))
  spec.tickers.forEach((t, i) => {
    hash.update(`${t.ticker}|${t.asset_type}|${spec.firstDay[i]}\n`)
    const all = spec.imported(i)
    if (all === undefined || all.length === 0) return
    const bars = all[0]!.date > lastRead ? [] : all.slice(0, readUpTo(all, lastRead))
    if (bars.length === 0) return
    // every imported bar read, as position-weighted sums (a numeric pass: millions of bars in milliseconds)
    let o = 0
    let h = 0
    let l = 0
    let c = 0
    let v = 0
    for (let k = 0; k < bars.length; k++) {
      const b = bars[k]!
      const w = 1 + k / bars.length
      o += b.open * w
      h += b.high * w
      l += b.low * w
      c += b.close * w
      v += b.volume * w
    }
    hash.update(`${bars.length}|${bars[0]!.date}|${bars[bars.length - 1]!.date}|${o}|${h}|${l}|${c}|${v}\n`)
  })
  return hash.digest("hex").slice(0, 32)
}

/** How many of `bars` (dates ascending) are dated `last` or before. */
const readUpTo = (bars: ReadonlyArray<{ readonly date: string }>, last: string): number => {
  let lo = 0
  let hi = bars.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (bars[mid]!.date <= last) lo = mid + 1
    else hi = mid
  }
  return lo
}

const paths = (dir: string, key: string) => ({
  bin: join(dir, `${PREFIX}${key}.bin`),
  bars: join(dir, `${PREFIX}${key}.bars`),
  json: join(dir, `${PREFIX}${key}.json`)
})

/** bytes left free on the disk besides a bar file: the store and the logs keep growing */
const DISK_HEADROOM = 2 * 2 ** 30

/** At most the bytes a bar file of `spec` takes: every ticker a bar on 5 days of 7 from before the grid to its last day, 22 bytes each. */
export const barBytesAtMost = (spec: DeepGridSpec): number =>
  spec.tickers.length * Math.ceil(((deepGridBarsTo(spec) - spec.origin + BARS_BEFORE_ORIGIN) * 5) / 7) * 22

/** Whether the file system of `dir` has `bytes` free for this process (true when it cannot tell). */
const roomFor = (dir: string, bytes: number): boolean => {
  try {
    const fs = statfsSync(dir)
    return fs.bavail * fs.bsize >= bytes
  } catch {
    return true
  }
}

/**
 * Appends to a new file (when `wanted`), or — when it cannot be written (a full disk) — gives up on
 * it without failing the build.
 */
const optionalFile = (path: string, wanted: boolean) => {
  let fd: number | undefined
  let at = 0
  const drop = () => {
    if (fd !== undefined) closeSync(fd)
    fd = undefined
    rmSync(path, { force: true })
  }
  try {
    fd = wanted ? openSync(path, "w") : undefined
  } catch {
    fd = undefined
  }
  return {
    write: (bytes: Uint8Array) => {
      if (fd === undefined) return
      try {
        let done = 0
        while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, at + done)
        at += bytes.length
      } catch {
        drop()
      }
    },
    /** closes it: true when every byte was written */
    finish: (): boolean => {
      if (fd === undefined) return false
      closeSync(fd)
      fd = undefined
      return true
    },
    drop
  }
}

/**
 * Builds the grid of `spec` into `dir` under `key` (a generator, yielding as `buildDeepGrid`
 * does), removing the grids of other keys once this one is complete.
 */
export function* writeDeepGridFile(dir: string, key: string, spec: DeepGridSpec): Generator<void, DeepGridMeta> {
  const { bin, bars, json } = paths(dir, key)
  const size = spec.tickers.length
  const tmp = `${bin}.${process.pid}.tmp`
  const fd = openSync(tmp, "w")
  // the bars are a speed-up, not the grid: a disk too small for them (with room to spare for the
  // store) leaves a grid without them
  const barsTmp = `${bars}.${process.pid}.tmp`
  const barsFile = optionalFile(barsTmp, roomFor(dir, barBytesAtMost(spec) + DISK_HEADROOM))
  let meta: DeepGridMeta
  try {
    meta = yield* buildDeepGrid(
      spec,
      (k, from, block) => {
        const bytes = new Uint8Array(block.buffer, block.byteOffset, block.byteLength)
        let done = 0
        const at = (k * size + from) * GRID_SLOT * 8
        while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, at + done)
      },
      barsFile.write
    )
  } catch (e) {
    closeSync(fd)
    rmSync(tmp, { force: true })
    barsFile.drop()
    throw e
  }
  closeSync(fd)
  if (barsFile.finish()) renameSync(barsTmp, bars)
  else meta = { ...meta, bars: undefined }
  renameSync(tmp, bin)
  writeFileSync(`${json}.tmp`, JSON.stringify({ format: DEEP_GRID_FORMAT, key, ...meta }))
  renameSync(`${json}.tmp`, json)
  for (const name of readdirSync(dir)) {
    // other grids, and what a build killed midway left (this one's are renamed by now)
    if (name.startsWith(PREFIX) && (!name.startsWith(`${PREFIX}${key}.`) || leftByDeadBuild(name)))
      rmSync(join(dir, name), { force: true })
  }
  return meta
}

/** An open grid file: its reader, and `close` to let the file go. */
export interface DeepGridFile extends DeepGridReader {
  readonly key: string
  close(): void
}

/** The grid of `key` in `dir`, if a complete one is there (undefined otherwise). */
export const openDeepGridFile = (dir: string, key: string): DeepGridFile | undefined => {
  const { bin, bars, json } = paths(dir, key)
  if (!existsSync(bin) || !existsSync(json)) return undefined
  const raw = JSON.parse(readFileSync(json, "utf8")) as DeepGridMeta & { format: number; key: string }
  if (raw.format !== DEEP_GRID_FORMAT || raw.key !== key) return undefined
  const meta: DeepGridMeta = {
    origin: raw.origin,
    every: raw.every,
    days: raw.days,
    size: raw.size,
    toDay: raw.toDay,
    memberships: raw.memberships,
    bars: raw.bars
  }
  const blockDoubles = meta.size * GRID_SLOT
  const fd = openSync(bin, "r")
  if (
    fstatSync(fd).size !== meta.days * blockDoubles * 8 ||
    meta.days !== gridDays(meta.origin, meta.every, meta.toDay)
  ) {
    closeSync(fd)
    return undefined
  }
  let open = true
  const barsFd = meta.bars === undefined ? undefined : openBars(bars, meta.bars)
  return {
    key,
    meta,
    bars:
      barsFd === undefined || meta.bars === undefined
        ? undefined
        : new DeepBarsReader(
            meta.bars,
            (into, position) => {
              if (!open) throw new Error("the deep grid file was closed")
              readFully(barsFd, into, position)
            },
            bars
          ),
    block: (k) => {
      if (!open) throw new Error("the deep grid file was closed")
      const out = new Float64Array(blockDoubles)
      readFully(fd, new Uint8Array(out.buffer), k * blockDoubles * 8)
      return out
    },
    close: () => {
      if (open) {
        closeSync(fd)
        if (barsFd !== undefined) closeSync(barsFd)
      }
      open = false
    }
  }
}

/** A temporary file (`….<pid>.tmp`) of a process no longer running. */
const leftByDeadBuild = (name: string): boolean => {
  const m = /\.(\d+)\.tmp$/.exec(name)
  if (m === null) return false
  try {
    process.kill(Number(m[1]), 0)
    return false
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ESRCH"
  }
}

/** The bar file of a grid, open, when it is there and whole (undefined otherwise: reads regenerate the bars). */
const openBars = (path: string, layout: DeepBarsLayout): number | undefined => {
  if (!existsSync(path)) return undefined
  const fd = openSync(path, "r")
  if (fstatSync(fd).size !== layout.offsets[layout.offsets.length - 1]) {
    closeSync(fd)
    return undefined
  }
  return fd
}
