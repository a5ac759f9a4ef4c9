/**
 * The live row's column blocks, recycled once nothing reads them.
 *
 * A refresh of the whole market fills ~12 MB of columns (`allocateColumnBlock`). Allocated anew
 * each time, those buffers are external memory to V8, which starts a full collection of the
 * heap whenever external memory has grown by ~64 MB since the last one: every ~5 refreshes,
 * whatever the heap holds — in a runner with 100,000 webhooks a mark of a ~500 MB heap. Here a
 * block goes back to a small pool once every column view of it handed out has been collected (a
 * `FinalizationRegistry` counts them down), and the next refresh refills it instead: the
 * external memory stops growing, and the collections come at the heap's own pace.
 *
 * Safe while no reader makes views of its own over a column's buffer (`subarray`, `new
 * Float64Array(col.values.buffer)`): only the views handed out are counted. A snapshot derived
 * from another shares its column objects, so it keeps the block lent.
 */
import { allocateColumnBlock, blockColumns, type ColumnBlock } from "../indicators/index.js"
import type { BooleanColumn, NumericColumn } from "../snapshot.js"

interface Lent {
  readonly block: ColumnBlock
  /** views of the block still reachable */
  views: number
}

export class ColumnBlocks {
  /** blocks ready for reuse */
  readonly free: Array<ColumnBlock> = []
  private readonly lent = new FinalizationRegistry<Lent>((lent) => {
    if (--lent.views === 0 && this.free.length < this.keep) this.free.push(lent.block)
  })
  /** blocks made and blocks reused (for tests) */
  made = 0
  reused = 0

  /** `keep`: the most blocks held for reuse (each ~12 MB for the whole market; 3 halved the full collections of a refresh loop, 5 did no better) */
  constructor(
    readonly size: number,
    readonly keep = 3
  ) {}

  /** Zeroed (all-null) columns for a snapshot of `size` rows: a recycled block's views, or a new block's. */
  take(): Map<string, NumericColumn | BooleanColumn> {
    let block = this.free.pop()
    if (block === undefined) {
      block = allocateColumnBlock(this.size)
      this.made++
    } else {
      block.numbers.fill(0)
      block.flags.fill(0)
      block.valid.fill(0)
      this.reused++
    }
    const columns = blockColumns(block)
    const lent: Lent = { block, views: 0 }
    for (const column of columns.values()) {
      this.lent.register(column.values, lent)
      this.lent.register(column.valid, lent)
      lent.views += 2
    }
    return columns
  }
}
