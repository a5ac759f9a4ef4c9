/** The evaluator's test harness: hand-made snapshots of four tickers, a market that is never asked, the store layers. */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Stream } from "effect"
import { Alerts } from "../../src/alerts/Alerts.js"
import { DEFAULT_FIRING } from "../../src/alerts/firing/options.js"
import { DeliveryWake } from "../../src/delivery/wake.js"
import { Market } from "../../src/market/Market.js"
import { makeTickerDirectory } from "../../src/market/tickers/directory.js"
import { Deliveries } from "../../src/store/deliveries.js"
import { EvaluatorState } from "../../src/store/evaluatorState.js"
import { Universes } from "../../src/store/universes.js"
import { type Cadence, type FiringOptions, Webhooks } from "../../src/store/webhooks.js"
import { snapshotOf } from "../query/support.js"
import type { backends } from "../support/backends.js"

export const TICKERS = ["AAA", "BBB", "CCC", "DDD"]

export const snapshot = (asOf: number, prices: Record<string, number>, rsi: Record<string, number> = {}) => ({
  ...snapshotOf(
    TICKERS.map((t) => ({
      ticker: t,
      name: `${t} Inc`,
      sector: "Tech",
      price: prices[t] ?? 1,
      volume_today: 1,
      relative_volume: 1,
      day_change_pct: 0.01,
      market_cap: t === "DDD" ? null : 1e9 * (TICKERS.indexOf(t) + 1),
      pe_ratio: null,
      rsi_14: rsi[t] ?? 50,
      eps: 1,
      golden_cross: false,
      above_sma_50: true,
      earnings_this_week: null
    }))
  ),
  asOf
})

export const fakeMarket = Layer.succeed(Market, {
  latest: Effect.die("unused"),
  changes: Stream.never,
  data: Effect.fail({ _tag: "MarketNotReady", message: "no history here" }),
  refreshNow: Effect.die("unused"),
  importBars: () => Effect.die("unused"),
  tickers: [],
  directory: makeTickerDirectory(
    TICKERS.map((t) => ({ ticker: t, name: t, asset_type: "CS", exchange: "XNYS", country: "us" }) as any)
  ),
  refreshInterval: 60_000
} as unknown as Market)

export const layerFor = (db: ReturnType<ReturnType<typeof backends>[number]["layer"]>) =>
  Alerts.Default.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        Webhooks.Default,
        EvaluatorState.Default,
        Deliveries.Default,
        Universes.Default,
        DeliveryWake.Default,
        fakeMarket
      )
    ),
    Layer.provideMerge(db)
  )

export const webhook = (
  id: string,
  q: string,
  cadence: Cadence = "realtime",
  universeId: string | null = null,
  firing: FiringOptions = DEFAULT_FIRING
) =>
  Effect.gen(function* () {
    const created = yield* (yield* Webhooks).create(
      "acc_a",
      id,
      {
        name: id,
        q,
        universeId,
        cadence,
        channel: "in_app",
        targetUrl: null,
        chatUrl: null,
        deviceId: null,
        signingSecret: null,
        fields: ["rsi_14"],
        origin: { type: "query", ref: null, condition: q },
        firing
      },
      null
    )
    if (created._tag !== "Created") throw new Error("not created")
    return created.record
  })

export const queued = (webhookId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ payload: string }>`SELECT payload FROM deliveries WHERE webhook_id = ${webhookId}
      ORDER BY created_at, id`
    return rows.map((r) => JSON.parse(r.payload).data as { match_count: number; matches: Array<{ ticker: string }> })
  })
