/**
 * The small-array helpers the evaluator keeps 100,000s of results with:
 * exact contents, and no ArrayBuffer view where a short copy does (a view of
 * a larger buffer keeps that whole buffer, and costs a buffer object).
 */
import { describe, expect, it } from "@effect/vitest"
import { columnIdsOf, intersectRows } from "../../src/alerts/incremental.js"
import { addedIds, EMPTY, fitted, single, TickerIds } from "../../src/alerts/tickerIds.js"
import { flat } from "../../src/query/compile.js"

describe("ticker id arrays", () => {
  it("fitted: the array itself when full, a copy of its own when shorter, the shared empty one when none", () => {
    const a = Int32Array.of(1, 2, 3, 4)
    expect(fitted(a, 4)).toBe(a)
    const b = fitted(a, 2)
    expect([...b]).toEqual([1, 2])
    expect(b.buffer).not.toBe(a.buffer)
    expect(b.buffer.byteLength).toBe(8)
    expect(fitted(a, 0)).toBe(EMPTY)
  })

  it("one shared array per single id", () => {
    expect([...fitted(Int32Array.of(7, 8), 1)]).toEqual([7])
    expect(fitted(Int32Array.of(7, 8), 1)).toBe(single(7))
    expect(fitted(Int32Array.of(7), 1)).toBe(single(7))
    expect(single(8)).not.toBe(single(7))
    const ids = new TickerIds()
    ids.idOf("A")
    expect(ids.sortedIds(["A", "A"])).toBe(single(0))
    expect(intersectRows(Int32Array.of(3, 4), Int32Array.of(4, 9))).toBe(single(4))
  })

  it("sorted ids, added ids and intersections hold exactly their elements", () => {
    const ids = new TickerIds()
    for (const t of ["A", "B", "C", "D", "E"]) ids.idOf(t)
    const s = ids.sortedIds(["D", "B", "D", "A"])
    expect([...s]).toEqual([0, 1, 3])
    expect(s.buffer.byteLength).toBe(12)
    const added = addedIds(Int32Array.of(0, 3), Int32Array.of(0, 1, 3, 4))
    expect([...added]).toEqual([1, 4])
    expect(added.buffer.byteLength).toBe(8)
    expect(addedIds(Int32Array.of(1), Int32Array.of(1))).toBe(EMPTY)
    const both = intersectRows(Int32Array.of(1, 5, 9, 12), Int32Array.of(5, 12, 20))
    expect([...both]).toEqual([5, 12])
    expect(both.buffer.byteLength).toBe(8)
  })

  it("one column id array per distinct list of columns", () => {
    const a = columnIdsOf(["price", "rsi_14"])
    expect(columnIdsOf(["price", "rsi_14"])).toBe(a)
    expect(columnIdsOf(["rsi_14", "price"])).not.toBe(a)
    expect(a.length).toBe(2)
  })

  it("flat keeps a string's value", () => {
    let s = ""
    for (let i = 0; i < 50; i++) s += `x${i} AND `
    expect(flat(s)).toBe(s)
    expect(flat("")).toBe("")
  })
})
