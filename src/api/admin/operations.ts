/**
 * The operator's admin API: accounts (create, change plan — a downgrade disables the webhooks
 * beyond the new cap —, keys), an immediate market refresh that answers once webhooks were
 * evaluated, the streamed bars import (one file or many, CSV or gzip, bars or splits). A database that cannot answer is a 503 with Retry-After, as
 * on /v2 (`orUnavailable`).
 */
import { HttpServerRequest, Multipart } from "@effect/platform"
import { Clock, Duration, Effect, Option, Stream } from "effect"
import { Accounts } from "../../accounts/Accounts.js"
import { normalizeEmail, passwordProblem } from "../../accounts/passwords.js"
import { PLAN_LIMITS } from "../../accounts/plans.js"
import { Users } from "../../accounts/Users.js"
import { Alerts } from "../../alerts/Alerts.js"
import { isoDate } from "../../market/indicators/days.js"
import { Market } from "../../market/Market.js"
import { BulkImport } from "../../market/sources/bulkImport.js"
import { CsvImportError } from "../../market/sources/csvLine.js"
import { ImportDecodeError, parseFile } from "../../market/sources/importFile.js"
import { ImportedBars } from "../../store/importedBars.js"
import { Webhooks } from "../../store/webhooks.js"
import type { RequestOf } from "../common/request.js"
import {
  BadRequest,
  EmailTaken as EmailTakenError,
  NotFound,
  orUnavailable,
  ServiceUnavailable,
  unavailable
} from "../errors.js"
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

/** A dashboard user (`POST /admin/users`): of an account, or of a new one on `plan`. */
export const createUser = ({ payload }: RequestOf<typeof AdminApi, "createUser">) =>
  Effect.gen(function* () {
    const email = normalizeEmail(payload.email)
    if (email === undefined) {
      return yield* new BadRequest({ message: `email must be an email address (got ${JSON.stringify(payload.email)})` })
    }
    const problem = payload.password === undefined ? undefined : passwordProblem(payload.password)
    if (problem !== undefined) return yield* new BadRequest({ message: problem })
    if (payload.account_id !== undefined && payload.plan !== undefined) {
      return yield* new BadRequest({
        message: "plan is for a new account: give account_id (the user joins that account as it is) or plan, not both"
      })
    }
    const users = yield* Users
    const created = yield* users
      .create({ email, password: payload.password, accountId: payload.account_id, plan: payload.plan ?? "free" })
      .pipe(
        Effect.catchTags({
          EmailTaken: (e) => new EmailTakenError({ message: `a dashboard user with email ${e.email} exists` }),
          AccountMissing: (e) => new NotFound({ message: `no account ${e.accountId}` })
        }),
        orUnavailable
      )
    yield* Effect.logInfo("dashboard user created").pipe(
      Effect.annotateLogs({ user_id: created.user.id, account_id: created.user.accountId })
    )
    return {
      user_id: created.user.id,
      account_id: created.user.accountId,
      email: created.user.email,
      password: created.password
    }
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

/** imports run one at a time: each reads the live market's window and lays its bars over it */
const importLock = Effect.unsafeMakeSemaphore(1)

/** `Content-Encoding` of an import body: gzip or none (`identity`); anything else is refused */
const gzipEncoding = (header: string | undefined): boolean | string => {
  const codings = (header ?? "")
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity")
  if (codings.length === 0) return false
  if (codings.length === 1 && (codings[0] === "gzip" || codings[0] === "x-gzip")) return true
  return codings.join(", ")
}

const GZIP_TYPES = /^application\/(x-)?gzip\b/i

/**
 * `POST /admin/import`: one CSV body (gzip with `Content-Encoding: gzip`) or a multipart body of
 * several files, each parsed, validated and stored in a transaction of its own, in order
 * (`BulkImport`); then the bars stored within the live market's window are read back
 * (split-adjusted) and laid over it in one go. The first bad file stops the import: the files
 * before it stay stored (and applied), the answer is 400 naming its line, with `stored` their
 * summary (when there are some).
 */
export const importBars = ({ urlParams }: RequestOf<typeof AdminApi, "import">) =>
  Effect.gen(function* () {
    const market = yield* Market
    const store = yield* ImportedBars
    const request = yield* HttpServerRequest.HttpServerRequest
    const md = yield* market.data
    const now = yield* Clock.currentTimeMillis
    const bulk = new BulkImport(store, isoDate(md.earliestDay))
    const options = { ticker: urlParams.ticker, directory: market.directory, now }
    /** the first file that could not be imported */
    let failure: BadRequest | undefined
    const fail = (e: unknown): BadRequest =>
      e instanceof CsvImportError || e instanceof ImportDecodeError
        ? new BadRequest({ message: e.message })
        : new BadRequest({ message: "the request body could not be read" })
    /**
     * One file: parsed, then stored while the next is read (`enqueue`); a file after a failure is
     * read and dropped
     */
    const importOne = <E>(file: string, bytes: Stream.Stream<Uint8Array, E>, gzip: boolean) =>
      failure !== undefined
        ? Stream.runDrain(bytes).pipe(Effect.ignore)
        : parseFile(bytes, { ...options, file, gzip }).pipe(
            Effect.either,
            Effect.flatMap((parsed) =>
              parsed._tag === "Right"
                ? bulk.enqueue(file, parsed.right)
                : Effect.zipRight(
                    bulk.settle,
                    Effect.sync(() => {
                      failure = fail(parsed.left)
                    })
                  )
            )
          )

    const type = request.headers["content-type"] ?? ""
    // a request without a body: nothing to read (the multipart parser would wait for its end forever)
    const empty = request.headers["content-length"]?.trim() === "0"
    if (/^multipart\/form-data\b/i.test(type)) {
      if (empty) return yield* new BadRequest({ message: "the multipart body holds no file" })
      if (!/;\s*boundary=("[^"]+"|[^\s;"]+)/i.test(type)) {
        yield* Stream.runDrain(request.stream).pipe(Effect.ignore)
        return yield* new BadRequest({ message: "a multipart/form-data body needs its boundary in Content-Type" })
      }
      if (gzipEncoding(request.headers["content-encoding"]) !== false) {
        yield* Stream.runDrain(request.stream).pipe(Effect.ignore)
        return yield* new BadRequest({
          message: "a multipart import body is not compressed as a whole: send its .gz files as parts"
        })
      }
      let files = 0
      yield* request.multipartStream.pipe(
        Stream.runForEach((part) => {
          if (!Multipart.isFile(part)) return Effect.void
          files++
          const gzip = part.name.toLowerCase().endsWith(".gz") || GZIP_TYPES.test(part.contentType)
          return importOne(part.name, part.content, gzip)
        }),
        Effect.catchTag("MultipartError", (e) =>
          Effect.sync(() => {
            failure ??= new BadRequest({ message: `the multipart body could not be read (${e.message})` })
          })
        ),
        Effect.catchAllDefect(() =>
          Effect.sync(() => {
            failure ??= new BadRequest({ message: "the multipart body could not be read" })
          })
        )
      )
      if (files === 0 && failure === undefined) {
        return yield* new BadRequest({ message: "the multipart body holds no file" })
      }
    } else {
      const gzip = gzipEncoding(request.headers["content-encoding"])
      if (typeof gzip === "string") {
        // still read, so the client gets this answer rather than a reset
        yield* Stream.runDrain(request.stream).pipe(Effect.ignore)
        return yield* new BadRequest({
          message: `Content-Encoding ${gzip} is not supported: send gzip or an uncompressed body`
        })
      }
      const file = urlParams.file ?? (urlParams.ticker === undefined ? "upload" : `${urlParams.ticker}.csv`)
      yield* importOne(file, empty ? Stream.empty : request.stream, gzip || GZIP_TYPES.test(type))
    }

    yield* bulk.settle
    // the bars stored within the market's window, read back split-adjusted, laid over it once;
    // logged, so every process following ticks does the same before its next tick
    const update = bulk.marketUpdate()
    if (update !== undefined) {
      yield* store.logImport(update.tickers)
      const bars = yield* store.load(update.tickers, { from: update.from, to: update.to })
      if (bars.size > 0) {
        yield* market.applyStored(bars).pipe(
          // validated against the session when the request came: only a session that turned since
          // (midnight UTC for crypto) refuses them now; stored, they are laid over at the next start
          Effect.catchTag("ImportRejected", (e) =>
            Effect.logWarning("imported bars stored but not applied to the live market").pipe(
              Effect.annotateLogs({ reason: e.message })
            )
          )
        )
      }
    }
    if (failure !== undefined) {
      const stored = bulk.report()
      return yield* new BadRequest(
        stored.files.length === 0 ? { message: failure.message } : { message: failure.message, details: { stored } }
      )
    }
    return bulk.report()
  }).pipe(
    importLock.withPermits(1),
    Effect.catchTags({
      MarketNotReady: (e) => Effect.fail(new ServiceUnavailable({ message: e.message, details: { retry_after: 2 } })),
      SqlError: () => Effect.fail(unavailable())
    })
  )

export const revokeKey = ({ path }: RequestOf<typeof AdminApi, "revokeKey">) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const revoked = yield* orUnavailable(accounts.revokeKey(path.key_id))
    if (!revoked) return yield* new NotFound({ message: `no active key ${path.key_id}` })
    return { ok: true as const }
  })
