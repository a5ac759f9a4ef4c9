import { FetchHttpClient } from "@effect/platform"
import { Effect } from "effect"
import { makeVigilClient } from "../src/client.js"

/** Scans for oversold large caps, then subscribes the same condition as a signed webhook. */
export const scanAndSubscribe = (baseUrl: string, apiKey: string, targetUrl: string) =>
  Effect.gen(function* () {
    const vigil = yield* makeVigilClient(baseUrl, apiKey)
    const q = "rsi_14 < 40 AND market_cap > 10000000000"

    const scan = yield* vigil.scan.scan({ payload: { q, order: "rsi_14", dir: "asc", limit: 10 } })
    for (const row of scan.results) console.log(row.ticker, row.rsi_14)

    const webhook = yield* vigil.webhooks.create({
      payload: { q, name: "oversold large caps", target_url: targetUrl }
    })
    console.log(`${webhook.id} fires on ${targetUrl}; secret ${webhook.signing_secret}`)
    return { scan, webhook }
  })

// VIGIL_URL=http://127.0.0.1:8080 VIGIL_API_KEY=vigil_test_… TARGET_URL=https://… npx tsx examples/scan-and-subscribe.ts
if (process.argv[1]?.endsWith("scan-and-subscribe.ts")) {
  const { VIGIL_URL = "http://127.0.0.1:8080", VIGIL_API_KEY = "", TARGET_URL = "" } = process.env
  Effect.runPromise(scanAndSubscribe(VIGIL_URL, VIGIL_API_KEY, TARGET_URL).pipe(Effect.provide(FetchHttpClient.layer)))
}
