/**
 * Where the signed-in account's webhooks fired or cleared for a ticker (issue 18, item 4): the
 * chart's markers. The newest `MARKER_LIMIT` events of the account's webhooks whose rows carry the
 * ticker (`WebhookEvents.forTicker`), at their data time; another account's never appear.
 */
import { Effect } from "effect"
import { WebhookEvents } from "../../store/webhookEvents.js"
import type { RequestOf } from "../common/request.js"
import { trackedTicker } from "../common/tickers.js"
import { orUnavailable } from "../errors.js"
import type { DashboardApi } from "./Api.js"
import { CurrentSession } from "./DashboardAuth.js"

/** the most markers one chart carries (the newest) */
export const MARKER_LIMIT = 500

export const chartMarkers = ({ path }: RequestOf<typeof DashboardApi, "markers">) =>
  Effect.gen(function* () {
    const session = yield* CurrentSession
    const meta = yield* trackedTicker(path.ticker)
    const events = yield* orUnavailable(
      (yield* WebhookEvents).forTicker(session.user.accountId, meta.ticker, MARKER_LIMIT)
    )
    return {
      markers: events.map((e) => ({
        time: new Date(e.dataAsOf).toISOString(),
        kind: e.type === "webhook.fired" ? ("fired" as const) : ("cleared" as const),
        webhook_id: e.webhookId,
        webhook_name: e.webhookName
      }))
    }
  })
