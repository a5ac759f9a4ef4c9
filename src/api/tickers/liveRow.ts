/**
 * A ticker's live row as `GET /v2/tickers/{ticker}` answers it, shared by the
 * endpoint's handler and its direct answer (../direct).
 */
import type { Schema } from "effect"
import type { Snapshot } from "../../market/snapshot.js"
import { isoAsOf } from "../common/market.js"
import { ROW_COLUMNS, renderRow } from "../common/rows.js"
import type { TickerRowResponse } from "./Api.js"

/** The answer for a tracked ticker's live row; undefined when the snapshot has no row for it. */
export const liveRowBody = (
  snapshot: Snapshot,
  ticker: string
): Schema.Schema.Type<typeof TickerRowResponse> | undefined => {
  const r = snapshot.index.get(ticker)
  if (r === undefined) return undefined
  return { as_of: isoAsOf(snapshot), ticker, data: renderRow(snapshot, r, ROW_COLUMNS) }
}
