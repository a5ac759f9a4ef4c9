/**
 * Subscriptions: every rule of making and editing a webhook, for every
 * endpoint that does — ticker subscribe, signal subscribe, `POST` and `PATCH
 * /v2/webhooks`, enable, disable, delete, rotate, test, deliveries. The plan
 * gate (`webhooks` in `PLAN_LIMITS`) and cap, conditions compiled for the
 * account and frozen, delivery settings (settings.ts: one validator per field
 * for create and update), defaults, cadence; the store enforces the cap
 * atomically; the `Alerts` evaluator is told of every change at once. The
 * service every webhook endpoint calls: it also serves what lives in modules of
 * its own — access (access.ts), explain (explain.ts), the event feed and snooze
 * (feed.ts), dry-runs (dryRun.ts).
 */
import { Clock, Effect, Either, Option } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { PLAN_LIMITS } from "../../accounts/plans.js"
import { Alerts } from "../../alerts/Alerts.js"
import { displayTarget, newId } from "../../alerts/ids.js"
import { firedEvent } from "../../alerts/payload.js"
import { AppConfig } from "../../config/AppConfig.js"
import { generateSigningSecret, newEventId } from "../../delivery/signing.js"
import { DeliveryWake } from "../../delivery/wake.js"
import type { DeepHistory } from "../../market/DeepHistory.js"
import type { Market } from "../../market/Market.js"
import { Tickers } from "../../market/tickers/index.js"
import { type CompiledQuery, compileQuery } from "../../query/index.js"
import type { SignalResolver } from "../../signals/SignalResolver.js"
import { Deliveries, type DeliveryRecord, type DeliveryStatus } from "../../store/deliveries.js"
import type { Rules } from "../../store/rules.js"
import { isForeignKeyViolation } from "../../store/sqlErrors.js"
import type { Universes } from "../../store/universes.js"
import type { WebhookEvents } from "../../store/webhookEvents.js"
import {
  effectiveLastEvaluated,
  type FiringOptions,
  type Origin,
  type WebhookConfig,
  type WebhookRecord,
  Webhooks
} from "../../store/webhooks.js"
import { nowIso } from "../common/clock.js"
import { compileContext, queryRejection } from "../common/compile.js"
import { liveSnapshot } from "../common/market.js"
import { pageSize } from "../common/params.js"
import { trackedTicker } from "../common/tickers.js"
import { type Cursors, integerPosition, keysetPage, timeAndIdPosition } from "../cursor.js"
import {
  BadRequest,
  DeliveryNotFailed,
  orUnavailable,
  type ServiceUnavailable,
  WebhookLimitReached
} from "../errors.js"
import { rowsOfTickers } from "../universes/resolve.js"
import { changed, notFound, owned, ownedWithTicks, requireWebhooks } from "./access.js"
import { checkUniverse, freeze, freezeCompiled, freezeForTicker, queryOrRule, signalCondition } from "./conditions.js"
import { type DryRunInput, dryRunSubscription, dryRunWebhook, type WindowInput } from "./dryRun.js"
import { explain, webhookMembers } from "./explain.js"
import { eventsOf, snooze } from "./feed.js"
import { type FiringInput, firingEdit, newFiring } from "./firing.js"
import { deliveryDoc, webhookRenderer, webhookRendererWith } from "./render.js"
import { type DeliveryEditInput, type DeliveryInput, newSettings, type Settings, settingsEdit } from "./settings.js"

const DELIVERY_ID = /^dlv_[A-Za-z0-9_-]{1,64}$/
/** How long the previous signing secret keeps signing after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000

const limitReached = (key: AuthenticatedKey, active: number) =>
  new WebhookLimitReached({
    message: `this account has ${active} active webhooks, the most its ${key.account.plan} plan allows; disable or delete one, or upgrade`
  })

/** A new webhook's validated subscription, ready to store. */
export interface Prepared {
  readonly q: string
  readonly universeId: string | null
  readonly origin: Origin
  readonly settings: Settings
  readonly firing: FiringOptions
  /** the compiled `q`, when it names no custom signal: the evaluator takes it instead of compiling the q again */
  readonly compiled?: CompiledQuery | undefined
}

/** What a new webhook stores: its subscription and, on the webhook channel, a new signing secret. */
const configOf = (p: Prepared): WebhookConfig => ({
  ...p.settings,
  q: p.q,
  universeId: p.universeId,
  origin: p.origin,
  firing: p.firing,
  signingSecret: p.settings.channel === "webhook" ? generateSigningSecret() : null
})

/** A new webhook as its creation answers it: the record, its signing secret (shown only here). */
const createdDoc = (doc: ReturnType<Effect.Effect.Success<typeof webhookRenderer>>, config: WebhookConfig) => ({
  ...doc,
  ...(config.signingSecret === null ? {} : { signing_secret: config.signingSecret })
})

/** Stores a new webhook under the plan's cap and hands it to the evaluator. */
const create = (
  key: AuthenticatedKey,
  prepared: Prepared,
  /** the subscribe endpoints answer with `test_url` too */
  withTestUrl = true
) =>
  Effect.gen(function* () {
    const config = configOf(prepared)
    const outcome = yield* orUnavailable(
      (yield* Webhooks).create(key.account.id, newId("wh"), config, PLAN_LIMITS[key.account.plan].webhooks)
    )
    if (outcome._tag === "LimitReached") return yield* limitReached(key, outcome.active)
    yield* (yield* Alerts).changed(outcome.record, prepared.compiled)
    // the ticks read by the create's transaction: no statement of its own
    const doc = createdDoc((yield* webhookRendererWith(outcome.ticks))(outcome.record), config)
    return withTestUrl ? { ...doc, test_url: `/v2/webhooks/${outcome.record.id}/test` } : doc
  })

const subscribeTicker = (
  key: AuthenticatedKey,
  ticker: string,
  payload: DeliveryInput & FiringInput & { readonly condition?: string | undefined }
) =>
  Effect.gen(function* () {
    yield* requireWebhooks(key)
    const meta = yield* trackedTicker(ticker)
    const condition = payload.condition?.trim() ?? ""
    if (condition === "") return yield* new BadRequest({ message: "condition is required" })
    const q = yield* freezeForTicker(key, meta.ticker, condition)
    const settings = yield* newSettings(key, payload, `${meta.ticker}: ${condition}`)
    const firing = yield* newFiring(key, payload)
    return yield* create(key, {
      q,
      universeId: null,
      origin: { type: "ticker", ref: meta.ticker, condition },
      settings,
      firing
    })
  })

const subscribeSignal = (
  key: AuthenticatedKey,
  signal: string,
  payload: DeliveryInput &
    FiringInput & {
      readonly condition?: string | undefined
      readonly ticker?: string | null | undefined
      readonly universe?: string | null | undefined
    }
) =>
  Effect.gen(function* () {
    yield* requireWebhooks(key)
    const chosen = yield* signalCondition(key, signal, payload.condition)
    const q =
      payload.ticker === undefined || payload.ticker === null
        ? yield* freeze(key, chosen.expr, "condition")
        : yield* freezeForTicker(key, (yield* trackedTicker(payload.ticker)).ticker, chosen.expr)
    const universe = yield* checkUniverse(key.account.id, payload.universe)
    const settings = yield* newSettings(key, payload, chosen.defaultName)
    const firing = yield* newFiring(key, payload)
    return yield* create(key, {
      q,
      universeId: universe,
      origin: { type: "signal", ref: chosen.name, condition: chosen.condition },
      settings,
      firing
    })
  })

/** The body of `POST /v2/webhooks` (and of each item of a batch). */
export type CreateInput = DeliveryInput &
  FiringInput & {
    readonly q?: string | undefined
    readonly rule_id?: string | undefined
    readonly universe?: string | null | undefined
  }

/** A webhook of a raw `q` or a saved rule, validated (nothing stored). */
const prepareQuery = (key: AuthenticatedKey, payload: CreateInput) =>
  Effect.gen(function* () {
    const { text, universe, ref } = yield* queryOrRule(key, payload)
    const compiled = yield* freezeCompiled(key, text, "q")
    const universeId = yield* checkUniverse(key.account.id, universe)
    const settings = yield* newSettings(key, payload, text)
    const firing = yield* newFiring(key, payload)
    return {
      q: compiled.text,
      universeId,
      origin: { type: "query", ref, condition: text },
      settings,
      firing,
      compiled: compiled.signals.length === 0 ? compiled : undefined
    } satisfies Prepared
  })

/** `POST /v2/webhooks` up to the store: every check of the request, nothing written. */
export const prepareCreate = (key: AuthenticatedKey, payload: CreateInput) =>
  Effect.zipRight(requireWebhooks(key), prepareQuery(key, payload))

/** `POST /v2/webhooks` from its prepared subscription: stored under the cap, handed to the evaluator. */
export const commitCreate = (key: AuthenticatedKey, prepared: Prepared) => create(key, prepared, false)

const createWebhook = (key: AuthenticatedKey, payload: CreateInput) =>
  Effect.flatMap(prepareCreate(key, payload), (prepared) => commitCreate(key, prepared))

/** the most webhooks one batch creates */
export const MAX_BATCH = 500

/**
 * Creates up to 500 webhooks (`POST /v2/webhooks` bodies) all or nothing, in one transaction:
 * the first bad item is a 400 naming its index and error, the plan's cap is checked for the whole
 * batch.
 */
const createBatch = (key: AuthenticatedKey, payload: { readonly webhooks: ReadonlyArray<CreateInput> }) =>
  Effect.gen(function* () {
    yield* requireWebhooks(key)
    const items = payload.webhooks
    if (items.length === 0 || items.length > MAX_BATCH) {
      return yield* new BadRequest({
        message: `webhooks must hold 1 to ${MAX_BATCH} webhooks (got ${items.length})`
      })
    }
    const configs: Array<WebhookConfig> = []
    for (let i = 0; i < items.length; i++) {
      const prepared = yield* prepareQuery(key, items[i]!).pipe(
        Effect.catchIf(
          (e): e is Exclude<typeof e, ServiceUnavailable> => e._tag !== "ServiceUnavailable",
          (e) => new BadRequest({ message: `webhooks[${i}]: ${e.code}: ${e.message}` })
        )
      )
      configs.push(configOf(prepared))
    }
    const outcome = yield* orUnavailable(
      (yield* Webhooks).createBatch(
        key.account.id,
        configs.map((config) => ({ id: newId("wh"), config })),
        PLAN_LIMITS[key.account.plan].webhooks
      )
    )
    if (outcome._tag === "LimitReached") {
      return yield* new WebhookLimitReached({
        message: `this account has ${outcome.active} active webhooks; ${items.length} more would pass the ${PLAN_LIMITS[key.account.plan].webhooks} its ${key.account.plan} plan allows (nothing was created)`
      })
    }
    const alerts = yield* Alerts
    for (const record of outcome.records) yield* alerts.changed(record)
    const doc = yield* webhookRendererWith(outcome.ticks)
    return { webhooks: outcome.records.map((record, i) => createdDoc(doc(record), configs[i]!)) }
  })

const list = (
  key: AuthenticatedKey,
  urlParams: { readonly limit?: number | undefined; readonly cursor?: string | undefined }
) =>
  Effect.gen(function* () {
    yield* requireWebhooks(key)
    const limit = yield* pageSize(urlParams.limit, 100, 50)
    const webhooks = yield* Webhooks
    const page = yield* keysetPage({
      binding: { endpoint: "webhooks", account: key.account.id, limit },
      cursor: urlParams.cursor,
      limit,
      position: integerPosition,
      keyOf: (w: WebhookRecord) => w.seq,
      read: (after, count) => orUnavailable(webhooks.list(key.account.id, count, after))
    })
    const doc = yield* webhookRenderer
    return {
      as_of: yield* nowIso,
      count: page.rows.length,
      next_cursor: page.next_cursor,
      webhooks: page.rows.map(doc)
    }
  })

/** One webhook, read with the evaluation ticks in one statement. */
const get = (key: AuthenticatedKey, id: string) =>
  Effect.flatMap(ownedWithTicks(key, id), ({ record, ticks }) =>
    Effect.map(webhookRendererWith(ticks), (doc) => doc(record))
  )

const update = (key: AuthenticatedKey, id: string, payload: DeliveryEditInput & FiringInput) =>
  Effect.gen(function* () {
    const w = yield* owned(key, id)
    const edit = yield* settingsEdit(w, payload)
    const firing = yield* firingEdit(key, w, payload)
    const updated = yield* orUnavailable(
      (yield* Webhooks).update(key.account.id, w.id, firing === undefined ? edit : { ...edit, firing })
    )
    if (updated === undefined) return yield* notFound("webhook", id)
    return yield* changed(updated)
  })

const rotateSecret = (key: AuthenticatedKey, id: string) =>
  Effect.gen(function* () {
    const w = yield* owned(key, id)
    if (w.channel !== "webhook") {
      return yield* new BadRequest({ message: `only webhook-channel webhooks are signed (channel is ${w.channel})` })
    }
    const secret = generateSigningSecret()
    const until = (yield* Clock.currentTimeMillis) + SECRET_OVERLAP_MS
    const updated = yield* orUnavailable((yield* Webhooks).rotateSecret(key.account.id, w.id, secret, until))
    if (updated === undefined) return yield* notFound("webhook", id)
    return {
      webhook: (yield* webhookRenderer)(updated),
      signing_secret: secret,
      previous_secret_expires_at: Math.floor(until / 1000)
    }
  })

const enable = (key: AuthenticatedKey, id: string) =>
  Effect.gen(function* () {
    yield* owned(key, id)
    const outcome = yield* orUnavailable(
      (yield* Webhooks).enable(key.account.id, id, PLAN_LIMITS[key.account.plan].webhooks)
    )
    if (outcome._tag === "NotFound") return yield* notFound("webhook", id)
    if (outcome._tag === "LimitReached") return yield* limitReached(key, outcome.active)
    return yield* changed(outcome.record)
  })

const disable = (key: AuthenticatedKey, id: string) =>
  Effect.gen(function* () {
    const w = yield* owned(key, id)
    if (w.status === "disabled") return (yield* webhookRenderer)(w)
    const webhooks = yield* Webhooks
    const ticks = yield* orUnavailable(webhooks.ticks)
    const updated = yield* orUnavailable(
      webhooks.disable(key.account.id, w.id, "user", effectiveLastEvaluated(w, ticks))
    )
    return yield* changed(updated ?? w)
  })

const remove = (key: AuthenticatedKey, id: string) =>
  Effect.gen(function* () {
    const w = yield* owned(key, id)
    const removed = yield* orUnavailable((yield* Webhooks).remove(key.account.id, w.id))
    if (!removed) return yield* notFound("webhook", id)
    yield* (yield* Alerts).deleted(w.id)
    return { ok: true as const }
  })

/** Queues a real-shape `webhook.fired` with `test: true` for the webhook's current matches. */
const test = (key: AuthenticatedKey, id: string) =>
  Effect.gen(function* () {
    const w = yield* owned(key, id)
    const snapshot = yield* liveSnapshot
    const compiled = compileQuery(w.q, compileContext(yield* Tickers))
    if (Either.isLeft(compiled)) return yield* queryRejection(compiled.left, "q")
    // a q that ranks (PCT_RANK, RANK, ZSCORE) matches among its universe, as the evaluator ranks it
    let scope: Int32Array | undefined
    if (compiled.right.crossSectional && w.universeId !== null) {
      scope = rowsOfTickers(snapshot, yield* webhookMembers(key.account.id, w.universeId, snapshot))
    }
    const now = yield* Clock.currentTimeMillis
    const payload = JSON.stringify(
      firedEvent({
        webhookId: w.id,
        name: w.name,
        q: w.q,
        snapshot,
        added: compiled.right.matches(snapshot, scope, scope),
        fields: w.fields,
        test: true,
        now,
        chartBase: Option.getOrUndefined(Option.map((yield* AppConfig).dashboardUrl, (u) => u.href))
      })
    )
    const deliveryId = newId("dlv")
    const deliveries = yield* Deliveries
    yield* orUnavailable(
      deliveries
        .enqueue([
          {
            id: deliveryId,
            webhookId: w.id,
            accountId: w.accountId,
            event: "webhook.fired",
            eventId: newEventId(),
            channel: w.channel,
            targetUrl: displayTarget(w),
            test: true,
            payload,
            dueAt: now
          }
        ])
        // the webhook was deleted since it was read (a DELETE racing this request): it is not found
        .pipe(Effect.catchIf(isForeignKeyViolation, () => Effect.fail(notFound("webhook", id))))
    )
    yield* (yield* DeliveryWake).wake
    const record = yield* orUnavailable(deliveries.get(key.account.id, w.id, deliveryId))
    if (record === undefined) return yield* notFound("delivery", deliveryId)
    return { as_of: new Date(snapshot.asOf).toISOString(), delivery: deliveryDoc(record) }
  })

const STATUSES: ReadonlyArray<string> = ["pending", "delivered", "permanent_failure"]

const deliveriesOf = (
  key: AuthenticatedKey,
  id: string,
  urlParams: {
    readonly status?: string | undefined
    readonly limit?: number | undefined
    readonly cursor?: string | undefined
  }
) =>
  Effect.gen(function* () {
    const w = yield* owned(key, id)
    const status = urlParams.status
    if (status !== undefined && !STATUSES.includes(status)) {
      return yield* new BadRequest({
        message: `status must be pending, delivered or permanent_failure (got ${JSON.stringify(status)})`
      })
    }
    const limit = yield* pageSize(urlParams.limit, 100, 50)
    const deliveries = yield* Deliveries
    const page = yield* keysetPage({
      binding: { endpoint: "deliveries", account: key.account.id, webhook: w.id, status: status ?? null, limit },
      cursor: urlParams.cursor,
      limit,
      position: timeAndIdPosition,
      keyOf: (d: DeliveryRecord) => [d.createdAt, d.id] as const,
      read: (after, count) =>
        orUnavailable(deliveries.list(key.account.id, w.id, status as DeliveryStatus | undefined, count, after))
    })
    return {
      as_of: yield* nowIso,
      count: page.rows.length,
      next_cursor: page.next_cursor,
      deliveries: page.rows.map(deliveryDoc)
    }
  })

const dryRun = (key: AuthenticatedKey, input: DryRunInput) =>
  Effect.zipRight(requireWebhooks(key), dryRunSubscription(key, input))

const dryRunOf = (key: AuthenticatedKey, id: string, window: WindowInput) =>
  Effect.flatMap(owned(key, id), (w) => dryRunWebhook(key, w, window))

const retryDelivery = (key: AuthenticatedKey, id: string, deliveryId: string) =>
  Effect.gen(function* () {
    const w = yield* owned(key, id)
    if (!DELIVERY_ID.test(deliveryId)) {
      return yield* new BadRequest({
        message: `invalid delivery id ${JSON.stringify(deliveryId)}: ids look like dlv_…`
      })
    }
    const deliveries = yield* Deliveries
    const current = yield* orUnavailable(deliveries.get(key.account.id, w.id, deliveryId))
    if (current === undefined) return yield* notFound("delivery", deliveryId)
    if (current.status !== "permanent_failure") {
      return yield* new DeliveryNotFailed({
        message: `delivery ${current.id} is ${current.status}; only a permanent_failure can be sent again`
      })
    }
    const retried = yield* orUnavailable(deliveries.retry(key.account.id, w.id, current.id))
    if (retried === undefined) return yield* notFound("delivery", deliveryId)
    yield* (yield* DeliveryWake).wake
    return deliveryDoc(retried)
  })

/**
 * The services the rules read (captured when the layer is built; the direct create, which runs
 * `prepareCreate` and `commitCreate` in a fiber of its own, has them in its runtime).
 */
export type SubscriptionNeeds =
  | Alerts
  | AppConfig
  | Cursors
  | DeepHistory
  | Deliveries
  | DeliveryWake
  | Market
  | Rules
  | SignalResolver
  | Tickers
  | Universes
  | WebhookEvents
  | Webhooks

export class Subscriptions extends Effect.Service<Subscriptions>()("vigil/api/Subscriptions", {
  effect: Effect.gen(function* () {
    const context = yield* Effect.context<SubscriptionNeeds>()
    const run =
      <Args extends ReadonlyArray<any>, A, E>(f: (...args: Args) => Effect.Effect<A, E, SubscriptionNeeds>) =>
      (...args: Args): Effect.Effect<A, E> =>
        Effect.provide(f(...args), context)
    return {
      subscribeTicker: run(subscribeTicker),
      subscribeSignal: run(subscribeSignal),
      create: run(createWebhook),
      createBatch: run(createBatch),
      list: run(list),
      get: run(get),
      update: run(update),
      rotateSecret: run(rotateSecret),
      enable: run(enable),
      disable: run(disable),
      remove: run(remove),
      test: run(test),
      deliveries: run(deliveriesOf),
      events: run(eventsOf),
      snooze: run(snooze),
      explain: run(explain),
      dryRun: run(dryRun),
      dryRunWebhook: run(dryRunOf),
      retryDelivery: run(retryDelivery)
    }
  })
}) {}
