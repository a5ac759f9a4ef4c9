/**
 * Walks every page of a scan (100 rows a page, following `next_cursor`) as a Stream, with the
 * client's retries: a 429 waits its Retry-After, a 5xx backs off. Answers the tickers in order.
 *
 * VIGIL_URL=http://127.0.0.1:8080 VIGIL_API_KEY=vigil_test_… npx tsx examples/client/walk-a-scan.ts
 */
import { FetchHttpClient } from "@effect/platform"
import { Chunk, Effect, Stream } from "effect"
import { makeVigilClient, walk } from "vigil/client"

export const walkAScan = (baseUrl: string, apiKey: string, q: string) =>
  Effect.gen(function* () {
    const vigil = yield* makeVigilClient(baseUrl, apiKey)
    const rows = walk(
      (cursor) => vigil.scan.scan({ payload: { q, limit: 100, order: "market_cap", dir: "desc", cursor } }),
      (page) => page.results
    )
    const tickers = yield* Stream.runCollect(Stream.map(rows, (row) => String(row.ticker)))
    return Chunk.toReadonlyArray(tickers)
  }).pipe(Effect.provide(FetchHttpClient.layer))

if (process.argv[1]?.endsWith("walk-a-scan.ts")) {
  const { VIGIL_URL = "http://127.0.0.1:8080", VIGIL_API_KEY = "" } = process.env
  const tickers = await Effect.runPromise(walkAScan(VIGIL_URL, VIGIL_API_KEY, "rsi_14 < 30 AND price > 5"))
  console.log(`${tickers.length} tickers: ${tickers.slice(0, 10).join(", ")}…`)
}
