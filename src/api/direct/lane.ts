/**
 * The direct path: requests to the endpoints annotated `DirectRead` (a live
 * scan, a ticker's live row) are answered before the HttpApi router, without
 * a fiber when the key is cached and the rate limiter is in process: the
 * router, the middlewares' fibers and the schema round trips cost several
 * times the work of such a read. See docs/direct-path.md.
 *
 * Every request passes here first (the server's `request` event); one to
 * another endpoint goes on to the API at once, untouched. A direct read is
 * authenticated (`Accounts.authenticate`, the key cache), admitted and rate
 * limited by the request policy (requestPolicy.ts), and answered by its direct
 * answer (answers.ts: the handler's own functions) or, for a repeated read,
 * from the answers cache (cache.ts) under everything the answer depends on;
 * it gets the per-request headers, one log line and the HTTP metrics as the
 * API writes them. Whatever the direct answer does not cover — an unknown
 * key, plan `none`, a refusal by the limiter, a saved rule, an own universe,
 * a custom signal, `asof`, any invalid parameter, any failure — goes on to
 * the API, which answers as always: one implementation of every rule.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { Cause, Context, Duration, Effect, Layer, MetricLabel, Option, Runtime } from "effect"
import { Accounts, type AuthenticatedKey } from "../../accounts/Accounts.js"
import { Market } from "../../market/Market.js"
import { Tickers } from "../../market/tickers/index.js"
import { hotLaneTotal } from "../../observability/httpMetrics.js"
import { type Decision, RateLimiter } from "../../ratelimit/RateLimiter.js"
import { makeSeenBefore } from "../../seenBefore.js"
import { Cursors } from "../cursor.js"
import { type ApiErrorInstance, Internal, ServiceUnavailable } from "../errors.js"
import type { IdempotencyKeys } from "../idempotency.js"
import { BEARER } from "../middleware/Authentication.js"
import { REQUEST_DEADLINE } from "../requestMiddleware.js"
import { admissionFailure, logMillis, rateLimitOf, rateScopeOf, recordRequest, requestIdOf } from "../requestPolicy.js"
import type { SubscriptionNeeds } from "../webhooks/Subscriptions.js"
import { answerScan, answerTicker, type DirectState, scanInputOfBody, scanInputOfQuery } from "./answers.js"
import { type Entry, makeResponseCache } from "./cache.js"
import { errorAnswer, makeDirectCreate } from "./create.js"
import { makeDeadlines } from "./deadlines.js"
import { type AnswerBody, makeEndTogether } from "./endTogether.js"
import { makeRequestLog } from "./requestLog.js"
import { type DirectRoute, directRouteOf } from "./routes.js"

/**
 * Longest the lane waits to authenticate a key it has not cached (a database that hangs): then
 * the API takes the request, with its own deadline and 503.
 */
const AUTH_WAIT = Duration.seconds(1)

/** Largest scan body read here (a `q` is at most 4,000 characters); larger ones go to the API unread. */
export const DIRECT_BODY_MAX = 16_384

/** How long (to a quarter more) a scan body may take to arrive before the request goes to the API as it stands. */
const BODY_WAIT_MS = 1_000

const JSON_TYPE = /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i

/**
 * Whether a POST's body is one this path reads: JSON of a declared, small length, nothing the API must
 * handle. An `Idempotency-Key` is the API's on a scan, the direct create's own on a create.
 */
const readableBody = (req: IncomingMessage, kind: DirectRoute["kind"]): boolean => {
  const h = req.headers
  if (h["idempotency-key"] !== undefined && kind !== "webhookCreate") return false
  if (h["transfer-encoding"] !== undefined || h.expect !== undefined) return false
  if (h["content-encoding"] !== undefined || h["content-type"] === undefined || !JSON_TYPE.test(h["content-type"])) {
    return false
  }
  const length = Number(h["content-length"])
  return Number.isInteger(length) && length > 0 && length <= DIRECT_BODY_MAX
}

const outcomeLabels = {
  hit: [MetricLabel.make("outcome", "hit")],
  miss: [MetricLabel.make("outcome", "miss")],
  filled: [MetricLabel.make("outcome", "filled")],
  bypass: [MetricLabel.make("outcome", "bypass")]
} as const

/** A request on the direct path. */
interface Read {
  readonly route: DirectRoute
  /** the route's path parameters, percent-encoded */
  readonly params: ReadonlyArray<string>
  readonly req: IncomingMessage
  readonly res: ServerResponse
  readonly path: string
  /** the query string, without `?` (undefined when there is none) */
  readonly query: string | undefined
  /** the JSON body (POST) */
  readonly body: string | undefined
  readonly startedNs: bigint
  /** hands the request to the API (at most once) */
  readonly passOn: () => void
}

export interface DirectLaneShape {
  /** puts the direct path in front of the server's `request` listeners */
  readonly install: (server: Server) => void
}

export class DirectLane extends Context.Tag("vigil/DirectLane")<DirectLane, DirectLaneShape>() {}

export const DirectLaneLive: Layer.Layer<
  DirectLane,
  never,
  Accounts | RateLimiter | Market | Tickers | Cursors | IdempotencyKeys | SubscriptionNeeds
> = Layer.scoped(
  DirectLane,
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const limiter = yield* RateLimiter
    const market = yield* Market
    const directory = yield* Tickers
    const cursors = yield* Cursors
    // the cursor secret, read once the migrations ran: scans are answered here from the first one
    yield* Effect.forkScoped(Effect.ignore(cursors.codec))
    // the layer's whole context: the webhook rules' services too (a create, create.ts)
    const runtime = yield* Effect.runtime<SubscriptionNeeds>()
    const runFork = Runtime.runFork(runtime)
    const clock = yield* Effect.clock
    const log = makeRequestLog(runtime, clock)
    const cache = makeResponseCache()
    const ends = makeEndTogether()
    // an answer is kept from its request's second sighting on (seenBefore.ts): a scan whose `q` moves
    // per request is never kept, where keeping each until 4,096 later answers evicted it made
    // old-generation garbage of every answer (the collector's threads took a fifth of such a scan's CPU)
    const seenBefore = makeSeenBefore()
    const directCreate = yield* makeDirectCreate

    const state = (): DirectState => ({
      snapshot: market.latestNow(),
      market: market.dataNow(),
      directory,
      codec: cursors.loaded()
    })

    const bypass = (read: Read) => {
      hotLaneTotal.unsafeUpdate(1, outcomeLabels.bypass)
      read.passOn()
    }

    /** The answer's JSON text made now, or undefined when the API must answer. */
    const answerOf = (read: Read, key: AuthenticatedKey): string | undefined => {
      if (read.route.kind === "ticker") {
        return read.query === undefined ? answerTicker(read.params[0]!, state()) : undefined
      }
      const input = read.body !== undefined ? scanInputOfBody(read.body) : scanInputOfQuery(read.query ?? "")
      return input === undefined ? undefined : answerScan(input, key.account.id, state())
    }

    /**
     * Everything the answer depends on besides the snapshot: the account's plan (every answer),
     * the account (a scan's cursors are bound to it), the request. What else a scan may depend
     * on — the account's custom signals and universes, saved rules — the direct answer never
     * reads: such scans go to the API.
     */
    const cacheKey = (read: Read, key: AuthenticatedKey): string =>
      read.route.kind === "ticker"
        ? `T ${key.account.plan} ${read.req.url}`
        : `S ${key.account.id} ${key.account.plan} ${read.body ?? read.req.url}`

    /** The answer for an authenticated read, from the cache or made now; undefined when the API answers. */
    const prepare = (read: Read, key: AuthenticatedKey): { body: AnswerBody; hit: boolean } | undefined => {
      if (admissionFailure(key) !== undefined) return void bypass(read)
      const k = cacheKey(read, key)
      // a snapshot is published and its count moved in one step: both read here are the same one's
      const publication = market.publications()
      const cached = cache.get(k, publication)
      if (cached !== undefined) return { body: cached.body, hit: true }
      const text = answerOf(read, key)
      if (text === undefined) return void bypass(read)
      if (!seenBefore(k)) return { body: text, hit: false }
      const entry: Entry = { publication, body: Buffer.from(text, "utf8") }
      cache.set(k, entry)
      hotLaneTotal.unsafeUpdate(1, outcomeLabels.filled)
      return { body: entry.body, hit: false }
    }

    /**
     * Writes an answer as the API writes it: the JSON bytes, the per-request headers (the rate
     * limit's when the request was counted), the log line and the HTTP metrics.
     */
    const write = (
      read: Read,
      requestId: string,
      answer: {
        readonly status: number
        readonly body: AnswerBody
        readonly headers?: Readonly<Record<string, string>>
        readonly decision?: Decision
      },
      hit: boolean
    ) => {
      const { req, res } = read
      const { status, body, decision } = answer
      res.writeHead(status, {
        ...answer.headers,
        "content-type": "application/json",
        "content-length": String(typeof body === "string" ? Buffer.byteLength(body, "utf8") : body.length),
        "x-request-id": requestId,
        ...(decision === undefined
          ? {}
          : {
              "x-ratelimit-limit": String(decision.limit),
              "x-ratelimit-remaining": String(Math.max(0, decision.remaining)),
              "x-ratelimit-reset": String(decision.resetSeconds)
            })
      })
      ends.end(res, body)
      hotLaneTotal.unsafeUpdate(1, hit ? outcomeLabels.hit : outcomeLabels.miss)
      const seconds = Number(process.hrtime.bigint() - read.startedNs) / 1e9
      recordRequest(req.method!, read.route.label, status, seconds)
      log([requestId, req.method!, read.path, read.route.label, status, logMillis(seconds), hit ? "hit" : "miss"])
    }

    /** A read's 200. A refusal by the limiter is not counted: the API checks again and answers the 429. */
    const respond = (read: Read, answer: { body: AnswerBody; hit: boolean }, decision: Decision) => {
      if (!decision.allowed) return bypass(read)
      const requestId = requestIdOf(read.req.headers["x-request-id"] as string | undefined)
      write(read, requestId, { status: 200, body: answer.body, decision }, answer.hit)
    }

    /** creates running, answered with the API's 503 when they pass its deadline (a database that stopped) */
    const deadlines = yield* makeDeadlines(REQUEST_DEADLINE, clock)

    /** The answer of a request that failed here after it was counted: the API's envelope. */
    const failed = (read: Read, requestId: string, error: ApiErrorInstance, headers?: Record<string, string>) => {
      if (read.res.headersSent) return
      const answer = errorAnswer(error, requestId)
      write(read, requestId, { ...answer, headers: { ...answer.headers, ...headers } }, false)
    }

    /** The key of a token not cached (or the cache's answer), waiting at most AUTH_WAIT; none when unknown or late. */
    const authenticate = (token: string, cached: AuthenticatedKey | undefined) =>
      cached !== undefined
        ? Effect.succeed(Option.some(cached))
        : accounts.authenticate(token).pipe(
            Effect.timeout(AUTH_WAIT),
            Effect.orElseSucceed(() => Option.none<AuthenticatedKey>())
          )

    /**
     * A create (create.ts), in one fiber: the key (cached, or looked up as a read's), the plan's
     * admission, then the direct create, which answers or hands the request to the API.
     */
    const serveCreate = (read: Read, token: string) => {
      const requestId = requestIdOf(read.req.headers["x-request-id"] as string | undefined)
      const timedOut = () =>
        failed(
          read,
          requestId,
          new ServiceUnavailable({
            message: `the request could not be answered within ${Duration.format(REQUEST_DEADLINE)}; retry later`
          }),
          // as the API's deadline answers
          { "retry-after": "5" }
        )
      deadlines.watch(
        (done) =>
          runFork(
            Effect.gen(function* () {
              const found = yield* authenticate(
                token,
                accounts.authenticateCached(token, clock.unsafeCurrentTimeMillis())
              )
              if (Option.isNone(found) || admissionFailure(found.value) !== undefined) return bypass(read)
              const outcome = yield* directCreate({
                key: found.value,
                authorization: read.req.headers.authorization!,
                url: read.req.url!,
                body: read.body!,
                idempotencyKey: read.req.headers["idempotency-key"] as string | undefined,
                requestId
              })
              if (outcome._tag === "PassOn") return bypass(read)
              write(read, requestId, outcome, false)
            }).pipe(
              // a defect: the create may have been stored, so the API must not run it again
              Effect.catchAllCause((cause) =>
                Cause.isInterruptedOnly(cause)
                  ? Effect.void
                  : Effect.zipRight(
                      Effect.logError("direct create failed", cause),
                      Effect.sync(() =>
                        failed(
                          read,
                          requestId,
                          new Internal({ message: "internal error; retry with exponential backoff" })
                        )
                      )
                    )
              ),
              Effect.ensuring(Effect.sync(done))
            )
          ),
        timedOut
      )
    }

    /** A direct read: at once when the key is cached and the limiter in process, else through a fiber. Never fails. */
    const serve = (read: Read, token: string) => {
      if (read.route.kind === "webhookCreate") return serveCreate(read, token)
      const now = clock.unsafeCurrentTimeMillis()
      const known = accounts.authenticateCached(token, now)
      const scope = rateScopeOf(read.path)
      if (known !== undefined && limiter.checkNow !== undefined) {
        try {
          const answer = prepare(read, known)
          if (answer !== undefined) respond(read, answer, limiter.checkNow(...rateLimitOf(known, scope), now))
        } catch (error) {
          if (!read.res.headersSent) read.passOn()
          runFork(Effect.logError("direct answer failed", Cause.die(error)))
        }
        return
      }
      runFork(
        Effect.gen(function* () {
          const found = yield* authenticate(token, undefined)
          // unknown or revoked keys, database trouble (a database that hangs, too): the API answers those
          if (Option.isNone(found)) return bypass(read)
          const answer = prepare(read, found.value)
          if (answer === undefined) return
          respond(read, answer, yield* limiter.check(...rateLimitOf(found.value, scope)))
        }).pipe(
          // a defect must not lose the request: the API answers it unless the answer started
          Effect.catchAllCause((cause) =>
            read.res.headersSent
              ? Effect.logError("direct answer failed after answering", cause)
              : Effect.sync(read.passOn)
          )
        )
      )
    }

    const install = (server: Server) => {
      const emit = server.emit.bind(server) as (event: string | symbol, ...args: Array<unknown>) => boolean
      // bodies being read, by when they must have come: one sweep for all, not a timer per request
      const waiting = new Map<() => void, number>()
      const sweep = setInterval(() => {
        const now = performance.now()
        for (const [handOver, by] of waiting) if (by <= now) handOver()
      }, BODY_WAIT_MS / 4)
      sweep.unref()
      server.once("close", () => clearInterval(sweep))
      const passOn = (req: IncomingMessage, res: ServerResponse) => {
        let passed = false
        return () => {
          if (passed) return
          passed = true
          emit("request", req, res)
        }
      }
      server.emit = ((event: string | symbol, ...args: Array<any>): boolean => {
        if (event !== "request") return emit(event, ...args)
        const req = args[0] as IncomingMessage
        const res = args[1] as ServerResponse
        const url = req.url
        const authorization = req.headers.authorization
        if (url === undefined || authorization === undefined || req.method === undefined) return emit(event, ...args)
        const mark = url.indexOf("?")
        const path = mark < 0 ? url : url.slice(0, mark)
        const found = directRouteOf(req.method, path)
        const token = found === undefined ? undefined : BEARER.exec(authorization)?.[1]
        if (found === undefined || token === undefined || market.publications() === 0) return emit(event, ...args)
        const startedNs = process.hrtime.bigint()
        const read = (body: string | undefined): Read => ({
          route: found.route,
          params: found.params,
          req,
          res,
          path,
          query: mark < 0 ? undefined : url.slice(mark + 1),
          body,
          startedNs,
          passOn: passOn(req, res)
        })
        if (req.method !== "POST") {
          // a GET with a body (the API's size limit applies to it) is the API's
          const length = req.headers["content-length"]
          if (req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0")) {
            return emit(event, ...args)
          }
          serve(read(undefined), token)
          return true
        }
        // a POST's parameters are its body: a query string is for the API to refuse
        if (mark >= 0 || !readableBody(req, found.route.kind)) return emit(event, ...args)
        // the body is read once it has all come, and put back at once (`unshift`): a request the
        // API answers reads it as sent. One slow to come goes to the API as it stands, unread
        const expected = Number(req.headers["content-length"])
        const onReadable = () => {
          if (req.readableLength < expected && !req.complete) return
          cleanup()
          const chunk = req.read() as Buffer | null
          if (chunk !== null) req.unshift(chunk)
          if (chunk === null || chunk.length !== expected) return passOn(req, res)()
          serve(read(chunk.toString("utf8")), token)
        }
        const onSlow = () => {
          cleanup()
          hotLaneTotal.unsafeUpdate(1, outcomeLabels.bypass)
          passOn(req, res)()
        }
        const cleanup = () => {
          waiting.delete(onSlow)
          req.off("readable", onReadable)
          req.off("close", cleanup)
        }
        waiting.set(onSlow, performance.now() + BODY_WAIT_MS)
        req.on("readable", onReadable)
        req.once("close", cleanup)
        return true
      }) as typeof server.emit
    }

    return { install } satisfies DirectLaneShape
  })
)
