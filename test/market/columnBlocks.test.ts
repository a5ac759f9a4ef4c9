/**
 * The live row's column blocks recycled once nothing reads them (src/market/engine/columnBlocks.ts):
 * a block comes back only when every column view handed out of it has been collected, comes back
 * zeroed, and the pool holds at most `keep` of them.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { describe, expect, it } from "vitest"
import { ColumnBlocks } from "../../src/market/engine/columnBlocks.js"
import { COMPUTED_COLUMN_NAMES } from "../../src/market/indicators/index.js"
import type { BooleanColumn, NumericColumn } from "../../src/market/snapshot.js"

setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc") as () => void

/** collections and turns of the event loop (finalizers run as tasks) until `done`, or give up */
const collectUntil = async (done: () => boolean) => {
  for (let k = 0; k < 50 && !done(); k++) {
    gc()
    await new Promise((r) => setTimeout(r, 5))
  }
  return done()
}

const fill = (columns: Map<string, NumericColumn | BooleanColumn>) => {
  for (const c of columns.values()) {
    c.values.fill(1)
    c.valid.fill(1)
  }
}

describe("the live row's column blocks", () => {
  it("hand out zeroed columns, every computed one, and reuse a block once none of its views is reachable", async () => {
    const blocks = new ColumnBlocks(100)
    // no view of the block outlives this call: only its buffer comes out (the views handed out are what is counted)
    const buffer = ((): ArrayBufferLike => {
      const columns = blocks.take()
      expect([...columns.keys()]).toEqual(COMPUTED_COLUMN_NAMES)
      const { values, valid } = columns.get("price")!
      expect([values.length, valid.length, Math.max(...values, ...valid)]).toEqual([100, 100, 0])
      fill(columns)
      return values.buffer
    })()
    expect(await collectUntil(() => blocks.free.length === 1)).toBe(true)
    const again = blocks.take()
    expect(again.get("price")!.values.buffer).toBe(buffer)
    expect([blocks.made, blocks.reused]).toEqual([1, 1])
    for (const c of again.values()) {
      expect(c.values.every((v) => v === 0)).toBe(true)
      expect(c.valid.every((v) => v === 0)).toBe(true)
    }
  })

  it("keeps a block lent while one view of it is still read", async () => {
    const blocks = new ColumnBlocks(100)
    let columns: Map<string, NumericColumn | BooleanColumn> | undefined = blocks.take()
    const held = columns.get("rsi_14")!.valid
    held.fill(1)
    columns = undefined
    // another block collected meanwhile: proof that collections ran
    let other: unknown = blocks.take()
    other = undefined
    expect(other).toBeUndefined()
    expect(await collectUntil(() => blocks.free.length === 1)).toBe(true)
    for (let k = 0; k < 5; k++) {
      gc()
      await new Promise((r) => setTimeout(r, 5))
    }
    expect(blocks.free.length).toBe(1)
    expect(held.every((v) => v === 1)).toBe(true)
  })

  it("holds at most `keep` blocks for reuse", async () => {
    const blocks = new ColumnBlocks(10, 2)
    for (let k = 0; k < 5; k++) blocks.take()
    expect(await collectUntil(() => blocks.free.length === 2)).toBe(true)
    for (let k = 0; k < 5; k++) {
      gc()
      await new Promise((r) => setTimeout(r, 5))
    }
    expect(blocks.free.length).toBe(2)
  })
})

describe("the recycling's one precondition", () => {
  it("holds in src/: no module makes views of its own over a column's buffer", () => {
    // a view made from `col.values.buffer` or `col.values.subarray(…)` is not counted: its block could be
    // refilled under it. The block's own views are made in one place, `blockColumns` (indicators/sink.ts)
    const src = resolve(import.meta.dirname, "../../src")
    const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter(
      (f) => f.endsWith(".ts") && f !== "market/indicators/sink.ts"
    )
    const found = files.flatMap((f) =>
      readFileSync(join(src, f), "utf8")
        .split("\n")
        .flatMap((line, i) =>
          /\b(values|valid)\.(buffer|subarray)\b/.test(line) && !line.trimStart().startsWith("*")
            ? [`${relative(src, join(src, f))}:${i + 1}: ${line.trim()}`]
            : []
        )
    )
    expect(found).toEqual([])
  })
})
