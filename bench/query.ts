/**
 * The numbers of issue 4 (the `q` language), on a synthetic full snapshot of
 * 13,047 tickers with every catalog column (10% NULLs in nullable columns):
 *
 * 1. parse + check + compile of a 200-character q, median (goal ≤ 50 µs),
 *    against `JSON.parse` of the same tree as JSON (the cost of merely
 *    building it);
 * 2. one 3-clause q over the whole snapshot, median (goal ≤ 50 µs and within
 *    3× of a hand-written loop over the same typed arrays, measured in the
 *    same run): `evaluate` (a fresh result array) against a hand loop that
 *    also returns a fresh result, `evaluateInto` (a reused buffer) against a
 *    hand loop into a reused buffer, and a per-row interpreter of the tree;
 * 3. 10,000 distinct subscription predicates over the snapshot, total (goal
 *    ≤ 500 ms), evaluated one after the other into one reused buffer, as a
 *    subscription pass does, for three mixes (see `MIXES`), against 10,000 ×
 *    the hand loop's median;
 * 4. parse + check + compile time on pathological inputs (deep nesting,
 *    4000-character inputs), and its growth with input size and with nesting
 *    depth (linear: × 4 for 4× the size, × 4 for 4× the depth).
 *
 *   npm run bench:query
 *
 * Figures depend on the machine's load: the script prints the load average
 * and Node's version first.
 */
import { loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { Either } from "effect"
import { CATALOG } from "../src/market/catalog.js"
import type { Column, Snapshot } from "../src/market/snapshot.js"
import { type CompileContext, type CompiledQuery, columnsOf, compileQuery, parse } from "../src/query/index.js"
import type { Node } from "../src/query/ir.js"
import { compareStrings } from "../src/query/semantics.js"
import { conditionMaker } from "./support/conditions.js"

const N = 13_047
console.log(
  `node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`
)
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`
const time = (f: () => void, runs: number, warmup = Math.min(runs, 200)): number => {
  for (let i = 0; i < warmup; i++) f()
  const ts: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    f()
    ts.push(performance.now() - t)
  }
  return median(ts)
}

// ---- a deterministic synthetic snapshot ------------------------------------------

let seed = 42
const rand = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}
const SECTORS = [
  "Technology",
  "Energy",
  "Healthcare",
  "Financials",
  "Industrials",
  "Utilities",
  "Materials",
  "Real Estate"
]

const symbols = new Set<string>(["SPY", "QQQ", "AAPL", "BRK.B"])
while (symbols.size < N) {
  const len = 1 + Math.floor(rand() * 4)
  let s = ""
  for (let i = 0; i < len; i++) s += String.fromCharCode(65 + Math.floor(rand() * 26))
  symbols.add(s)
}
const tickers = [...symbols].sort(compareStrings)
const columns = new Map<string, Column>()
for (const c of CATALOG) {
  if (c.type === "string") {
    const values = tickers.map((t, i) =>
      c.name === "ticker" ? t : c.name === "sector" ? SECTORS[i % SECTORS.length]! : `${c.name}-${i % 97}`
    )
    columns.set(c.name, { kind: "string", values })
  } else {
    const values = c.type === "numeric" ? new Float64Array(N) : new Uint8Array(N)
    const valid = new Uint8Array(N)
    for (let i = 0; i < N; i++) {
      if (c.nullable && rand() < 0.1) continue
      valid[i] = 1
      values[i] = c.type === "numeric" ? (c.name === "price" ? rand() * 200 : rand() * 100 - 10) : rand() < 0.3 ? 1 : 0
    }
    columns.set(
      c.name,
      c.type === "numeric"
        ? { kind: "numeric", values: values as Float64Array, valid }
        : { kind: "boolean", values: values as Uint8Array, valid }
    )
  }
}
const snapshot: Snapshot = {
  asOf: Date.now(),
  size: N,
  tickers,
  index: new Map(tickers.map((t, i) => [t, i])),
  columns
}
const tracked = new Set(tickers)
const ctx: CompileContext = {
  columns: columnsOf(CATALOG),
  tickers: (s) => (tracked.has(s.toUpperCase()) ? s.toUpperCase() : undefined)
}
const compile = (q: string): CompiledQuery => {
  const r = compileQuery(q, ctx)
  if (Either.isLeft(r)) throw new Error(`${q}: ${r.left.message}`)
  return r.right
}
const numeric = CATALOG.filter((c) => c.type === "numeric").map((c) => c.name)
const flags = CATALOG.filter((c) => c.type === "boolean").map((c) => c.name)

const results: Array<[string, string, string]> = []
const report = (what: string, figure: string, versus: string) => {
  results.push([what, figure, versus])
  console.log(`${what.padEnd(72)} ${figure.padStart(10)}   ${versus}`)
}
const goals: Array<string> = []
const goal = (what: string, met: boolean, detail: string) =>
  goals.push(`${met ? "met   " : "MISSED"}  ${what}: ${detail}`)

// ---- 1. parse + check + compile ---------------------------------------------------

const q200 =
  "price > 10 AND relative_volume > spy.relative_volume AND sector IN ('Technology', 'Energy') AND NOT (rsi_14 BETWEEN 30 AND 70) AND market_cap / volume_today >= abs(day_change_pct) OR sector ILIKE 't%'"
if (q200.length !== 200) throw new Error(`the 200-character q has ${q200.length} characters`)
const compileMedian = time(() => compile(q200), 20_000, 2_000)
const tree = parse(q200)
if (!tree.ok) throw new Error("unreachable")
const json = JSON.stringify(tree.expr)
const jsonMedian = time(() => JSON.parse(json), 20_000, 2_000)
report(
  `parse+check+compile, ${q200.length}-char q (median)`,
  us(compileMedian),
  `JSON.parse of its tree: ${us(jsonMedian)} (× ${(compileMedian / jsonMedian).toFixed(1)})`
)
goal("parse+check+compile a 200-char q ≤ 50 µs median", compileMedian <= 0.05, us(compileMedian))

// ---- 2. one 3-clause q over the whole snapshot ----------------------------------

const q3 = "price > 10 AND relative_volume > 1.5 AND sector = 'Technology'"
const c3 = compile(q3)
let t = performance.now()
const first = c3.evaluate(snapshot)
const coldMs = performance.now() - t
const evalMedian = time(() => c3.evaluate(snapshot), 2_000)

const price = columns.get("price") as Extract<Column, { kind: "numeric" }>
const rv = columns.get("relative_volume") as Extract<Column, { kind: "numeric" }>
const sector = columns.get("sector") as Extract<Column, { kind: "string" }>
/** the hand-written loop, into `out`; returns the count */
const handInto = (out: Int32Array): number => {
  let c = 0
  const pv = price.values
  const pm = price.valid
  const rvv = rv.values
  const rvm = rv.valid
  const sv = sector.values
  for (let i = 0; i < N; i++) {
    if (pm[i] === 1 && pv[i]! > 10 && rvm[i] === 1 && rvv[i]! > 1.5 && sv[i] === "Technology") out[c++] = i
  }
  return c
}
const scratch = new Int32Array(N)
/** same contract as `evaluate`: a fresh array of exactly the matching rows */
const hand = (): Int32Array => scratch.slice(0, handInto(scratch))
const buffer = new Int32Array(N)
const handMedian = time(hand, 2_000)
const handIntoMedian = time(() => handInto(buffer), 2_000)
const intoMedian = time(() => c3.evaluateInto(snapshot, buffer), 2_000)
if (hand().length !== first.length || c3.evaluateInto(snapshot, buffer) !== first.length)
  throw new Error("hand-written loop disagrees with the evaluator")

/** the per-row baseline: walk the typed tree for every row */
const interpret = (n: Node, row: number): number | string | boolean | null => {
  switch (n.k) {
    case "lit":
      return n.value
    case "col": {
      const col = columns.get(n.name)!
      if (col.kind === "string") return col.values[row] ?? null
      return col.valid[row] === 1 ? (col.kind === "boolean" ? col.values[row] === 1 : col.values[row]!) : null
    }
    case "cmp": {
      const a = interpret(n.left, row)
      const b = interpret(n.right, row)
      if (a === null || b === null) return null
      return n.op === ">" ? a > b : n.op === "<" ? a < b : n.op === "=" ? a === b : null
    }
    case "and": {
      let unknown = false
      for (const a of n.args) {
        const v = interpret(a, row)
        if (v === false) return false
        if (v === null) unknown = true
      }
      return unknown ? null : true
    }
    default:
      throw new Error(`baseline interpreter: ${n.k} not needed`)
  }
}
const perRow = (): Int32Array => {
  const out: Array<number> = []
  for (let i = 0; i < N; i++) if (interpret(c3.ir, i) === true) out.push(i)
  return Int32Array.from(out)
}
const perRowMedian = time(perRow, 300)
report(
  `3-clause q over ${N} rows, evaluate (median; first run ${us(coldMs)})`,
  us(evalMedian),
  `hand loop, fresh result ${us(handMedian)} (× ${(evalMedian / handMedian).toFixed(2)}); per-row interpreter ${us(perRowMedian)} (× ${(evalMedian / perRowMedian).toFixed(2)}); ${first.length} matches`
)
report(
  "3-clause q, evaluateInto a reused buffer (median)",
  us(intoMedian),
  `hand loop into a reused buffer ${us(handIntoMedian)} (× ${(intoMedian / handIntoMedian).toFixed(2)})`
)
goal("3-clause q over the snapshot ≤ 50 µs median", evalMedian <= 0.05, `evaluate ${us(evalMedian)}`)
goal(
  "3-clause q within 3× of a hand-written loop (same run)",
  evalMedian <= 3 * handMedian && intoMedian <= 3 * handIntoMedian,
  `× ${(evalMedian / handMedian).toFixed(2)} (fresh result), × ${(intoMedian / handIntoMedian).toFixed(2)} (reused buffer)`
)

// ---- 3. 10,000 distinct subscription predicates -------------------------------------

const pick = <A>(xs: ReadonlyArray<A>) => xs[Math.floor(rand() * xs.length)]!
const condition = conditionMaker(rand)
/** `POST /v2/tickers/{ticker}/subscribe`: the stored q is `ticker = '<T>' AND (<condition>)` */
const tickerSubscription = () => `ticker = '${pick(tickers)}' AND (${condition()})`
/** `POST /v2/signals/{signal}/subscribe`: `<signal> = true` or `<signal> <op> <value>`, any ticker */
const signalSubscription = () =>
  rand() < 0.5
    ? `${pick(flags)} = true`
    : `${pick(numeric)} ${pick([">", ">=", "<", "<=", "="])} ${(rand() * 100).toFixed(2)}`
/** a condition over the whole universe, as complex as the ticker conditions (two of them) */
const fullUniverse = () => `(${condition()}) AND (${condition()})`

const MIXES: ReadonlyArray<readonly [string, () => string]> = [
  [
    "spec shapes: ½ ticker subscribe, ½ signal subscribe",
    () => (rand() < 0.5 ? tickerSubscription() : signalSubscription())
  ],
  ["½ ticker subscribe, ½ two-condition full universe", () => (rand() < 0.5 ? tickerSubscription() : fullUniverse())],
  ["all two-condition full universe (stress)", fullUniverse]
]
const distinct = (make: () => string): Array<string> => {
  const out = new Set<string>()
  while (out.size < 10_000) out.add(make())
  return [...out]
}
/** median wall time of `runs` passes, and the process CPU time of that pass (the wall time includes waiting for the CPU on a loaded machine) */
const passMedian = (f: () => void, runs: number): number => {
  const ts: Array<[number, number]> = []
  for (let i = 0; i < runs; i++) {
    const c = process.cpuUsage()
    const s = performance.now()
    f()
    const wall = performance.now() - s
    const cpu = process.cpuUsage(c)
    ts.push([wall, (cpu.user + cpu.system) / 1000])
  }
  ts.sort((a, b) => a[0] - b[0])
  lastCpu = ts[Math.floor(runs / 2)]![1]
  return ts[Math.floor(runs / 2)]![0]
}
let lastCpu = 0
const handFloor = handIntoMedian * 10_000
for (const [label, make] of MIXES) {
  const texts = distinct(make)
  t = performance.now()
  const compiled = texts.map(compile)
  const compileAll = performance.now() - t
  let matched = 0
  const into = () => {
    matched = 0
    for (const q of compiled) matched += q.evaluateInto(snapshot, buffer)
  }
  const fresh = () => {
    for (const q of compiled) q.evaluate(snapshot)
  }
  t = performance.now()
  into()
  const firstPass = performance.now() - t
  const intoTotal = passMedian(into, 5)
  const intoCpu = lastCpu
  const freshTotal = passMedian(fresh, 3)
  report(
    `10,000 distinct predicates, ${label}`,
    `${intoTotal.toFixed(0)} ms`,
    `CPU ${intoCpu.toFixed(0)} ms; first pass ${firstPass.toFixed(0)} ms; with a fresh result array each ${freshTotal.toFixed(0)} ms; 10,000 × hand loop ${handFloor.toFixed(0)} ms (× ${(intoTotal / handFloor).toFixed(2)}); compile all ${compileAll.toFixed(0)} ms; ${matched} matches`
  )
  goal(
    `10,000 predicates ≤ 500 ms, ${label}`,
    intoTotal <= 500,
    `${intoTotal.toFixed(0)} ms (CPU ${intoCpu.toFixed(0)} ms)`
  )
}

// ---- 4. pathological inputs -----------------------------------------------------------

const parseMedian = (text: string, runs = 200) => time(() => compileQuery(text, ctx), runs, 50)
const outcome = (text: string): string => {
  const r = compileQuery(text, ctx)
  return Either.isRight(r)
    ? "compiles"
    : `refused: ${r.left.code} / ${r.left.errors[0]?.code} at ${r.left.errors[0]?.pos}`
}
const fill = (unit: string, length: number, tail = "") =>
  unit.repeat(Math.floor((length - tail.length) / unit.length)) + tail
/** `(price + (price + (… price …)))`, `depth` parentheses deep */
const nested = (depth: number) => `${"(price + ".repeat(depth)}price${")".repeat(depth)} > 1`
for (const [label, text] of [
  ["64 nested parentheses", `${"(".repeat(64)}price > 1${")".repeat(64)}`],
  ["64 nested (price + (price + …)) levels", nested(64)],
  ["65 nested parentheses (over the limit)", `${"(".repeat(65)}price > 1${")".repeat(65)}`],
  ["4000 chars: AND chain", fill("price > 1 AND ", 4000, "TRUE")],
  ["4000 chars: AND chain, error in the last token", fill("price > 1 AND ", 4000, "price >")],
  ["4000 chars: IN list", `ticker IN (${fill("'ABCD', ", 3985, "'Z')")}`],
  ["4000 chars: string literal", `name = '${"x".repeat(3990)}'`],
  ["4000 chars: + chain (deeper than the nesting limit)", fill("price + ", 4000, "1 > 0")],
  ["4000 chars: NOT NOT … chain", fill("NOT ", 4000, "golden_cross")],
  ["4000 chars: - - … chain", fill("- ", 4000, "price > 0")],
  ["4000 chars: unbalanced '('", "(".repeat(4000)],
  ["4000 chars: LIKE '%a%a…'", `name LIKE '${"%a".repeat(1990)}'`],
  ["4001 chars (over the length limit)", `${"x".repeat(3992)} > 1 OR x`]
] as const) {
  report(`parse+check+compile, ${label} (${text.length} chars)`, us(parseMedian(text)), outcome(text))
}
const shape = (length: number) => fill("(price > 1 OR rsi_14 < 30) AND ", length, "TRUE")
const growth = [1000, 2000, 4000].map((n) => parseMedian(shape(n)))
report(
  "growth with size: 1000 → 2000 → 4000 chars (AND/OR chain)",
  `× ${(growth[2]! / growth[0]!).toFixed(2)}`,
  `${growth.map(us).join(" → ")} (linear: × 4)`
)
const deep = [16, 32, 64].map((d) => parseMedian(nested(d), 1000))
report(
  "growth with depth: 16 → 32 → 64 nested levels",
  `× ${(deep[2]! / deep[0]!).toFixed(2)}`,
  `${deep.map(us).join(" → ")} (linear: × 4)`
)

console.log("\ngoals:")
for (const g of goals) console.log(`  ${g}`)

export { results }
