/** The tickers group over HTTP (reads.ts holds the reads). */
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { VigilApi } from "../Api.js"
import { CurrentKey } from "../middleware/Authentication.js"
import { listTickers, tickerCoverage, tickerHistory, tickerRow } from "./reads.js"

export const TickersHttpLive = HttpApiBuilder.group(VigilApi, "tickers", (handlers) =>
  handlers
    .handle("list", ({ urlParams }) => Effect.flatMap(CurrentKey, (key) => listTickers(key, urlParams)))
    .handle("row", ({ path, urlParams }) => tickerRow(path, urlParams))
    .handle("history", ({ path, urlParams }) =>
      Effect.flatMap(CurrentKey, (key) => tickerHistory(key, path, urlParams))
    )
    .handle("coverage", ({ path }) => tickerCoverage(path))
)
