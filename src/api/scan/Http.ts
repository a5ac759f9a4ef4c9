/**
 * The scan: compile `q` for the account, pick the snapshot (live, or the
 * daily state as of `asof`), restrict it to the universe's rows, evaluate,
 * then page through the matches in (order value, ticker) order (answer.ts).
 * See docs/scan.md.
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { Tickers } from "../../market/tickers/index.js"
import { Rules } from "../../store/rules.js"
import { VigilApi } from "../Api.js"
import { compileFor } from "../common/compile.js"
import { marketData } from "../common/market.js"
import { cursorCodec } from "../cursor.js"
import { NotFound, orUnavailable } from "../errors.js"
import { CurrentKey } from "../middleware/Authentication.js"
import { resolveUniverse, rowsOfTickers } from "../universes/resolve.js"
import { type SavedScan, type ScanInput, scanAnswer, scanParameters } from "./answer.js"
import { runBacktest } from "./backtest.js"
import { explainScan } from "./explain.js"
import { scanSnapshot } from "./snapshot.js"

export const runScan = (input: ScanInput, requireAsof: boolean) =>
  Effect.gen(function* () {
    const key = yield* CurrentKey
    const accountId = key.account.id
    let saved: SavedScan | undefined
    if (input.rule !== undefined) {
      const rules = yield* Rules
      const found = yield* orUnavailable(rules.get(accountId, input.rule))
      if (found === undefined) {
        return yield* new NotFound({ message: `rule ${JSON.stringify(input.rule)} not found` })
      }
      saved = found
    }
    const p = yield* scanParameters(input, saved, requireAsof)
    const directory = yield* Tickers
    const compiled = yield* compileFor(p.q, directory, key.account)

    const { md: dayData, snapshot, day } = yield* scanSnapshot(key, p.asof)
    let md = dayData

    // the universe's rows
    let rows: Int32Array | undefined
    let scope: { universe: string; size: number } | undefined
    if (p.universe !== undefined) {
      if (md === undefined) md = yield* marketData
      const tickers = yield* resolveUniverse(md, accountId, p.universe, day, p.asof !== undefined)
      rows = rowsOfTickers(snapshot, tickers)
      scope = { universe: p.universe, size: tickers.length }
    }

    const codec = yield* cursorCodec
    const body = yield* scanAnswer(p, { accountId, compiled, snapshot, rows, scope, codec })
    // a ScanResponse's JSON text, written as it is (a schema encoding of 50 rows cost ~10% of a scan)
    return HttpServerResponse.text(body, { contentType: "application/json" })
  })

export const ScanHttpLive = HttpApiBuilder.group(VigilApi, "scan", (handlers) =>
  handlers
    .handle("scan", ({ payload }) => runScan(payload, false))
    .handle("scanGet", ({ urlParams }) => runScan(urlParams, false))
    .handle("history", ({ payload }) => runScan(payload, true))
    .handle("historyGet", ({ urlParams }) => runScan(urlParams, true))
    .handle("explain", ({ payload }) => explainScan(payload))
    .handle("backtest", ({ payload }) => runBacktest(payload))
)
