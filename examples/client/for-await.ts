/**
 * The same walk outside Effect: every subscription of the account with `for await`.
 *
 * VIGIL_URL=http://127.0.0.1:8080 VIGIL_API_KEY=vigil_test_… npx tsx examples/client/for-await.ts
 */
import { FetchHttpClient } from "@effect/platform"
import { Effect } from "effect"
import { makeVigilClient, walkAsync } from "vigil/client"

export const webhookNames = async (baseUrl: string, apiKey: string) => {
  const vigil = await Effect.runPromise(makeVigilClient(baseUrl, apiKey).pipe(Effect.provide(FetchHttpClient.layer)))
  const names: Array<string> = []
  const all = walkAsync(
    (cursor) => vigil.webhooks.list({ urlParams: { limit: 100, cursor } }),
    (page) => page.webhooks
  )
  for await (const webhook of all) names.push(webhook.name)
  return names
}

if (process.argv[1]?.endsWith("for-await.ts")) {
  const { VIGIL_URL = "http://127.0.0.1:8080", VIGIL_API_KEY = "" } = process.env
  console.log(await webhookNames(VIGIL_URL, VIGIL_API_KEY))
}
