/**
 * The operator's admin API: accounts (create, change plan — a downgrade disables the webhooks
 * beyond the new cap —, keys), an immediate market refresh that answers once webhooks were
 * evaluated, the streamed bars import. A database that cannot answer is a 503 with Retry-After, as
 * on /v2 (`orUnavailable`).
 */
import { HttpServerRequest } from "@effect/platform"
import { Duration, Effect, Option, Stream } from "effect"
import { Accounts } from "../../accounts/Accounts.js"
import { PLAN_LIMITS } from "../../accounts/plans.js"
import { Alerts } from "../../alerts/Alerts.js"
import { Market } from "../../market/Market.js"
import { CsvBarParser, CsvImportError } from "../../market/sources/csvBars.js"
import { Webhooks } from "../../store/webhooks.js"
import type { RequestOf } from "../common/request.js"
import { BadRequest, NotFound, orUnavailable, ServiceUnavailable, unavailable } from "../errors.js"
import type { AdminApi } from "./Api.js"

export const createAccount = ({ payload }: RequestOf<typeof AdminApi, "createAccount">) =>
  Effect.flatMap(Accounts, (accounts) => accounts.create(payload.plan)).pipe(
    Effect.map((a) => ({ account_id: a.accountId, plan: a.plan, key_id: a.keyId, api_key: a.apiKey })),
    orUnavailable
  )

export const updateAccount = ({ path, payload }: RequestOf<typeof AdminApi, "updateAccount">) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const webhooks = yield* Webhooks
    const alerts = yield* Alerts
    if (
      payload.rate_limit_per_minute !== undefined &&
      payload.rate_limit_per_minute !== null &&
      payload.plan !== "enterprise"
    ) {
      return yield* new BadRequest({
        message: "rate_limit_per_minute can only be set on an enterprise account; other plans use their plan's limit"
      })
    }
    const updated = yield* orUnavailable(accounts.update(path.account_id, payload.plan, payload.rate_limit_per_minute))
    if (Option.isNone(updated)) return yield* new NotFound({ message: `no account ${path.account_id}` })
    // a downgrade disables the most recently created webhooks beyond the new cap (configuration kept)
    const disabled = yield* orUnavailable(
      webhooks.enforceCap(updated.value.id, PLAN_LIMITS[updated.value.plan].webhooks)
    )
    if (disabled.length > 0) {
      yield* alerts.resync.pipe(Effect.ignore)
      yield* Effect.logInfo("plan downgrade disabled webhooks").pipe(
        Effect.annotateLogs({ account_id: updated.value.id, plan: updated.value.plan, disabled: disabled.length })
      )
    }
    return {
      account_id: updated.value.id,
      plan: updated.value.plan,
      rate_limit_per_minute: updated.value.rateLimitPerMinute
    }
  })

export const createKey = ({ path, payload }: RequestOf<typeof AdminApi, "createKey">) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const created = yield* orUnavailable(accounts.createKey(path.account_id, payload.mode ?? "test"))
    if (Option.isNone(created)) return yield* new NotFound({ message: `no account ${path.account_id}` })
    return { key_id: created.value.keyId, api_key: created.value.apiKey }
  })

/** Pauses or resumes the market feed for every process (`POST /admin/feed/pause`, `/resume`). */
export const setFeedPaused = (paused: boolean) =>
  Effect.gen(function* () {
    yield* orUnavailable((yield* Market).setFeedPaused(paused))
    yield* Effect.logInfo(paused ? "market feed paused" : "market feed resumed")
    return { paused }
  })

export const refreshMarket = () =>
  Effect.gen(function* () {
    const market = yield* Market
    const alerts = yield* Alerts
    const snapshot = yield* market.refreshNow
    // answers once every realtime webhook was evaluated against this snapshot and its fires queued
    const evaluated = yield* alerts.afterRefresh(snapshot).pipe(Effect.timeout(Duration.seconds(60)))
    if (!evaluated.ok) {
      const behind = evaluated.behind
      return yield* new ServiceUnavailable({
        message:
          behind === undefined
            ? `the refresh was applied but webhook evaluation failed (${evaluated.error ?? "unknown"}); it is retried on the next refresh`
            : `the refresh was applied but ${behind.length} webhook slices have not evaluated it yet (${behind
                .slice(0, 20)
                .join(
                  ", "
                )}${behind.length > 20 ? ", …" : ""}): a runner may be starting or gone; their next holder evaluates it`,
        details: { retry_after: 5, ...(behind === undefined ? {} : { slices_behind: behind }) }
      })
    }
    return { as_of: new Date(snapshot.asOf).toISOString() }
  }).pipe(
    Effect.catchTag("MarketNotReady", (e) =>
      Effect.fail(new ServiceUnavailable({ message: e.message, details: { retry_after: 2 } }))
    ),
    Effect.catchTag("TimeoutException", () =>
      Effect.fail(
        new ServiceUnavailable({
          message: "webhook evaluation did not finish within 60 s",
          details: { retry_after: 5 }
        })
      )
    )
  )

export const importBars = ({ urlParams }: RequestOf<typeof AdminApi, "import">) =>
  Effect.gen(function* () {
    const market = yield* Market
    const request = yield* HttpServerRequest.HttpServerRequest
    const parser = new CsvBarParser({
      file: urlParams.ticker === undefined ? "upload" : `${urlParams.ticker}.csv`,
      ticker: urlParams.ticker,
      resolveTicker: (symbol) => market.directory.lookup(symbol)?.ticker
    })
    const decoder = new TextDecoder()
    // After the first bad line the rest of the upload is still read (and dropped), so the client
    // gets the 400 rather than a connection reset while it is still sending.
    let failure: unknown
    const feed = (chunk: Uint8Array) => {
      if (failure !== undefined) return
      try {
        parser.push(decoder.decode(chunk, { stream: true }))
      } catch (e) {
        failure = e
      }
    }
    const parsed = yield* request.stream.pipe(
      Stream.runForEach((chunk) => Effect.sync(() => feed(chunk))),
      Effect.zipRight(
        Effect.try(() => {
          if (failure !== undefined) throw failure
          parser.push(decoder.decode())
          return parser.finish()
        })
      ),
      Effect.mapError((e) => {
        const cause = (e as any)?.error ?? e
        return cause instanceof CsvImportError
          ? new BadRequest({ message: cause.message })
          : new BadRequest({ message: "the request body could not be read" })
      })
    )
    return yield* market.importBars(parsed).pipe(
      Effect.catchTags({
        ImportRejected: (e) => Effect.fail(new BadRequest({ message: e.message })),
        MarketNotReady: (e) => Effect.fail(new ServiceUnavailable({ message: e.message, details: { retry_after: 2 } })),
        SqlError: () => Effect.fail(unavailable())
      })
    )
  })

export const revokeKey = ({ path }: RequestOf<typeof AdminApi, "revokeKey">) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const revoked = yield* orUnavailable(accounts.revokeKey(path.key_id))
    if (!revoked) return yield* new NotFound({ message: `no active key ${path.key_id}` })
    return { ok: true as const }
  })
