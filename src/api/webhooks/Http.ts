/**
 * Webhook subscriptions over HTTP: the subscribe endpoints, the webhook
 * resource and its deliveries, devices for mobile push and the in-app inbox.
 * Validation happens here (condition compiled for the account and frozen,
 * target safety, channel inference, plan gates); the store enforces the cap
 * atomically; the `Alerts` evaluator is told of every change at once.
 */
import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect, Either } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { PLAN_LIMITS, type Plan } from "../../accounts/plans.js"
import { Alerts, displayTarget, newId } from "../../alerts/Alerts.js"
import { nextInstant, parseCadence } from "../../alerts/cadence.js"
import { firedEvent } from "../../alerts/payload.js"
import { AppConfig } from "../../config/AppConfig.js"
import { generateSigningSecret, newEventId } from "../../delivery/signing.js"
import { validateTargetUrl } from "../../delivery/targetSafety.js"
import { DeliveryWake } from "../../delivery/wake.js"
import { columnByName } from "../../market/catalog.js"
import { Market } from "../../market/Market.js"
import { isWellFormedSymbol, Tickers } from "../../market/tickers/index.js"
import { compileQuery } from "../../query/index.js"
import { Deliveries, type DeliveryRecord, type DeliveryStatus } from "../../store/deliveries.js"
import { Rules } from "../../store/rules.js"
import {
  type Cadence,
  type Channel,
  effectiveLastEvaluated,
  type Origin,
  type WebhookRecord,
  Webhooks
} from "../../store/webhooks.js"
import { VigilApi } from "../Api.js"
import { accountSignals, compileContext, compileFor, queryErrorToBadRequest } from "../common/compile.js"
import { liveSnapshot } from "../common/market.js"
import { pageSize } from "../common/params.js"
import { Cursors, readCursor } from "../cursor.js"
import { BadRequest, Conflict, Forbidden, NotFound, NotImplemented, orUnavailable } from "../errors.js"
import { CurrentKey } from "../middleware/Authentication.js"
import { MAX_Q_LENGTH, validateFields } from "../scan/params.js"
import { parseCondition } from "../signals/matching.js"
import { lookupUniverse } from "../universes/resolve.js"
import { MAX_WEBHOOK_NAME } from "./Api.js"

const WEBHOOK_ID = /^wh_[A-Za-z0-9_-]{1,64}$/
const DELIVERY_ID = /^dlv_[A-Za-z0-9_-]{1,64}$/
/** How long the previous signing secret keeps signing after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000
const PAID: ReadonlyArray<Plan> = ["hobby", "pro", "scale", "enterprise"]

const notFound = (what: string, id: string) => new NotFound({ message: `${what} ${JSON.stringify(id)} not found` })

const requirePaid = (key: AuthenticatedKey) =>
  PAID.includes(key.account.plan)
    ? Effect.void
    : Effect.fail(
        new Forbidden({
          code: "webhook_tier_required",
          message: `webhooks need a paid plan (hobby, pro, scale or enterprise); this account is on ${key.account.plan}`
        })
      )

const checkId = (id: string) =>
  WEBHOOK_ID.test(id)
    ? Effect.void
    : Effect.fail(new BadRequest({ message: `invalid webhook id ${JSON.stringify(id)}: ids look like wh_…` }))

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000))

const toDoc = (w: WebhookRecord, ticks: ReadonlyMap<Cadence, number>, refreshMs: number, now: number) => {
  const last = effectiveLastEvaluated(w, ticks)
  return {
    id: w.id,
    name: w.name,
    q: w.q,
    universe_id: w.universeId,
    cadence: w.cadence,
    target_url: w.channel === "webhook" ? w.targetUrl : null,
    channel: w.channel,
    delivery: w.channel,
    channel_config_present: w.chatUrl !== null,
    device_id: w.deviceId,
    fields: [...w.fields],
    status: w.status,
    disabled_reason: w.disabledReason,
    source: "v2" as const,
    subscription_origin: { type: w.origin.type, ref: w.origin.ref, condition: w.origin.condition },
    created_at: w.createdAt,
    updated_at: w.updatedAt,
    last_match_set: [...w.lastMatchSet],
    last_evaluated_at: seconds(last),
    next_eval_at:
      w.status === "active" ? seconds(nextInstant(w.cadence, Math.max(last ?? now, now - 1), refreshMs)) : null,
    last_fired: w.lastFired
  }
}

const deliveryDoc = (d: DeliveryRecord) => ({
  id: d.id,
  webhook_id: d.webhookId,
  event: d.event,
  event_id: d.eventId,
  target_url: d.targetUrl,
  test: d.test,
  attempt: d.attempt,
  status: d.status,
  next_attempt_at: d.status === "pending" ? Math.floor(d.dueAt / 1000) : null,
  last_status_code: d.lastStatusCode,
  last_error: d.lastError,
  created_at: d.createdAt,
  delivered_at: d.deliveredAt
})

/** Renders records with the evaluator's tick times `ticks`. */
const renderWith = (ticks: ReadonlyMap<Cadence, number>) =>
  Effect.gen(function* () {
    const market = yield* Market
    const now = yield* Clock.currentTimeMillis
    return (w: WebhookRecord) => toDoc(w, ticks, market.refreshInterval, now)
  })

/** Renders records with the evaluator's tick times. */
const render = Effect.flatMap(
  Effect.flatMap(Webhooks, (w) => orUnavailable(w.ticks)),
  renderWith
)

interface DeliveryInput {
  readonly target_url?: string | null | undefined
  readonly channel?: string | undefined
  readonly chat_url?: string | null | undefined
  readonly device_id?: string | null | undefined
  readonly cadence?: string | undefined
  readonly name?: string | undefined
  readonly fields?: string | ReadonlyArray<string> | undefined
}

const CHANNELS: ReadonlyArray<Channel> = ["webhook", "chat", "in_app", "mobile_push"]

const checkUrl = (parameter: string, raw: string, allowInsecure: boolean) => {
  const checked = validateTargetUrl(raw, { allowInsecure })
  return Either.isLeft(checked)
    ? Effect.fail(new BadRequest({ message: checked.left.reason.replace(/^target_url/, parameter) }))
    : Effect.succeed(checked.right.toString())
}

/** Channel, target, cadence, name and fields of a new webhook, validated. */
const deliverySettings = (key: AuthenticatedKey, input: DeliveryInput, defaultName: string) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const rawChannel = input.channel?.trim().toLowerCase()
    if (rawChannel === "slack") {
      return yield* new NotImplemented({
        code: "channel_not_implemented",
        message: "channel slack is reserved and not available: use channel chat with a chat_url"
      })
    }
    if (rawChannel !== undefined && !CHANNELS.includes(rawChannel as Channel)) {
      return yield* new BadRequest({
        message: `channel must be one of webhook, chat, in_app, mobile_push (got ${JSON.stringify(input.channel)})`
      })
    }
    const targetGiven = input.target_url !== undefined && input.target_url !== null && input.target_url !== ""
    const chatGiven = input.chat_url !== undefined && input.chat_url !== null && input.chat_url !== ""
    const channel: Channel =
      (rawChannel as Channel | undefined) ?? (targetGiven ? "webhook" : chatGiven ? "chat" : "in_app")
    let targetUrl: string | null = null
    let chatUrl: string | null = null
    let deviceId: string | null = null
    switch (channel) {
      case "webhook":
        if (!targetGiven) return yield* new BadRequest({ message: "target_url is required for channel webhook" })
        targetUrl = yield* checkUrl("target_url", input.target_url!, config.webhookAllowInsecureTargets)
        break
      case "chat":
        if (!chatGiven) return yield* new BadRequest({ message: "chat_url is required for channel chat" })
        chatUrl = yield* checkUrl("chat_url", input.chat_url!, config.webhookAllowInsecureTargets)
        break
      case "mobile_push": {
        const id = input.device_id ?? null
        if (id === null || id === "") {
          return yield* new BadRequest({
            message: "device_id is required for channel mobile_push: register the device with POST /v2/devices/register"
          })
        }
        const device = yield* orUnavailable((yield* Deliveries).device(key.account.id, id))
        if (device === undefined) {
          return yield* new BadRequest({
            message: `device_id ${JSON.stringify(id)} is not registered to this account (POST /v2/devices/register)`
          })
        }
        deviceId = device.id
        break
      }
      case "in_app":
        break
    }
    if (channel !== "webhook" && targetGiven) {
      return yield* new BadRequest({ message: `target_url applies to channel webhook only (channel is ${channel})` })
    }
    if (channel !== "chat" && chatGiven) {
      return yield* new BadRequest({ message: `chat_url applies to channel chat only (channel is ${channel})` })
    }
    const cadence = input.cadence === undefined ? "realtime" : parseCadence(input.cadence)
    if (cadence === undefined) {
      return yield* new BadRequest({
        message: `cadence must be realtime, hourly or exchange_open (1m is an alias of realtime; 5m and 15m are no longer offered); got ${JSON.stringify(input.cadence)}`
      })
    }
    const name = (input.name ?? defaultName).trim()
    if (input.name !== undefined && name === "") return yield* new BadRequest({ message: "name must not be blank" })
    if (input.name !== undefined && input.name.length > MAX_WEBHOOK_NAME) {
      return yield* new BadRequest({
        message: `name must be at most ${MAX_WEBHOOK_NAME} characters (got ${input.name.length})`
      })
    }
    const fields = yield* validateFields(input.fields ?? [])
    return {
      channel,
      targetUrl,
      chatUrl,
      deviceId,
      cadence,
      name: name.length > MAX_WEBHOOK_NAME ? `${name.slice(0, MAX_WEBHOOK_NAME - 1)}…` : name,
      fields
    }
  })

/** Compiles a condition for the account and freezes it (consuming custom signals needs Pro: `compileFor`). */
const freeze = (key: AuthenticatedKey, text: string, parameter: string) =>
  Effect.gen(function* () {
    if (text.length > MAX_Q_LENGTH) {
      return yield* new BadRequest({
        code: "invalid_query",
        message: `${parameter} is ${text.length} characters; at most ${MAX_Q_LENGTH} are allowed`
      })
    }
    const compiled = yield* compileFor(text, yield* Tickers, key.account, parameter)
    return compiled.text
  })

const create = (
  key: AuthenticatedKey,
  q: string,
  universeId: string | null,
  origin: Origin,
  settings: Effect.Effect.Success<ReturnType<typeof deliverySettings>>,
  /** the subscribe endpoints answer with `test_url` too */
  withTestUrl = true
) =>
  Effect.gen(function* () {
    const cap = PLAN_LIMITS[key.account.plan].webhooks
    const signingSecret = settings.channel === "webhook" ? generateSigningSecret() : null
    const outcome = yield* orUnavailable(
      (yield* Webhooks).create(
        key.account.id,
        newId("wh"),
        {
          name: settings.name,
          q,
          universeId,
          cadence: settings.cadence,
          channel: settings.channel,
          targetUrl: settings.targetUrl,
          chatUrl: settings.chatUrl,
          deviceId: settings.deviceId,
          signingSecret,
          fields: settings.fields,
          origin
        },
        cap
      )
    )
    if (outcome._tag === "LimitReached") {
      return yield* new Forbidden({
        code: "webhook_limit_reached",
        message: `this account has ${outcome.active} active webhooks, the most its ${key.account.plan} plan allows; disable or delete one, or upgrade`
      })
    }
    yield* (yield* Alerts).changed(outcome.record)
    // the ticks read by the create's transaction: no statement of its own
    const doc = (yield* renderWith(outcome.ticks))(outcome.record)
    return {
      ...doc,
      ...(signingSecret === null ? {} : { signing_secret: signingSecret }),
      ...(withTestUrl ? { test_url: `/v2/webhooks/${outcome.record.id}/test` } : {})
    }
  })

const checkUniverse = (accountId: string, universe: string | null | undefined) =>
  Effect.gen(function* () {
    if (universe === undefined || universe === null) return null
    return (yield* lookupUniverse(accountId, universe)).id
  })

const owned = (key: AuthenticatedKey, id: string) =>
  Effect.gen(function* () {
    yield* requirePaid(key)
    yield* checkId(id)
    const w = yield* orUnavailable((yield* Webhooks).get(key.account.id, id))
    if (w === undefined) return yield* notFound("webhook", id)
    return w
  })

/** A `[created_at, id]` keyset position (deliveries, notifications). */
const timeAndId = (p: unknown): readonly [number, string] | undefined =>
  Array.isArray(p) && p.length === 2 && typeof p[0] === "number" && typeof p[1] === "string" ? [p[0], p[1]] : undefined

const numberPosition = (p: unknown): number | undefined => (typeof p === "number" ? p : undefined)

/** A tracked ticker's metadata: 400 for a malformed symbol, 404 for an untracked one. */
const trackedTicker = (raw: string) =>
  Effect.gen(function* () {
    if (!isWellFormedSymbol(raw)) return yield* new BadRequest({ message: `invalid ticker ${JSON.stringify(raw)}` })
    const meta = (yield* Tickers).lookup(raw)
    if (meta === undefined) return yield* notFound("ticker", raw.toUpperCase())
    return meta
  })

/**
 * The frozen q of a condition restricted to one ticker: `ticker = '<T>' AND (<condition>)`, the
 * condition compiled (and frozen) on its own, so it stays one parenthesized operand whatever its
 * precedence and cannot close the parentheses to widen the subscription.
 */
const freezeForTicker = (key: AuthenticatedKey, ticker: string, condition: string) =>
  Effect.map(
    freeze(key, condition, "condition"),
    (frozen) => `ticker = '${ticker.replaceAll("'", "''")}' AND (${frozen})`
  )

export const WebhooksHttpLive = HttpApiBuilder.group(VigilApi, "webhooks", (handlers) =>
  handlers
    .handle("subscribeTicker", ({ path, payload }) =>
      Effect.gen(function* () {
        const key = yield* CurrentKey
        yield* requirePaid(key)
        const meta = yield* trackedTicker(path.ticker)
        const condition = payload.condition?.trim() ?? ""
        if (condition === "") return yield* new BadRequest({ message: "condition is required" })
        const q = yield* freezeForTicker(key, meta.ticker, condition)
        const settings = yield* deliverySettings(key, payload, `${meta.ticker}: ${condition}`)
        return yield* create(key, q, null, { type: "ticker", ref: meta.ticker, condition }, settings)
      })
    )
    .handle("subscribeSignal", ({ path, payload }) =>
      Effect.gen(function* () {
        const key = yield* CurrentKey
        yield* requirePaid(key)
        const name = path.signal.trim().toLowerCase()
        const column = columnByName.get(name)
        const signals = yield* accountSignals(key.account.id)
        let expr: string
        let defaultName: string
        let condition: string
        if (column?.signal && column.type === "boolean") {
          expr = `${name} = true`
          defaultName = name
          condition = name
        } else if (column?.signal && column.type === "numeric") {
          if (payload.condition === undefined || payload.condition.trim() === "") {
            return yield* new BadRequest({
              message: `condition is required for the numeric signal ${name}: <op><value>, e.g. >70`
            })
          }
          const parsed = parseCondition(payload.condition)
          if (parsed === undefined) {
            return yield* new BadRequest({
              message: `condition must be <op><value> with op one of > >= = != < <= (got ${JSON.stringify(payload.condition)})`
            })
          }
          expr = `${name} ${parsed.op} ${parsed.value}`
          defaultName = expr
          condition = parsed.text
        } else if (signals.get(name) !== undefined) {
          expr = `${name} = true`
          defaultName = name
          condition = name
        } else {
          return yield* new NotFound({
            code: "unknown_signal",
            message: `${JSON.stringify(path.signal)} is neither a built-in signal nor one of this account's custom signals (GET /v2/signals lists them)`
          })
        }
        const q =
          payload.ticker === undefined || payload.ticker === null
            ? yield* freeze(key, expr, "condition")
            : yield* freezeForTicker(key, (yield* trackedTicker(payload.ticker)).ticker, expr)
        const universe = yield* checkUniverse(key.account.id, payload.universe)
        const settings = yield* deliverySettings(key, payload, defaultName)
        return yield* create(key, q, universe, { type: "signal", ref: name, condition }, settings)
      })
    )
    .handle("create", ({ payload }) =>
      Effect.gen(function* () {
        const key = yield* CurrentKey
        yield* requirePaid(key)
        if ((payload.q === undefined) === (payload.rule_id === undefined)) {
          return yield* new BadRequest({ message: "give exactly one of q (a condition) or rule_id (a saved rule)" })
        }
        let text: string
        let universe: string | null | undefined = payload.universe
        let ref: string | null = null
        if (payload.rule_id !== undefined) {
          const rule = yield* orUnavailable((yield* Rules).get(key.account.id, payload.rule_id))
          if (rule === undefined) return yield* notFound("rule", payload.rule_id)
          text = rule.q
          if (universe === undefined) universe = rule.universe
          ref = rule.id
        } else {
          text = payload.q!
          if (text.trim() === "") return yield* new BadRequest({ message: "q must not be empty" })
        }
        const q = yield* freeze(key, text, "q")
        const universeId = yield* checkUniverse(key.account.id, universe)
        const settings = yield* deliverySettings(key, payload, text)
        return yield* create(key, q, universeId, { type: "query", ref, condition: text }, settings, false)
      })
    )
    .handle("list", ({ urlParams }) =>
      Effect.gen(function* () {
        const key = yield* CurrentKey
        yield* requirePaid(key)
        const limit = yield* pageSize(urlParams.limit, 100, 50)
        const codec = yield* orUnavailable((yield* Cursors).codec)
        const binding = { endpoint: "webhooks", account: key.account.id, limit }
        const after = yield* readCursor(codec, binding, urlParams.cursor, numberPosition)
        const rows = yield* orUnavailable((yield* Webhooks).list(key.account.id, limit + 1, after))
        const page = rows.slice(0, limit)
        const doc = yield* render
        const last = page[page.length - 1]
        return {
          as_of: new Date(yield* Clock.currentTimeMillis).toISOString(),
          count: page.length,
          next_cursor: rows.length > limit && last !== undefined ? codec.encode(binding, last.seq) : null,
          webhooks: page.map(doc)
        }
      })
    )
    .handle("get", ({ path }) =>
      Effect.gen(function* () {
        const w = yield* owned(yield* CurrentKey, path.id)
        return (yield* render)(w)
      })
    )
    .handle("update", ({ path, payload }) =>
      Effect.gen(function* () {
        const key = yield* CurrentKey
        const w = yield* owned(key, path.id)
        const config = yield* AppConfig
        if (payload.name !== undefined) {
          if (payload.name.trim() === "") return yield* new BadRequest({ message: "name must not be blank" })
          if (payload.name.length > MAX_WEBHOOK_NAME) {
            return yield* new BadRequest({ message: `name must be at most ${MAX_WEBHOOK_NAME} characters` })
          }
        }
        let targetUrl: string | undefined
        if (payload.target_url !== undefined) {
          if (w.channel !== "webhook") {
            return yield* new BadRequest({
              message: `target_url applies to channel webhook only (channel is ${w.channel})`
            })
          }
          if (payload.target_url === null)
            return yield* new BadRequest({ message: "target_url cannot be removed from a webhook-channel webhook" })
          targetUrl = yield* checkUrl("target_url", payload.target_url, config.webhookAllowInsecureTargets)
        }
        let chatUrl: string | undefined
        if (payload.chat_url !== undefined) {
          if (w.channel !== "chat") {
            return yield* new BadRequest({ message: `chat_url applies to channel chat only (channel is ${w.channel})` })
          }
          if (payload.chat_url === null)
            return yield* new BadRequest({ message: "chat_url cannot be removed from a chat webhook" })
          chatUrl = yield* checkUrl("chat_url", payload.chat_url, config.webhookAllowInsecureTargets)
        }
        let cadence: Cadence | undefined
        if (payload.cadence !== undefined) {
          cadence = parseCadence(payload.cadence)
          if (cadence === undefined) {
            return yield* new BadRequest({
              message: `cadence must be realtime, hourly or exchange_open (got ${JSON.stringify(payload.cadence)})`
            })
          }
        }
        const fields = payload.fields === undefined ? undefined : yield* validateFields(payload.fields)
        const updated = yield* orUnavailable(
          (yield* Webhooks).update(key.account.id, w.id, {
            ...(payload.name !== undefined ? { name: payload.name.trim() } : {}),
            ...(targetUrl !== undefined ? { targetUrl } : {}),
            ...(chatUrl !== undefined ? { chatUrl } : {}),
            ...(cadence !== undefined ? { cadence } : {}),
            ...(fields !== undefined ? { fields } : {})
          })
        )
        if (updated === undefined) return yield* notFound("webhook", path.id)
        yield* (yield* Alerts).changed(updated)
        return (yield* render)(updated)
      })
    )
    .handle("rotateSecret", ({ path }) =>
      Effect.gen(function* () {
        const key = yield* CurrentKey
        const w = yield* owned(key, path.id)
        if (w.channel !== "webhook") {
          return yield* new BadRequest({
            message: `only webhook-channel webhooks are signed (channel is ${w.channel})`
          })
        }
        const secret = generateSigningSecret()
        const until = (yield* Clock.currentTimeMillis) + SECRET_OVERLAP_MS
        const updated = yield* orUnavailable((yield* Webhooks).rotateSecret(key.account.id, w.id, secret, until))
        if (updated === undefined) return yield* notFound("webhook", path.id)
        return {
          webhook: (yield* render)(updated),
          signing_secret: secret,
          previous_secret_expires_at: Math.floor(until / 1000)
        }
      })
    )
    .handle("enable", ({ path }) =>
      Effect.gen(function* () {
        const key = yield* CurrentKey
        yield* owned(key, path.id)
        const outcome = yield* orUnavailable(
          (yield* Webhooks).enable(key.account.id, path.id, PLAN_LIMITS[key.account.plan].webhooks)
        )
        if (outcome._tag === "NotFound") return yield* notFound("webhook", path.id)
        if (outcome._tag === "LimitReached") {
          return yield* new Forbidden({
            code: "webhook_limit_reached",
            message: `this account has ${outcome.active} active webhooks, the most its ${key.account.plan} plan allows; disable or delete one, or upgrade`
          })
        }
        yield* (yield* Alerts).changed(outcome.record)
        return (yield* render)(outcome.record)
      })
    )
    .handle("disable", ({ path }) =>
      Effect.gen(function* () {
        const key = yield* CurrentKey
        const w = yield* owned(key, path.id)
        if (w.status === "disabled") return (yield* render)(w)
        const ticks = yield* orUnavailable((yield* Webhooks).ticks)
        const updated = yield* orUnavailable(
          (yield* Webhooks).disable(key.account.id, w.id, "user", effectiveLastEvaluated(w, ticks))
        )
        const result = updated ?? w
        yield* (yield* Alerts).changed(result)
        return (yield* render)(result)
      })
    )
    .handle("delete", ({ path }) =>
      Effect.gen(function* () {
        const key = yield* CurrentKey
        const w = yield* owned(key, path.id)
        const removed = yield* orUnavailable((yield* Webhooks).remove(key.account.id, w.id))
        if (!removed) return yield* notFound("webhook", path.id)
        yield* (yield* Alerts).deleted(w.id)
        return { ok: true as const }
      })
    )
    .handle("test", ({ path }) =>
      Effect.gen(function* () {
        const key = yield* CurrentKey
        const w = yield* owned(key, path.id)
        const snapshot = yield* liveSnapshot
        const directory = yield* Tickers
        const compiled = compileQuery(w.q, compileContext(directory))
        if (Either.isLeft(compiled)) return yield* queryErrorToBadRequest(compiled.left, "q")
        const matches = compiled.right.matches(snapshot)
        const now = yield* Clock.currentTimeMillis
        const payload = JSON.stringify(
          firedEvent({
            webhookId: w.id,
            name: w.name,
            q: w.q,
            snapshot,
            added: matches,
            fields: w.fields,
            test: true,
            now
          })
        )
        const id = newId("dlv")
        const deliveries = yield* Deliveries
        yield* orUnavailable(
          deliveries.enqueue([
            {
              id,
              webhookId: w.id,
              accountId: w.accountId,
              eventId: newEventId(),
              channel: w.channel,
              targetUrl: displayTarget(w),
              test: true,
              payload,
              dueAt: now
            }
          ])
        )
        yield* (yield* DeliveryWake).wake
        const record = yield* orUnavailable(deliveries.get(key.account.id, w.id, id))
        if (record === undefined) return yield* notFound("delivery", id)
        return { as_of: new Date(snapshot.asOf).toISOString(), delivery: deliveryDoc(record) }
      })
    )
    .handle("deliveries", ({ path, urlParams }) =>
      Effect.gen(function* () {
        const key = yield* CurrentKey
        const w = yield* owned(key, path.id)
        const status = urlParams.status
        if (status !== undefined && !["pending", "delivered", "permanent_failure"].includes(status)) {
          return yield* new BadRequest({
            message: `status must be pending, delivered or permanent_failure (got ${JSON.stringify(status)})`
          })
        }
        const limit = yield* pageSize(urlParams.limit, 100, 50)
        const codec = yield* orUnavailable((yield* Cursors).codec)
        const binding = {
          endpoint: "deliveries",
          account: key.account.id,
          webhook: w.id,
          status: status ?? null,
          limit
        }
        const after = yield* readCursor(codec, binding, urlParams.cursor, timeAndId)
        const rows = yield* orUnavailable(
          (yield* Deliveries).list(key.account.id, w.id, status as DeliveryStatus | undefined, limit + 1, after)
        )
        const page = rows.slice(0, limit)
        const last = page[page.length - 1]
        return {
          as_of: new Date(yield* Clock.currentTimeMillis).toISOString(),
          count: page.length,
          next_cursor:
            rows.length > limit && last !== undefined ? codec.encode(binding, [last.createdAt, last.id]) : null,
          deliveries: page.map(deliveryDoc)
        }
      })
    )
    .handle("retryDelivery", ({ path }) =>
      Effect.gen(function* () {
        const key = yield* CurrentKey
        const w = yield* owned(key, path.id)
        if (!DELIVERY_ID.test(path.delivery_id)) {
          return yield* new BadRequest({
            message: `invalid delivery id ${JSON.stringify(path.delivery_id)}: ids look like dlv_…`
          })
        }
        const deliveries = yield* Deliveries
        const current = yield* orUnavailable(deliveries.get(key.account.id, w.id, path.delivery_id))
        if (current === undefined) return yield* notFound("delivery", path.delivery_id)
        if (current.status !== "permanent_failure") {
          return yield* new Conflict({
            code: "delivery_not_failed",
            message: `delivery ${current.id} is ${current.status}; only a permanent_failure can be sent again`
          })
        }
        const retried = yield* orUnavailable(deliveries.retry(key.account.id, w.id, current.id))
        if (retried === undefined) return yield* notFound("delivery", path.delivery_id)
        yield* (yield* DeliveryWake).wake
        return deliveryDoc(retried)
      })
    )
    .handle("registerDevice", ({ payload }) =>
      Effect.gen(function* () {
        const key = yield* CurrentKey
        yield* requirePaid(key)
        const platform = payload.platform.trim().toLowerCase()
        if (!["ios", "android", "web"].includes(platform)) {
          return yield* new BadRequest({
            message: `platform must be ios, android or web (got ${JSON.stringify(payload.platform)})`
          })
        }
        const token = payload.token.trim()
        if (token.length < 8 || token.length > 4096 || /\s/.test(token)) {
          return yield* new BadRequest({
            message: "token must be the device's push token: 8 to 4096 characters, no spaces"
          })
        }
        const name = payload.name?.trim() ?? null
        if (name !== null && name.length > MAX_WEBHOOK_NAME) {
          return yield* new BadRequest({ message: `name must be at most ${MAX_WEBHOOK_NAME} characters` })
        }
        const device = yield* orUnavailable(
          (yield* Deliveries).registerDevice(key.account.id, newId("dev"), platform, token, name === "" ? null : name)
        )
        return { device_id: device.id, platform: device.platform, name: device.name, created_at: device.createdAt }
      })
    )
    .handle("notifications", ({ urlParams }) =>
      Effect.gen(function* () {
        const key = yield* CurrentKey
        yield* requirePaid(key)
        const limit = yield* pageSize(urlParams.limit, 100, 50)
        const unread = urlParams.unread === "true"
        const codec = yield* orUnavailable((yield* Cursors).codec)
        const binding = { endpoint: "notifications", account: key.account.id, unread, limit }
        const after = yield* readCursor(codec, binding, urlParams.cursor, timeAndId)
        const store = yield* Deliveries
        const rows = yield* orUnavailable(store.notifications(key.account.id, unread, limit + 1, after))
        const unreadCount = yield* orUnavailable(store.unreadCount(key.account.id))
        const page = rows.slice(0, limit)
        const last = page[page.length - 1]
        return {
          as_of: new Date(yield* Clock.currentTimeMillis).toISOString(),
          count: page.length,
          unread_count: unreadCount,
          next_cursor:
            rows.length > limit && last !== undefined ? codec.encode(binding, [last.createdAt, last.id]) : null,
          notifications: page.map((n) => ({
            id: n.id,
            webhook_id: n.webhookId,
            title: n.title,
            body: n.body,
            event: JSON.parse(n.payload) as unknown,
            read: n.readAt !== null,
            read_at: n.readAt,
            created_at: n.createdAt
          }))
        }
      })
    )
    .handle("markRead", ({ payload }) =>
      Effect.gen(function* () {
        const key = yield* CurrentKey
        yield* requirePaid(key)
        if (payload.ids !== undefined && payload.ids.length > 1000) {
          return yield* new BadRequest({ message: "ids: at most 1000 per request" })
        }
        const marked = yield* orUnavailable((yield* Deliveries).markRead(key.account.id, payload.ids))
        return { as_of: new Date(yield* Clock.currentTimeMillis).toISOString(), marked }
      })
    )
)
