/**
 * The numbers of issue 4 (the `q` language), on a synthetic full snapshot of
 * 13,047 tickers with every catalog column:
 *
 * - parse + check + compile of a 200-character q, median, against
 *   `JSON.parse` of the same tree as JSON (the cost of merely building it);
 * - one 3-clause q over the whole snapshot, median, against a hand-written
 *   loop over the same typed arrays and a per-row interpreter of the same
 *   tree, both in the same run;
 * - 10,000 distinct subscription predicates over the snapshot, total, against
 *   the 3-clause q's median × 10,000;
 * - parse time on pathological inputs (deep nesting, 4000-character inputs),
 *   and the growth from 1000 to 4000 characters (linear ≈ 4×).
 *
 *   npm run bench:query
 */
import { performance } from "node:perf_hooks"
import { Either } from "effect"
import { CATALOG } from "../src/market/catalog.js"
import type { Column, Snapshot } from "../src/market/snapshot.js"
import { type CompileContext, type CompiledQuery, columnsOf, compileQuery, parse } from "../src/query/index.js"
import type { Node } from "../src/query/ir.js"
import { compareStrings } from "../src/query/semantics.js"

const N = 13_047
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
  console.log(`${what.padEnd(58)} ${figure.padStart(12)}   ${versus}`)
}

// ---- 1. parse + check + compile ---------------------------------------------------

const q200 =
  "price > 10 AND relative_volume > spy.relative_volume AND sector IN ('Technology', 'Energy') AND NOT (rsi_14 BETWEEN 30 AND 70) AND (market_cap / volume_today) * 2 >= abs(day_change_pct) OR sector ILIKE 'tech%'"
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
const hand = (): Int32Array => {
  const out = new Int32Array(N)
  let c = 0
  const pv = price.values
  const pm = price.valid
  const rvv = rv.values
  const rvm = rv.valid
  const sv = sector.values
  for (let i = 0; i < N; i++) {
    if (pm[i] === 1 && pv[i]! > 10 && rvm[i] === 1 && rvv[i]! > 1.5 && sv[i] === "Technology") out[c++] = i
  }
  return out.slice(0, c)
}
const handMedian = time(hand, 2_000)
if (hand().length !== first.length) throw new Error("hand-written loop disagrees with the evaluator")

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
  `3-clause q over ${N} rows (median; first run ${us(coldMs)})`,
  us(evalMedian),
  `hand loop ${us(handMedian)} (× ${(evalMedian / handMedian).toFixed(2)}), per-row interpreter ${us(perRowMedian)} (× ${(evalMedian / perRowMedian).toFixed(2)})`
)

// ---- 3. 10,000 distinct subscription predicates -------------------------------------

const pick = <A>(xs: ReadonlyArray<A>) => xs[Math.floor(rand() * xs.length)]!
const ops = [">", ">=", "<", "<="]
const num = () => (rand() * 100).toFixed(2)
const condition = (): string => {
  switch (Math.floor(rand() * 5)) {
    case 0:
      return `${pick(numeric)} ${pick(ops)} ${num()}`
    case 1:
      return `${pick(flags)} = true`
    case 2:
      return `${pick(numeric)} ${pick(ops)} ${num()} AND ${pick(numeric)} ${pick(ops)} ${num()}`
    case 3:
      return `${pick(numeric)} / NULLIF(${pick(numeric)}, 0) > ${num()} OR ${pick(flags)}`
    default:
      return `${pick(numeric)} BETWEEN ${num()} AND ${(100 + rand() * 100).toFixed(2)} AND ${pick(flags)} IS NOT TRUE`
  }
}
const mix = (tickerShare: number): Array<string> => {
  const out = new Set<string>()
  while (out.size < 10_000) {
    out.add(
      rand() < tickerShare ? `ticker = '${pick(tickers)}' AND (${condition()})` : `${condition()} AND ${condition()}`
    )
  }
  return [...out]
}
for (const [label, share] of [
  ["half ticker subscriptions, half full-universe", 0.5],
  ["all full-universe (worst case)", 0]
] as const) {
  const texts = mix(share)
  t = performance.now()
  const compiled = texts.map(compile)
  const compileAll = performance.now() - t
  let matched = 0
  const runOnce = () => {
    matched = 0
    for (const q of compiled) matched += q.evaluate(snapshot).length
  }
  t = performance.now()
  runOnce()
  const firstPass = performance.now() - t
  const passes: Array<number> = []
  for (let i = 0; i < 5; i++) {
    t = performance.now()
    runOnce()
    passes.push(performance.now() - t)
  }
  report(
    `10,000 distinct predicates, ${label}`,
    `${median(passes).toFixed(0)} ms`,
    `first pass ${firstPass.toFixed(0)} ms; compile all ${compileAll.toFixed(0)} ms; vs 10,000 × 3-clause median ${((evalMedian * 10_000) | 0).toFixed(0)} ms; ${matched} matches`
  )
}

// ---- 4. pathological inputs -----------------------------------------------------------

const parseMedian = (text: string, runs = 200) => time(() => compileQuery(text, ctx), runs, 50)
const fill = (unit: string, length: number, tail = "") =>
  unit.repeat(Math.floor((length - tail.length) / unit.length)) + tail
for (const [label, text] of [
  ["64 nested parentheses", `${"(".repeat(64)}price > 1${")".repeat(64)}`],
  ["4000 chars: AND chain", fill("price > 1 AND ", 4000, "TRUE")],
  ["4000 chars: IN list", `ticker IN (${fill("'ABCD', ", 3985, "'Z')")}`],
  ["4000 chars: string literal", `name = '${"x".repeat(3990)}'`],
  ["4000 chars: arithmetic at the nesting limit", fill("price + ", 4000, "1 > 0")],
  ["4000 chars: unbalanced '('", "(".repeat(4000)],
  ["4000 chars: LIKE '%a%a…'", `name LIKE '${"%a".repeat(1990)}'`]
] as const) {
  report(`parse+check+compile, ${label} (${text.length} chars)`, us(parseMedian(text)), "")
}
const shape = (length: number) => fill("(price > 1 OR rsi_14 < 30) AND ", length, "TRUE")
const growth = [1000, 2000, 4000].map((n) => parseMedian(shape(n)))
report(
  "growth 1000 → 2000 → 4000 chars (AND/OR chain)",
  `× ${(growth[2]! / growth[0]!).toFixed(2)}`,
  `${growth.map(us).join(" → ")} (linear: × 4)`
)

export { results }
