/**
 * The evaluator's cheap paths against the plain ones: incremental evaluation
 * (skip / patch from the column changes) gives exactly the matches of a full
 * evaluation, the fire renderer gives exactly `JSON.stringify(firedEvent(…))`,
 * and stored match-set deltas decode to the set that was written — in the
 * store too (PGlite, and PostgreSQL when DATABASE_URL is set).
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import {
  ColumnChanges,
  columnIdsOf,
  dirtyRows,
  intersectRows,
  patchIds,
  restrictionRows,
  tickerRestriction
} from "../../src/alerts/incremental.js"
import { FireRenderer, firedEvent } from "../../src/alerts/payload.js"
import { compileQuery } from "../../src/query/index.js"
import { EvaluatorState, encodeDelta } from "../../src/store/evaluatorState.js"
import { decodeMatchSet, Webhooks } from "../../src/store/webhooks.js"
import { context, snapshotOf } from "../query/support.js"
import { backends } from "../support/backends.js"
import { inAppConfig } from "../support/webhooks.js"
import { market, move, seeded } from "./movingMarket.js"

const TICKERS = Array.from({ length: 60 }, (_, i) => `T${i}`)

const rand = seeded(42)

const QUERIES = [
  "price > 50",
  "price > 50 AND rsi_14 < 40",
  "golden_cross OR rsi_14 IS NULL",
  "market_cap IS NULL OR market_cap > 500000",
  "ticker = 'T3' AND price > 20",
  "ticker IN ('T1', 'T7', 'T9') AND (rsi_14 > 50 OR golden_cross)",
  "earnings_this_week IS NOT TRUE AND price BETWEEN 10 AND 70",
  "sector = 'Tech' AND NOT golden_cross",
  "price > T5.price"
]

describe("incremental evaluation", () => {
  it("skipping and patching from the column changes gives the full evaluation's matches", () => {
    const ctx = context({ tickers: TICKERS })
    const ids = Int32Array.from(TICKERS.map((_, i) => i)) // rows are ids here
    const scopes: ReadonlyArray<Int32Array | undefined> = [undefined, Int32Array.from([1, 3, 5, 7, 9, 20, 40])]
    for (const q of QUERIES) {
      const c = Either.getOrThrow(compileQuery(q, ctx))
      for (const scope of scopes) {
        let prev = market(TICKERS, rand)
        let result = c.evaluate(prev, scope)
        for (let tick = 0; tick < 30; tick++) {
          const next = move(prev, rand)
          const changes = ColumnChanges.between(prev, next)!
          const full = c.evaluate(next, scope)
          const restriction = tickerRestriction(c.ir)
          const candidates =
            restriction === undefined
              ? scope
              : scope === undefined
                ? restrictionRows(next, restriction)
                : intersectRows(restrictionRows(next, restriction), scope)
          if (c.tickers.length === 0) {
            const dirty = dirtyRows(changes, columnIdsOf(c.columns), candidates, 1_000)!
            const buffer = new Int32Array(next.size)
            const n = dirty.length === 0 ? 0 : c.evaluateInto(next, buffer, dirty)
            const patched = dirty.length === 0 ? result : patchIds(result, dirty, buffer, n, ids, true)
            expect([...patched], `${q} tick ${tick}`).toEqual([...full])
            // unchanged matches keep the very same array
            if (patched !== result) expect([...patched]).not.toEqual([...result])
          }
          result = full
          prev = next
        }
      }
    }
  })

  it("finds the rows a ticker conjunct restricts a predicate to", () => {
    const ctx = context({ tickers: TICKERS })
    const r = (q: string) => tickerRestriction(Either.getOrThrow(compileQuery(q, ctx)).ir)
    expect(r("ticker = 'T3' AND price > 1")).toEqual(["T3"])
    expect(r("price > 1 AND ticker IN ('T1', 'T2')")).toEqual(["T1", "T2"])
    expect(r("ticker = 'T1' OR ticker = 'T2'")).toEqual(["T1", "T2"])
    expect(r("ticker = 'T1' OR price > 1")).toBeUndefined()
    expect(r("ticker != 'T1' AND price > 1")).toBeUndefined()
    expect(r("price > 1")).toBeUndefined()
  })

  it("compares a column only when a pair asks for it, and each one once", () => {
    const prev = market(TICKERS, rand)
    const next = move(prev, rand)
    const asked = new Map<string, number>()
    const counting = (columns: typeof next.columns): typeof next.columns => {
      const wrapped = new Map(columns)
      const get = wrapped.get.bind(wrapped)
      wrapped.get = (name: string) => {
        asked.set(name, (asked.get(name) ?? 0) + 1)
        return get(name)
      }
      return wrapped
    }
    const changes = ColumnChanges.between(prev, { ...next, columns: counting(next.columns) })!
    expect(asked.size).toBe(0)
    const [a, b] = [prev.columns.get("price")!, next.columns.get("price")!]
    if (a.kind !== "numeric" || b.kind !== "numeric") throw new Error("price is numeric")
    expect(changes.changed("price")).toEqual(
      Int32Array.from(TICKERS.keys()).filter((r) => !Object.is(a.values[r], b.values[r]) || a.valid[r] !== b.valid[r])
    )
    changes.changed("price")
    changes.maskById(columnIdsOf(["price"])[0]!)
    expect([...asked]).toEqual([["price", 1]])
    // a column only one of the two snapshots has changed on every row
    const dropped = ColumnChanges.between(prev, { ...next, columns: new Map([["price", next.columns.get("price")!]]) })!
    expect(dropped.changed("rsi_14")).toEqual(Int32Array.from(TICKERS.keys()))
  })

  it("reports no change for identical snapshots and every row for another ticker list", () => {
    const s = market(TICKERS, rand)
    expect(ColumnChanges.between(s, s)!.columns).toBe(0)
    const other = snapshotOf([{ ticker: "ZZZ", price: 1 }])
    expect(ColumnChanges.between(s, other)).toBeUndefined()
  })
})

describe("fire rendering", () => {
  it("renders exactly the firedEvent JSON, truncated and ordered the same way", () => {
    const s = { ...market(TICKERS, rand), asOf: 1_795_000_000_000 }
    const renderer = new FireRenderer(s, 1_795_000_001_234)
    for (const [added, fields] of [
      [["T3", "T1", "T40"], ["rsi_14"]],
      [TICKERS.slice(0, 50).reverse(), []],
      [["T9"], ["price", "golden_cross", "earnings_this_week", "sector"]]
    ] as const) {
      const args = { webhookId: "wh_1", name: 'n "quoted"', q: "price > 1", added, fields }
      expect(renderer.render(args)).toBe(
        JSON.stringify(firedEvent({ ...args, snapshot: s, test: false, now: 1_795_000_001_234 }))
      )
    }
    // with DASHBOARD_URL: each row links to the ticker's chart at the fire's data time, both ways alike
    const base = "https://vigil.example.com/app/"
    const linked = new FireRenderer(s, 1_795_000_001_234, base)
    const args = { webhookId: "wh_2", name: "n", q: "q", added: ["T3", "T1"], fields: [], place: undefined }
    const text = linked.render({
      ...args,
      place: { type: "webhook.fired", sequence: 4, dataAsOf: 1, repeated: new Set(["T1"]) }
    })
    expect(text).toBe(
      JSON.stringify(
        firedEvent({
          ...args,
          snapshot: s,
          test: false,
          now: 1_795_000_001_234,
          chartBase: base,
          place: { type: "webhook.fired", sequence: 4, dataAsOf: 1, repeated: new Set(["T1"]) }
        })
      )
    )
    const rows = JSON.parse(text).data.matches
    expect(rows.map((r: any) => r.chart_url)).toEqual(
      rows.map(
        (r: any) =>
          `https://vigil.example.com/app/#/tickers/${r.ticker}?at=${encodeURIComponent(new Date(s.asOf).toISOString())}`
      )
    )
    expect(rows.find((r: any) => r.ticker === "T1")).toMatchObject({ repeat: true })
    const many = snapshotOf(Array.from({ length: 150 }, (_, i) => ({ ticker: `X${i}`, market_cap: i % 7 ? i : null })))
    const all = many.tickers
    expect(new FireRenderer(many, 5).render({ webhookId: "w", name: "n", q: "q", added: all, fields: [] })).toBe(
      JSON.stringify(
        firedEvent({ webhookId: "w", name: "n", q: "q", added: all, fields: [], snapshot: many, test: false, now: 5 })
      )
    )
  })
})

describe("stored match-set deltas", () => {
  it("decode to the set written", () => {
    let set = new Set<string>(["A", "B", "C"])
    let delta = ""
    for (let k = 0; k < 40; k++) {
      const added = [`N${k}`, ...(k % 3 === 0 ? ["A"] : [])].filter((t) => !set.has(t))
      const removed = [...set].filter((t) => t.length > 1 && rand() < 0.3)
      delta += encodeDelta(added, removed)!
      for (const t of added) set.add(t)
      for (const t of removed) set.delete(t)
      expect(decodeMatchSet("A,B,C", delta)).toEqual([...set].sort())
    }
    set = new Set()
    expect(decodeMatchSet("", "")).toEqual([])
    expect(encodeDelta(["BRK.B", "BF-B"], [])).toBe(";>BRK.B,BF-B")
    expect(encodeDelta(["A;B"], [])).toBeUndefined()
  })

  for (const backend of backends()) {
    it.scoped(
      `are written and read back through the store (${backend.name})`,
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const store = yield* Webhooks
          const stateStore = yield* EvaluatorState
          yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_a', 'pro', 1, 1)`
          const created = yield* store.create("acc_a", "wh_d", inAppConfig("d", "price > 1"), null)
          if (created._tag !== "Created") throw new Error("not created")
          const w = created.record
          expect(w.lastMatchSet).toEqual([])
          let seq = w.stateSeq
          const write = (c: Parameters<typeof stateStore.commitTick>[2][number]["write"]) =>
            Effect.gen(function* () {
              const { written } = yield* stateStore.commitTick(
                1_000 + seq,
                ["realtime"],
                [{ id: "wh_d", armedAt: w.armedAt, stateSeq: seq, write: c, fired: false, eventSeq: 0, memory: "" }],
                []
              )
              if (written.has("wh_d")) seq++
              return written.has("wh_d")
            })
          expect(yield* write({ _tag: "Full", matchSet: ["AAA", "BBB"] })).toBe(true)
          expect(yield* write({ _tag: "Delta", added: ["CCC"], removed: ["AAA"], matchSet: () => "unused" })).toBe(true)
          expect(yield* write({ _tag: "Delta", added: ["AAA"], removed: [], matchSet: () => "unused" })).toBe(true)
          const stored = yield* store.getById("wh_d")
          expect(stored?.lastMatchSet).toEqual(["AAA", "BBB", "CCC"])
          expect(stored?.matchDeltas).toBe(2)
          expect(stored?.stateSeq).toBe(seq)
          // a symbol that cannot go into a delta: the set in full
          expect(yield* write({ _tag: "Delta", added: ["X;Y"], removed: [], matchSet: () => "AAA,X;Y" })).toBe(true)
          expect((yield* store.getById("wh_d"))?.matchDeltas).toBe(0)
          // a stale state_seq writes nothing
          seq--
          expect(yield* write({ _tag: "Full", matchSet: ["ZZZ"] })).toBe(false)
          seq++
          // enable after disable clears the set
          yield* store.disable("acc_a", "wh_d", "user", null)
          const enabled = yield* store.enable("acc_a", "wh_d", null)
          expect(enabled._tag === "Enabled" && enabled.record.lastMatchSet).toEqual([])
          expect(enabled._tag === "Enabled" && enabled.record.lastEvaluatedAt).toBeNull()
        }).pipe(
          Effect.provide(
            Layer.mergeAll(Webhooks.Default, EvaluatorState.Default).pipe(Layer.provideMerge(backend.layer()))
          )
        ),
      60_000
    )
  }
})
