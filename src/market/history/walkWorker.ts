/**
 * The walk helper's thread (`walkHelper.ts`): for each walk posted to it, it
 * takes runs of the walk's tickers off the shared counter and walks them as
 * the service's thread would (`keptWalk.ts`), over the same series (shared
 * memory) from the same start states (`walkStart.ts` recipes), writing the
 * kept bars' columns in place. It answers each walk with `done` or `failed`;
 * the service's thread walks again any run it claimed and did not finish.
 */
import { parentPort } from "node:worker_threads"
import { INPUT_COLUMNS } from "../engine/inputs.js"
import { ALL_FAMILIES, COMPUTED_COLUMN_NAMES } from "../indicators/index.js"
import { BarSeries } from "./barSeries.js"
import type { WalkMarket } from "./dailyWalk.js"
import { HELPER, keptWalker, newClaims, takeRuns } from "./keptWalk.js"
import { packSeries, unpackSeries } from "./packedSeries.js"
import { performRead, type StretchRead } from "./stretchRead.js"
import type { HelperAnswer, HelperWalk } from "./walkHelper.js"
import { followStart, freshStart, START_SIZE } from "./walkStart.js"

const walk = (job: HelperWalk): void => {
  const series = unpackSeries(job.series)
  const market: WalkMarket = {
    series,
    tickers: job.assetTypes.map((asset_type) => ({ asset_type })) as unknown as WalkMarket["tickers"],
    size: series.length,
    isCrypto: job.isCrypto,
    sim: undefined as unknown as WalkMarket["sim"],
    stateAt: (w, j, into, families) =>
      followStart(job.recipes, w * START_SIZE, job.assetTypes[w]!, series[w]!, j, into, families ?? ALL_FAMILIES)
  }
  const slots = Array.from(series, (_, w) => w)
  const walkRun = keptWalker(market, { ...job, slots }, "none")
  let runs = 0
  const claims = { counter: job.counter, claims: job.claims, starts: job.starts }
  for (const _ of takeRuns(claims, HELPER, (from, to) => {
    if (job.failAfter !== undefined && runs++ >= job.failAfter) throw new Error("walk helper: failing as told (a test)")
    return walkRun(from, to)
  })) {
    // no other work on this thread: the runs' slices go on at once
  }
}

/**
 * Before the first walk: a walk of every column the helper computes over made-up bars, so the walks
 * posted run compiled code from their first bar (a helper's first walk ran no faster than one thread
 * alone without it).
 */
const warmUp = (): void => {
  const n = 4
  const bars = 1_500
  const s = new BarSeries(bars)
  let close = 100
  for (let j = 0; j < bars; j++) {
    const open = close
    close = Math.round(100 * close * (1 + 0.03 * Math.sin(j * 1.37) * Math.cos(j * 0.11))) / 100
    s.push(
      10_000 + j,
      open,
      Math.max(open, close) + 0.5,
      Math.min(open, close) - 0.5,
      close,
      1_000_000 + 997 * (j % 13)
    )
  }
  const names = [...COMPUTED_COLUMN_NAMES].filter((c) => !INPUT_COLUMNS.has(c))
  const recipes = new Float64Array(n * START_SIZE)
  for (let w = 0; w < n; w++) freshStart(recipes, w * START_SIZE, 0, false)
  const offset = Int32Array.from({ length: n + 1 }, (_, w) => w * bars)
  const barOf = Int32Array.from({ length: n * bars }, (_, p) => p % bars)
  const values = names.map(() => new Float64Array(n * bars))
  const valid = names.map(() => new Uint8Array(n * bars))
  const claims = newClaims(Int32Array.from({ length: n + 1 }, (_, w) => w))
  const types = Array.from({ length: n }, (_, w) => (w % 2 === 0 ? "Common Stock" : "CRYPTO"))
  walk({
    ...claims,
    id: 0,
    series: packSeries(Array.from({ length: n }, () => s)),
    assetTypes: types,
    isCrypto: Uint8Array.from(types, (t) => (t === "CRYPTO" ? 1 : 0)),
    recipes,
    offset,
    barOf,
    toDay: 10_000 + bars,
    names,
    values,
    valid
  })
}

warmUp()

parentPort?.on("message", (job: HelperWalk | StretchRead) => {
  // a walk's next stretch to read: answered in its shared status
  if ("kind" in job) return performRead(job)
  let answer: HelperAnswer
  try {
    walk(job)
    answer = { id: job.id, ok: true }
  } catch (error) {
    answer = { id: job.id, ok: false, message: error instanceof Error ? (error.stack ?? error.message) : String(error) }
  }
  parentPort?.postMessage(answer)
})
// loaded: the walks posted from now on are taken as they come
parentPort?.postMessage({ ready: true })
