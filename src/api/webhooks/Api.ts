import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ExplainTree } from "../common/explainDoc.js"
import { IntParam, StrictParams } from "../common/params.js"
import { DirectRead } from "../direct/DirectRead.js"
import {
  BadRequest,
  ChannelNotImplemented,
  COMPILE_ERRORS,
  CompileFailed,
  DeliveryNotFailed,
  groupErrors,
  HistoryWindowExceeded,
  InvalidQuery,
  NotFound,
  RecursionDepthExceeded,
  ServiceUnavailable,
  SignalNotAvailableAtInterval,
  TickerNotInMinuteTier,
  UniverseNotFound,
  UnknownSignal,
  WebhookLimitReached,
  WebhookTierRequired,
  withErrors
} from "../errors.js"
import { Authentication } from "../middleware/Authentication.js"

export const MAX_WEBHOOK_NAME = 80

export const Origin = Schema.Struct({
  type: Schema.Literal("ticker", "signal", "query"),
  ref: Schema.NullOr(Schema.String),
  condition: Schema.NullOr(Schema.String)
})

export const WebhookDoc = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  q: Schema.String,
  universe_id: Schema.NullOr(Schema.String),
  cadence: Schema.Literal("realtime", "hourly", "exchange_open"),
  target_url: Schema.NullOr(Schema.String),
  channel: Schema.Literal("webhook", "chat", "in_app", "mobile_push"),
  delivery: Schema.String,
  channel_config_present: Schema.Boolean,
  device_id: Schema.NullOr(Schema.String),
  fields: Schema.Array(Schema.String),
  status: Schema.Literal("active", "disabled"),
  disabled_reason: Schema.NullOr(Schema.String),
  source: Schema.Literal("v2"),
  subscription_origin: Origin,
  created_at: Schema.Int,
  updated_at: Schema.Int,
  last_match_set: Schema.Array(Schema.String),
  last_evaluated_at: Schema.NullOr(Schema.Int),
  next_eval_at: Schema.NullOr(Schema.Int),
  last_fired: Schema.NullOr(Schema.Int),
  fire_on: Schema.Literal("enter", "exit", "both"),
  pending_for: Schema.String,
  clear_q: Schema.NullOr(Schema.String),
  cooldown: Schema.String,
  repeat_interval: Schema.NullOr(Schema.String),
  snoozed_until: Schema.NullOr(Schema.Int),
  signing_secret: Schema.optional(Schema.String),
  test_url: Schema.optional(Schema.String)
}).annotations({ identifier: "Webhook" })

export const WebhookList = Schema.Struct({
  as_of: Schema.String,
  count: Schema.Int,
  next_cursor: Schema.NullOr(Schema.String),
  webhooks: Schema.Array(WebhookDoc)
})

export const DeliveryDoc = Schema.Struct({
  id: Schema.String,
  webhook_id: Schema.String,
  event: Schema.String,
  event_id: Schema.String,
  target_url: Schema.String,
  test: Schema.Boolean,
  attempt: Schema.Int,
  status: Schema.Literal("pending", "delivered", "permanent_failure"),
  next_attempt_at: Schema.NullOr(Schema.Int),
  last_status_code: Schema.NullOr(Schema.Int),
  last_error: Schema.NullOr(Schema.String),
  created_at: Schema.Int,
  delivered_at: Schema.NullOr(Schema.Int)
}).annotations({ identifier: "Delivery" })

export const DeliveryList = Schema.Struct({
  as_of: Schema.String,
  count: Schema.Int,
  next_cursor: Schema.NullOr(Schema.String),
  deliveries: Schema.Array(DeliveryDoc)
})

export const WebhookEventDoc = Schema.Struct({
  sequence: Schema.Int,
  type: Schema.Literal("webhook.fired", "webhook.cleared"),
  created_at: Schema.Int,
  data_as_of: Schema.String,
  suppressed: Schema.Boolean,
  body: Schema.Unknown.annotations({ description: "the event's body, as sent (or, suppressed, as it would have been)" })
}).annotations({ identifier: "WebhookEvent" })

export const WebhookEventList = Schema.Struct({
  as_of: Schema.String,
  oldest_sequence: Schema.NullOr(Schema.Int),
  count: Schema.Int,
  next_cursor: Schema.NullOr(Schema.String),
  events: Schema.Array(WebhookEventDoc)
})

const Fields = Schema.Union(Schema.String, Schema.Array(Schema.String))

/** The firing options (issue 16): every subscribe, create and update accepts them. */
const FiringFields = {
  fire_on: Schema.optional(Schema.String),
  pending_for: Schema.optional(Schema.String),
  clear_q: Schema.optional(Schema.NullOr(Schema.String)),
  cooldown: Schema.optional(Schema.String),
  repeat_interval: Schema.optional(Schema.NullOr(Schema.String))
}

const DeliveryFields = {
  target_url: Schema.optional(Schema.NullOr(Schema.String)),
  channel: Schema.optional(Schema.String),
  chat_url: Schema.optional(Schema.NullOr(Schema.String)),
  device_id: Schema.optional(Schema.NullOr(Schema.String)),
  cadence: Schema.optional(Schema.String),
  name: Schema.optional(Schema.String),
  fields: Schema.optional(Fields),
  ...FiringFields
}

export const TickerSubscribe = StrictParams({ condition: Schema.optional(Schema.String), ...DeliveryFields })
export const SignalSubscribe = StrictParams({
  condition: Schema.optional(Schema.String),
  ticker: Schema.optional(Schema.NullOr(Schema.String)),
  universe: Schema.optional(Schema.NullOr(Schema.String)),
  ...DeliveryFields
})
export const CreateWebhook = StrictParams({
  q: Schema.optional(Schema.String),
  rule_id: Schema.optional(Schema.String),
  universe: Schema.optional(Schema.NullOr(Schema.String)),
  ...DeliveryFields
})
export const UpdateWebhook = StrictParams({
  name: Schema.optional(Schema.String),
  target_url: Schema.optional(Schema.NullOr(Schema.String)),
  chat_url: Schema.optional(Schema.NullOr(Schema.String)),
  cadence: Schema.optional(Schema.String),
  fields: Schema.optional(Fields),
  ...FiringFields
})

/** The window of a dry-run: `from`/`to` (YYYY-MM-DD or ISO 8601) and `resolution` (`1d` or `1m`). */
const DryRunWindow = {
  from: Schema.optional(Schema.String),
  to: Schema.optional(Schema.String),
  resolution: Schema.optional(Schema.String)
}

export const DryRunRequest = StrictParams({
  q: Schema.optional(Schema.String),
  rule_id: Schema.optional(Schema.String),
  signal: Schema.optional(Schema.String),
  ticker: Schema.optional(Schema.NullOr(Schema.String)),
  condition: Schema.optional(Schema.String),
  universe: Schema.optional(Schema.NullOr(Schema.String)),
  cadence: Schema.optional(Schema.String),
  ...FiringFields,
  ...DryRunWindow
})

const ReturnStats = Schema.Struct({
  n: Schema.Int,
  mean: Schema.NullOr(Schema.Number),
  median: Schema.NullOr(Schema.Number),
  hit_rate: Schema.NullOr(Schema.Number)
})

export const DryRunDoc = Schema.Struct({
  as_of: Schema.String,
  q: Schema.String,
  clear_q: Schema.NullOr(Schema.String),
  universe: Schema.NullOr(Schema.String),
  from: Schema.String,
  to: Schema.String,
  resolution: Schema.Literal("1d", "1m"),
  evaluations: Schema.Int,
  event_count: Schema.Int,
  truncated: Schema.Boolean,
  events: Schema.Array(
    Schema.Struct({
      at: Schema.String,
      sequence: Schema.Int,
      type: Schema.Literal("webhook.fired", "webhook.cleared"),
      tickers: Schema.Array(Schema.String),
      repeated: Schema.optional(Schema.Array(Schema.String))
    })
  ),
  per_ticker: Schema.Array(
    Schema.Struct({
      ticker: Schema.String,
      fires: Schema.Int,
      clears: Schema.Int,
      first_at: Schema.String,
      last_at: Schema.String
    })
  ),
  forward_returns: Schema.Struct({ "1d": ReturnStats, "5d": ReturnStats, "20d": ReturnStats })
}).annotations({ identifier: "DryRun" })

const DRY_RUN_DOC =
  "Nothing is stored or sent. The window: `from`/`to` (inclusive, YYYY-MM-DD or ISO 8601; `to` defaults to now, " +
  "`from` to a year before `to` at `1d` and a day at `1m`) within the plan's history window (400 " +
  "`history_window_exceeded`, as the history endpoints). `resolution` `1d` (default): one evaluation per day on each " +
  "ticker's daily row as of that day (the as-of scans' rows); `1m`: within the minute history, at most 7 days, " +
  "minute-tier columns only (400 `signal_not_available_at_interval`) and the minute tier's tickers only (the top 200 " +
  "by 30-day dollar volume; a rule pinned to another ticker is 400 `ticker_not_in_minute_tier`), evaluated on every " +
  "minute the `cadence` is due. The replay starts with nothing inside, so its first evaluation fires for every ticker " +
  "matching (as a new webhook's does). Answer: `evaluations`, `event_count`, the first 500 `events` (`truncated` when " +
  "there were more) with their `sequence`, `per_ticker` (the 100 tickers with the most events), and " +
  "`forward_returns`: for each `webhook.fired` entry (each exit with `fire_on: exit`), the return from the evaluated " +
  "price to the ticker's close 1, 5 and 20 daily bars after the session evaluated (0.012 = +1.2%): `n` (signals " +
  "with that close), `mean`, `median`, `hit_rate` (share above 0). A replay that would take longer than 17 s (a " +
  "whole-market window of a year or more, or news columns over the whole market) answers 400 `bad_request` naming " +
  "its size: narrow the window, or scope it with a universe or a ticker."

/** what both dry-runs answer besides the group's errors */
const DRY_RUN_ERRORS = [
  ...COMPILE_ERRORS,
  NotFound,
  UniverseNotFound,
  HistoryWindowExceeded,
  SignalNotAvailableAtInterval,
  TickerNotInMinuteTier
] as const

const IdPath = Schema.Struct({ id: Schema.String })
const Page = StrictParams({ limit: Schema.optional(IntParam), cursor: Schema.optional(Schema.String) })

const FIRING_DOC =
  "Firing options (all optional; the defaults are the plain behaviour): `fire_on` `enter` (default: `webhook.fired` " +
  "when tickers enter), `exit` (`webhook.cleared` when they leave) or `both`; `pending_for` (duration, `0s`–`1d`): a " +
  "ticker enters only after matching on every evaluation for that long; `clear_q` (a WHERE expression, frozen like " +
  "`q`): once inside, a ticker leaves only when it holds; `cooldown` (`0s`–`30d`): a re-entry within it after a fire " +
  "is absorbed; `repeat_interval` (`1s`–`30d` or null): a ticker that stays inside is sent again, its row with " +
  "`repeat: true`. Durations are `<n>s|m|h|d`. Every event carries `data.sequence` (per webhook, gap-free from 1) " +
  "and `data.data_as_of`."

const SUBSCRIBE_DOC =
  "Nothing is sent on subscribing; the first evaluation fires once for every ticker matching then. " +
  "`channel` is inferred when omitted: `webhook` with `target_url`, `chat` with `chat_url`, else `in_app`; " +
  "`mobile_push` needs a `device_id` from POST /v2/devices/register; `slack` answers 501. " +
  "`cadence`: `realtime` (default; `1m` is a deprecated alias), `hourly` (first refresh of each UTC hour), " +
  "`exchange_open` (first refresh at or after 09:30 America/New_York on NYSE trading days); `5m`/`15m` are refused. " +
  "`fields`: extra columns for each fired row, validated now. Custom signals are expanded into the stored `q` now " +
  "(later edits of the signal do not change the webhook). `signing_secret` (webhook channel) is shown only in this " +
  "response. Paid plans only (Free: 403 `webhook_tier_required`); Hobby 10, Pro 100 active webhooks " +
  "(403 `webhook_limit_reached`). " +
  FIRING_DOC

export class WebhooksApi extends HttpApiGroup.make("webhooks")
  // what every endpoint of the group can answer
  .pipe(groupErrors(BadRequest, WebhookTierRequired, ServiceUnavailable))
  .add(
    HttpApiEndpoint.post("subscribeTicker", "/v2/tickers/:ticker/subscribe")
      .annotate(OpenApi.Summary, "Subscribe to a ticker condition")
      .setPath(Schema.Struct({ ticker: Schema.String }))
      .setPayload(TickerSubscribe)
      .addSuccess(WebhookDoc)
      .pipe(withErrors(...COMPILE_ERRORS, WebhookLimitReached, NotFound, ChannelNotImplemented))
      .annotate(
        OpenApi.Description,
        `Subscribes a condition on one ticker: the webhook's q is \`ticker = '<TICKER>' AND (<condition>)\`; default name \`<TICKER>: <condition>\`. ${SUBSCRIBE_DOC}`
      )
  )
  .add(
    HttpApiEndpoint.post("subscribeSignal", "/v2/signals/:signal/subscribe")
      .annotate(OpenApi.Summary, "Subscribe to a signal")
      .setPath(Schema.Struct({ signal: Schema.String }))
      .setPayload(SignalSubscribe)
      .addSuccess(WebhookDoc)
      .pipe(
        withErrors(
          ...COMPILE_ERRORS,
          WebhookLimitReached,
          NotFound,
          UnknownSignal,
          UniverseNotFound,
          ChannelNotImplemented
        )
      )
      .annotate(
        OpenApi.Description,
        `Subscribes a signal: a boolean (or custom) signal gives q \`<signal> = true\` (condition ignored); a numeric one needs \`condition\` \`<op><value>\` (op one of > >= = != < <=) and gives \`<signal> <op> <value>\`. Optional \`ticker\` restricts to one ticker, \`universe\` to a universe. Unknown signal: 404 \`unknown_signal\`. ${SUBSCRIBE_DOC}`
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v2/webhooks")
      .annotate(OpenApi.Summary, "List webhooks")
      .setUrlParams(Page)
      .addSuccess(WebhookList)
      .annotate(OpenApi.Description, "The account's webhooks, newest first; `limit` 1–100 (default 50), `cursor`.")
  )
  .add(
    HttpApiEndpoint.post("create", "/v2/webhooks")
      .annotate(OpenApi.Summary, "Create a webhook")
      .setPayload(CreateWebhook)
      .addSuccess(WebhookDoc, { status: 201 })
      .pipe(withErrors(...COMPILE_ERRORS, WebhookLimitReached, NotFound, UniverseNotFound, ChannelNotImplemented))
      .annotate(DirectRead, "webhookCreate")
      .annotate(
        OpenApi.Description,
        `Creates a webhook from a raw \`q\` or a saved rule (\`rule_id\`: its q and universe; an explicit \`universe\` overrides), with \`subscription_origin.type\` \`query\`. ${SUBSCRIBE_DOC}`
      )
  )
  .add(
    HttpApiEndpoint.post("createBatch", "/v2/webhooks/batch")
      .annotate(OpenApi.Summary, "Create webhooks in bulk")
      .setPayload(StrictParams({ webhooks: Schema.Array(CreateWebhook) }))
      .addSuccess(Schema.Struct({ webhooks: Schema.Array(WebhookDoc) }))
      .pipe(withErrors(WebhookLimitReached))
      .annotate(
        OpenApi.Description,
        "Creates 1 to 500 webhooks, each a `POST /v2/webhooks` body, **all or nothing** in one transaction: 200 `{webhooks: [records]}` in the order given (with each webhook-channel webhook's `signing_secret`, shown only here). The first bad item is a 400 `bad_request` whose message names its index, its error code and message (`webhooks[3]: invalid_query: …`); nothing is created. The plan's cap is checked for the whole batch (403 `webhook_limit_reached`). `Idempotency-Key` is honoured as for every POST."
      )
  )
  .add(
    HttpApiEndpoint.post("dryRun", "/v2/webhooks/dry-run")
      .annotate(OpenApi.Summary, "Dry-run a subscription over history")
      .setPayload(DryRunRequest)
      .addSuccess(DryRunDoc)
      .pipe(withErrors(...DRY_RUN_ERRORS, UnknownSignal))
      .annotate(
        OpenApi.Description,
        "Replays a subscription over a past window with the evaluator's own state machine: what it would have sent. " +
          "The subscription in any of its forms: `q` or `rule_id` (as `POST /v2/webhooks`), `ticker` with `condition` " +
          "(as the ticker subscribe), or `signal` with its `condition` and optional `ticker` (as the signal subscribe); " +
          "`universe`, `cadence` and the firing options as on a create, validated alike. " +
          DRY_RUN_DOC
      )
  )
  .add(
    HttpApiEndpoint.post("dryRunWebhook", "/v2/webhooks/:id/dry-run")
      .annotate(OpenApi.Summary, "Dry-run a webhook over history")
      .setPath(IdPath)
      .setPayload(StrictParams(DryRunWindow))
      .addSuccess(DryRunDoc)
      .pipe(withErrors(...DRY_RUN_ERRORS))
      .annotate(
        OpenApi.Description,
        `Replays the webhook as stored (its frozen \`q\` and \`clear_q\`, universe, cadence and firing options) over a past window. ${DRY_RUN_DOC}`
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v2/webhooks/:id")
      .annotate(OpenApi.Summary, "Get a webhook")
      .setPath(IdPath)
      .addSuccess(WebhookDoc)
      .pipe(withErrors(NotFound))
      .annotate(OpenApi.Description, "One webhook (never its secrets). 400 for an id not of the form `wh_…`.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v2/webhooks/:id")
      .annotate(OpenApi.Summary, "Update a webhook")
      .setPath(IdPath)
      .setPayload(UpdateWebhook)
      .addSuccess(WebhookDoc)
      .pipe(withErrors(...COMPILE_ERRORS, NotFound))
      .annotate(
        OpenApi.Description,
        "Changes `name`, `target_url` (webhook channel), `chat_url` (chat channel), `cadence`, `fields`, or the firing options (`fire_on`, `pending_for`, `clear_q`, `cooldown`, `repeat_interval`: null clears `clear_q` and `repeat_interval`; validated as on creation). `q` cannot change: create a new webhook. Pending retries go to the new target; tickers inside stay inside under new options."
      )
  )
  .add(
    HttpApiEndpoint.post("rotateSecret", "/v2/webhooks/:id/rotate-secret")
      .annotate(OpenApi.Summary, "Rotate a webhook's signing secret")
      .setPath(IdPath)
      .addSuccess(
        Schema.Struct({
          webhook: WebhookDoc,
          signing_secret: Schema.String,
          previous_secret_expires_at: Schema.Int
        })
      )
      .pipe(withErrors(NotFound))
      .annotate(
        OpenApi.Description,
        "Issues a new signing secret (shown only here). For 24 hours every delivery carries two signatures in `webhook-signature`, one per secret, so receivers can switch without losing events. Webhook channel only."
      )
  )
  .add(
    HttpApiEndpoint.post("enable", "/v2/webhooks/:id/enable")
      .annotate(OpenApi.Summary, "Re-enable a webhook")
      .setPath(IdPath)
      .addSuccess(WebhookDoc)
      .pipe(withErrors(WebhookLimitReached, NotFound))
      .annotate(
        OpenApi.Description,
        "Re-enables a disabled webhook: clears `last_match_set` and `last_evaluated_at`, so the next evaluation fires once with every current match. An active webhook is returned unchanged. 403 `webhook_limit_reached` when the plan's cap is reached."
      )
  )
  .add(
    HttpApiEndpoint.post("disable", "/v2/webhooks/:id/disable")
      .annotate(OpenApi.Summary, "Disable a webhook")
      .setPath(IdPath)
      .addSuccess(WebhookDoc)
      .pipe(withErrors(NotFound))
      .annotate(OpenApi.Description, "Stops evaluating the webhook; its configuration and queued deliveries are kept.")
  )
  .add(
    HttpApiEndpoint.del("delete", "/v2/webhooks/:id")
      .annotate(OpenApi.Summary, "Delete a webhook")
      .setPath(IdPath)
      .addSuccess(Schema.Struct({ ok: Schema.Literal(true) }))
      .pipe(withErrors(NotFound))
      .annotate(OpenApi.Description, "Deletes the webhook with its delivery records and pending deliveries.")
  )
  .add(
    HttpApiEndpoint.post("test", "/v2/webhooks/:id/test")
      .annotate(OpenApi.Summary, "Send a test delivery")
      .setPath(IdPath)
      .addSuccess(Schema.Struct({ as_of: Schema.String, delivery: DeliveryDoc }), { status: 202 })
      .pipe(withErrors(InvalidQuery, CompileFailed, RecursionDepthExceeded, NotFound))
      .annotate(
        OpenApi.Description,
        "Queues a test ping at once: a real-shape `webhook.fired` with `test: true` whose rows are up to 100 tickers matching the webhook's q now. Sent once, never retried, never disables the webhook; it appears in the deliveries list."
      )
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/v2/webhooks/:id/deliveries")
      .annotate(OpenApi.Summary, "List a webhook's deliveries")
      .setPath(IdPath)
      .setUrlParams(
        StrictParams({
          status: Schema.optional(Schema.String),
          limit: Schema.optional(IntParam),
          cursor: Schema.optional(Schema.String)
        })
      )
      .addSuccess(DeliveryList)
      .pipe(withErrors(NotFound))
      .annotate(
        OpenApi.Description,
        "Delivery records, newest first; `status` (pending, delivered, permanent_failure), `limit` 1–100 (default 50), `cursor`. `target_url` is the URL for the webhook channel and `chat`, `in_app` or `push:<device_id>` otherwise (never a secret)."
      )
  )
  .add(
    HttpApiEndpoint.get("explain", "/v2/webhooks/:id/explain")
      .annotate(OpenApi.Summary, "Explain a webhook for one ticker")
      .setPath(IdPath)
      .setUrlParams(StrictParams({ ticker: Schema.String }))
      .addSuccess(
        Schema.Struct({
          as_of: Schema.String,
          webhook_id: Schema.String,
          ticker: Schema.String,
          evaluated_at: Schema.NullOr(Schema.String),
          data_as_of: Schema.String,
          state: Schema.Literal("idle", "pending", "inside", "cooling"),
          reason: Schema.String,
          tree: ExplainTree
        })
      )
      .pipe(withErrors(NotFound, InvalidQuery, CompileFailed, RecursionDepthExceeded))
      .annotate(
        OpenApi.Description,
        'Where `ticker` stands on this webhook after its last evaluation: `state` (`idle`, `pending`, `inside`, `cooling`), a `reason` a person reads ("rsi_14 = 42.13 is not < 30"; "matching since …, pending until …"; "fired at …, cooling until …"; "snoozed until …"; "outside the universe top_100"), and `tree`: the webhook\'s frozen `q` evaluated at the ticker on the market data evaluated (`data_as_of`), each AND/OR/NOT node and comparison with its operands\' values and result.'
      )
  )
  .add(
    HttpApiEndpoint.post("snooze", "/v2/webhooks/:id/snooze")
      .annotate(OpenApi.Summary, "Snooze a webhook")
      .setPath(IdPath)
      .setPayload(StrictParams({ until: Schema.Union(Schema.String, Schema.Number) }))
      .addSuccess(WebhookDoc)
      .pipe(withErrors(NotFound))
      .annotate(
        OpenApi.Description,
        "Snoozes the webhook until `until` (ISO 8601, or epoch seconds; in the future and at most 30 days ahead): evaluation goes on and its events are written to the feed (`GET /v2/webhooks/{id}/events`) with `suppressed: true`, but not delivered; nothing is re-sent when the snooze ends. The record shows `snoozed_until` (epoch seconds). Snoozing again replaces the time."
      )
  )
  .add(
    HttpApiEndpoint.del("unsnooze", "/v2/webhooks/:id/snooze")
      .annotate(OpenApi.Summary, "End a webhook's snooze")
      .setPath(IdPath)
      .addSuccess(WebhookDoc)
      .pipe(withErrors(NotFound))
      .annotate(
        OpenApi.Description,
        "Ends the snooze now (`snoozed_until` null): events from the next evaluation on are delivered."
      )
  )
  .add(
    HttpApiEndpoint.get("events", "/v2/webhooks/:id/events")
      .annotate(OpenApi.Summary, "Read a webhook's event feed")
      .setPath(IdPath)
      .setUrlParams(StrictParams({ after: Schema.optional(IntParam), limit: Schema.optional(IntParam) }))
      .addSuccess(WebhookEventList)
      .pipe(withErrors(NotFound))
      .annotate(
        OpenApi.Description,
        "Every `webhook.fired` and `webhook.cleared` of the webhook after sequence `after` (default 0), in ascending sequence, `limit` 1–100 (default 50): `sequence`, `type`, `created_at` (epoch seconds), `data_as_of`, `suppressed` (written while snoozed, not delivered) and `body`, exactly what the receiver was sent (or would have been). Kept for `EVENT_RETENTION` (30 days by default): `oldest_sequence` is the oldest still kept, so a gap between your last sequence and it means events aged out. `next_cursor` is the sequence to pass as `after` when more may follow (null: you are up to date). Works for every channel: a receiver that was down, disabled or snoozed catches up from here without asking for redeliveries."
      )
  )
  .add(
    HttpApiEndpoint.post("retryDelivery", "/v2/webhooks/:id/deliveries/:delivery_id/retry")
      .annotate(OpenApi.Summary, "Retry a failed delivery")
      .setPath(Schema.Struct({ id: Schema.String, delivery_id: Schema.String }))
      .addSuccess(DeliveryDoc)
      .pipe(withErrors(NotFound, DeliveryNotFailed))
      .annotate(
        OpenApi.Description,
        "Sends a `permanent_failure` delivery again now, with the same `webhook-id` and a fresh retry schedule. 409 `delivery_not_failed` for a delivery that is pending or delivered."
      )
  )
  .middleware(Authentication)
  .annotate(
    OpenApi.Description,
    "Webhooks and subscriptions: ticker and signal subscriptions, webhook management and deliveries (paid plans)."
  ) {}
