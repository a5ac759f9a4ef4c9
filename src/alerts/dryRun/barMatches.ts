/**
 * A row-local rule's past evaluations read off its kept bars. When neither
 * `q` nor `clear_q` ranks among rows (PCT_RANK, RANK, ZSCORE), reads another
 * ticker's row (`AAPL.price`) or looks rows up by ticker, whether a condition
 * holds on a day's row is a function of that row alone — and a day's row of a
 * ticker is one of its kept bars (`KeptRows.on`). So each condition is
 * evaluated once over every kept bar (one snapshot whose rows are the kept
 * positions) instead of once per day over a snapshot laid out for that day
 * (`DaySnapshot`): a day's matches are then the day's positions whose bit is
 * set. Same rows, same values, same compiled query: the same matches.
 */
import { columnByName } from "../../market/catalog.js"
import type { MarketReader } from "../../market/engine/MarketData.js"
import type { DayLists, KeptRows } from "../../market/history/keptRows.js"
import type { Column, Snapshot } from "../../market/snapshot.js"
import type { CompiledQuery } from "../../query/index.js"
import { indexOfId } from "../tickerIds.js"
import { closeAtOf, STRING_COLUMN_NAMES } from "./daySnapshot.js"
import type { Evaluation } from "./replay.js"

/** the conditions can be answered bar by bar (see above) */
export const rowLocal = (q: CompiledQuery): boolean =>
  !q.crossSectional && q.tickers.length === 0 && !q.columns.includes("ticker")

export class BarMatches {
  /** per day, the walked tickers (positions in `slots`) whose row satisfies `q` (see `KeptRows.daysWhere`) */
  private readonly matched: DayLists
  /** the same for `clear_q` */
  private readonly cleared: DayLists | undefined
  private readonly priceValues: Float64Array
  private readonly priceValid: Uint8Array
  /** slot → position in `slots` (-1: not walked) */
  private readonly kOfSlot: Int32Array

  constructor(
    private readonly md: MarketReader,
    private readonly slots: ReadonlyArray<number>,
    private readonly rows: KeptRows,
    q: CompiledQuery,
    clear: CompiledQuery | undefined,
    private readonly fromDay: number,
    toDay: number
  ) {
    const snapshot = everyBar(md, slots, rows, [...q.columns, ...(clear?.columns ?? [])])
    this.matched = rows.daysWhere(q.mask(snapshot), fromDay, toDay)
    this.cleared = clear === undefined ? undefined : rows.daysWhere(clear.mask(snapshot), fromDay, toDay)
    const price = rows.columns.find((c) => c.name === "price")
    if (price === undefined) throw new Error("BarMatches: price is not kept")
    this.priceValues = price.values
    this.priceValid = price.valid
    this.kOfSlot = new Int32Array(md.size).fill(-1)
    slots.forEach((slot, k) => {
      this.kOfSlot[slot] = k
    })
  }

  /**
   * The evaluation at `at` of `day` (of the range given): `q` among the slots in `scope`, `clear` over
   * every row. Its prices and bars are read off the kept bars when asked (a few per day).
   */
  evaluate(day: number, at: number, scope: ReadonlySet<number> | undefined): Evaluation {
    const { rows, kOfSlot, priceValues, priceValid, matched } = this
    // a ticker matching on the day (most of those asked: the entries) has its row in the day's list
    const a = matched.start[day - this.fromDay]!
    const b = matched.start[day - this.fromDay + 1]!
    const position = (id: number) => {
      const k = kOfSlot[id] ?? -1
      if (k < 0) return -1
      const i = indexOfId(matched.ks, k, a, b)
      return i >= 0 ? matched.ps[i]! : rows.positionOn(k, day)
    }
    return {
      at,
      matched: this.slotsOn(this.matched, day, scope),
      clear: this.cleared === undefined ? undefined : this.slotsOn(this.cleared, day, undefined),
      price: (id) => {
        const p = position(id)
        return p >= 0 && priceValid[p] === 1 ? priceValues[p]! : Number.NaN
      },
      bar: (id) => {
        const p = position(id)
        return p < 0 ? -1 : rows.barAt(p)
      },
      closeAt: closeAtOf(this.md)
    }
  }

  /**
   * Each slot (ascending) matching `q` on `day` within `scope`, with the kept position of its row there
   * (a backtest buys at its price and holds from its bar).
   */
  eachMatch(
    day: number,
    scope: ReadonlySet<number> | undefined,
    visit: (slot: number, position: number) => void
  ): void {
    const { slots, matched } = this
    const b = matched.start[day - this.fromDay + 1]!
    for (let i = matched.start[day - this.fromDay]!; i < b; i++) {
      const slot = slots[matched.ks[i]!]!
      if (scope === undefined || scope.has(slot)) visit(slot, matched.ps[i]!)
    }
  }

  /** the slots (ascending) of a day's list, within `scope` */
  private slotsOn(lists: DayLists, day: number, scope: ReadonlySet<number> | undefined): Int32Array {
    const { slots } = this
    const a = lists.start[day - this.fromDay]!
    const b = lists.start[day - this.fromDay + 1]!
    if (scope === undefined) return Int32Array.from(lists.ks.subarray(a, b), (k) => slots[k]!)
    const out: Array<number> = []
    for (let i = a; i < b; i++) {
      const slot = slots[lists.ks[i]!]!
      if (scope.has(slot)) out.push(slot)
    }
    return Int32Array.from(out)
  }
}

/**
 * Every kept bar as a row of one snapshot (row = kept position), with the columns `names` reads:
 * the kept computed ones as they are, the static text ones spread over each ticker's positions.
 * No ticker list or index: a row-local condition reads neither.
 */
const everyBar = (
  md: MarketReader,
  slots: ReadonlyArray<number>,
  rows: KeptRows,
  names: ReadonlyArray<string>
): Snapshot => {
  const columns = new Map<string, Column>()
  for (const c of rows.columns) {
    if (columnByName.get(c.name)?.type === "boolean") {
      columns.set(c.name, { kind: "boolean", values: Uint8Array.from(c.values), valid: c.valid })
    } else columns.set(c.name, { kind: "numeric", values: c.values, valid: c.valid })
  }
  for (const name of new Set(names)) {
    if (!STRING_COLUMN_NAMES.has(name)) continue
    const of = (k: number) => (md.tickers[slots[k]!] as unknown as Record<string, string | null>)[name] ?? null
    columns.set(name, { kind: "string", values: rows.spread(of) })
  }
  return { asOf: 0, size: rows.size, tickers: [], index: new Map(), columns }
}
