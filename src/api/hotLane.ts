/**
 * The hot-read lane: repeated reads of a ticker's live row and repeated live
 * scans are answered with the bytes the API answered them with before,
 * without the HttpApi request path (router, fibers, schema decoding and
 * encoding), which costs ~0.5 ms of CPU per request before any work. See
 * docs/hot-lane.md.
 *
 * Every request passes here first (the server's `request` event). One that is
 * not a hot read goes on to the API at once, untouched. A hot read is
 * authenticated (`Accounts.authenticate`, the in-process key cache, as the API
 * does) and looked up in the response cache under what its answer depends on;
 * on a hit it is rate limited (the API's limiter, key and limit) and answered
 * with the cached bytes and the per-request headers (`X-Request-Id`,
 * `X-RateLimit-*`), one log line and the HTTP metrics, as the API writes them.
 * A miss, a refusal by the limiter, an unknown key, or any failure goes on to
 * the API, which answers as always and, for a 200, fills the cache (`fill`,
 * called by the request middleware): one implementation of every rule, the
 * lane only replays its answers.
 *
 * What an answer depends on — the cache key:
 * - `GET /v2/tickers/{ticker}` without a query string: the URL and the live
 *   snapshot (no plan gates it; any account may read it).
 * - live scans, `POST /v2/scan` (a JSON body of at most 16 KiB) and
 *   `GET /v2/scan?…`, whose parameters are among q, order, dir, fields, limit,
 *   cursor and universe `top_10`/`top_100`, and whose `q` names no custom
 *   signal: the account and its plan (cursors are bound to the account), the
 *   exact body or URL, and the live snapshot. Saved rules, own universes,
 *   custom signals and as-of dates are read from the database, or change
 *   without a new snapshot: such scans always take the API path.
 * The live snapshot is the market's publication count: an entry filled under
 * an older count is never served.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { Readable } from "node:stream"
import type { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import {
  Cause,
  Context,
  Duration,
  Effect,
  FiberId,
  FiberRef,
  FiberRefs,
  HashMap,
  HashSet,
  Layer,
  List,
  Logger,
  LogLevel,
  MetricLabel,
  Option,
  Runtime
} from "effect"
import { Accounts, type AuthenticatedKey } from "../accounts/Accounts.js"
import { Market } from "../market/Market.js"
import { Tickers } from "../market/tickers/index.js"
import { hotLaneTotal, httpRequestDuration, httpRequestsTotal } from "../observability/httpMetrics.js"
import { infoLineFormat, jsonLines, writeLogLine } from "../observability/logSink.js"
import { limitFor, rateLimitKey } from "../ratelimit/policy.js"
import { type Decision, RateLimiter } from "../ratelimit/RateLimiter.js"
import { REQUEST_ID } from "./headerPatterns.js"
import { BEARER } from "./middleware/Authentication.js"
import { labelsFor, newRequestId } from "./requestMiddleware.js"
import { MAX_Q_LENGTH } from "./scan/params.js"
import { isSystemId } from "./universes/resolve.js"
import { compileWithoutSignals } from "./v2/query.js"

/**
 * Longest the lane waits to authenticate a key it has not cached (a database that hangs): then
 * the API takes the request, with its own timeout and 503.
 */
const AUTH_WAIT = Duration.seconds(1)

/** The annotations of a hit's log line, as the API's request middleware writes them (plus `cache`). */
const REQUEST_LOG_KEYS = ["request_id", "method", "path", "route", "status", "duration_ms", "cache"] as const

/** Largest scan body the lane reads (a `q` is at most 4,000 characters); larger ones go to the API unread. */
export const HOT_BODY_MAX = 16_384
/** Cached answers: at most this many, and this many bytes (least recently used out). */
export const HOT_CACHE_ENTRIES = 4_096
export const HOT_CACHE_BYTES = 64 * 1_048_576

export interface HotLaneShape {
  /** puts the lane in front of the server's `request` listeners */
  readonly install: (server: Server) => void
  /** offers the API's answer to a request the lane passed on (the request middleware calls it for every response) */
  readonly fill: (request: HttpServerRequest.HttpServerRequest, response: HttpServerResponse.HttpServerResponse) => void
}

export class HotLane extends Context.Tag("vigil/HotLane")<HotLane, HotLaneShape>() {}

const SCAN_PARAMETERS: ReadonlySet<string> = new Set(["q", "order", "dir", "fields", "limit", "cursor", "universe"])
const TICKER_PATH = /^\/v2\/tickers\/[^/?#]+$/
const JSON_TYPE = /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i

type Kind = "ticker" | "scan-get" | "scan-post"

/** Whether a request may be a hot read, from its line and headers alone (no body read). */
const classify = (req: IncomingMessage): Kind | undefined => {
  const url = req.url
  if (url === undefined || req.headers.authorization === undefined) return undefined
  if (req.method === "GET") {
    if (url.startsWith("/v2/tickers/")) return TICKER_PATH.test(url) ? "ticker" : undefined
    return url.startsWith("/v2/scan?") ? "scan-get" : undefined
  }
  if (req.method !== "POST" || url !== "/v2/scan") return undefined
  const h = req.headers
  if (h["idempotency-key"] !== undefined || h["transfer-encoding"] !== undefined || h.expect !== undefined) {
    return undefined
  }
  if (h["content-encoding"] !== undefined || h["content-type"] === undefined || !JSON_TYPE.test(h["content-type"])) {
    return undefined
  }
  const length = Number(h["content-length"])
  return Number.isInteger(length) && length > 0 && length <= HOT_BODY_MAX ? "scan-post" : undefined
}

/** Whether a scan's parameters make its answer a function of (account, parameters, live snapshot). */
const cacheableScan = (params: Record<string, unknown>, directory: Context.Tag.Service<typeof Tickers>): boolean => {
  for (const name of Object.keys(params)) if (!SCAN_PARAMETERS.has(name)) return false
  const universe = params.universe
  if (universe !== undefined && (typeof universe !== "string" || !isSystemId(universe))) return false
  const q = params.q
  return typeof q === "string" && q.length <= MAX_Q_LENGTH && compileWithoutSignals(q, directory) !== undefined
}

const scanParamsOfQuery = (url: string): Record<string, unknown> | undefined => {
  const params: Record<string, unknown> = {}
  for (const [name, value] of new URLSearchParams(url.slice(url.indexOf("?") + 1))) {
    if (name in params) return undefined
    params[name] = value
  }
  return params
}

const scanParamsOfBody = (body: string): Record<string, unknown> | undefined => {
  try {
    const parsed: unknown = JSON.parse(body)
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** How long (to a quarter more) the lane waits for a scan body before it hands the request to the API as it stands. */
const BODY_WAIT_MS = 1_000

/**
 * The request the API reads when the lane consumed (part of) the body: the same message, the
 * bytes read so far replayed, and — when the body had not ended — the rest streamed on from it.
 */
const replay = (req: IncomingMessage, read: ReadonlyArray<Buffer>, ended: boolean): IncomingMessage => {
  const copy = new Readable({ read() {} }) as unknown as Record<string, unknown>
  for (const name of [
    "headers",
    "headersDistinct",
    "rawHeaders",
    "trailers",
    "rawTrailers",
    "method",
    "url",
    "httpVersion",
    "httpVersionMajor",
    "httpVersionMinor",
    "socket"
  ] as const) {
    copy[name] = (req as unknown as Record<string, unknown>)[name]
  }
  copy.connection = req.socket
  copy.complete = ended
  copy.aborted = false
  const stream = copy as unknown as Readable
  for (const chunk of read) stream.push(chunk)
  if (ended) stream.push(null)
  else {
    req.on("data", (chunk: Buffer) => stream.push(chunk))
    req.once("end", () => {
      copy.complete = true
      stream.push(null)
    })
    req.once("error", (error) => stream.destroy(error))
  }
  return copy as unknown as IncomingMessage
}

export interface Entry {
  readonly publication: number
  readonly body: Uint8Array
  readonly contentType: string
}

/** Answers by key, least recently used out beyond `HOT_CACHE_ENTRIES` or `HOT_CACHE_BYTES`. */
export const makeResponseCache = (maxEntries = HOT_CACHE_ENTRIES, maxBytes = HOT_CACHE_BYTES) => {
  const entries = new Map<string, Entry>()
  let bytes = 0
  let publication = -1
  const drop = (key: string, entry: Entry) => {
    entries.delete(key)
    bytes -= entry.body.length
  }
  return {
    get: (key: string, current: number): Entry | undefined => {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      if (entry.publication !== current) {
        drop(key, entry)
        return undefined
      }
      // most recently used last
      entries.delete(key)
      entries.set(key, entry)
      return entry
    },
    set: (key: string, entry: Entry) => {
      if (entry.publication !== publication) {
        // a new snapshot: every older answer is stale
        entries.clear()
        bytes = 0
        publication = entry.publication
      }
      const old = entries.get(key)
      if (old !== undefined) drop(key, old)
      entries.set(key, entry)
      bytes += entry.body.length
      for (const [k, e] of entries) {
        if (entries.size <= maxEntries && bytes <= maxBytes) break
        drop(k, e)
      }
    },
    size: () => entries.size,
    bytes: () => bytes
  }
}

const outcomeLabels = {
  hit: [MetricLabel.make("outcome", "hit")],
  miss: [MetricLabel.make("outcome", "miss")],
  filled: [MetricLabel.make("outcome", "filled")],
  bypass: [MetricLabel.make("outcome", "bypass")]
} as const

/** What the lane attached to a request it passed on, for `fill`. */
interface Pending {
  readonly key: string
  readonly publication: number
}

export const HotLaneLive: Layer.Layer<HotLane, never, Accounts | RateLimiter | Market | Tickers> = Layer.effect(
  HotLane,
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const limiter = yield* RateLimiter
    const market = yield* Market
    const directory = yield* Tickers
    const runtime = yield* Effect.runtime<never>()
    const runFork = Runtime.runFork(runtime)
    const cache = makeResponseCache()
    const pending = new WeakMap<object, Pending>()

    const clock = yield* Effect.clock
    // the request log line is written as the API's middleware writes it (`Effect.logInfo`), by the
    // runtime's loggers and minimum level, without a fiber per request
    const loggers = FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentLoggers)
    const logs = !LogLevel.greaterThan(
      FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentMinimumLogLevel),
      LogLevel.Info
    )
    // with the service's logger (JSON lines on the batched sink) the line is made directly, the same
    // bytes (`infoLineFormat`); Effect's tracer logger beside it writes only into a current span, and
    // the lane has none. Any other logger (a test that captures logs) gets the general path
    const direct =
      HashSet.has(loggers, jsonLines) &&
      HashSet.every(loggers, (logger) => logger === jsonLines || logger === Logger.tracerLogger)
    const requestLine = infoLineFormat(REQUEST_LOG_KEYS)
    const logRequest = (values: ReadonlyArray<string | number>) => {
      if (!logs) return
      const date = new Date(clock.unsafeCurrentTimeMillis())
      if (direct) return writeLogLine(requestLine("request", values, date))
      const options = {
        fiberId: FiberId.none,
        logLevel: LogLevel.Info,
        message: ["request"],
        cause: Cause.empty,
        context: runtime.fiberRefs,
        spans: List.empty(),
        annotations: HashMap.fromIterable(REQUEST_LOG_KEYS.map((k, i) => [k, values[i]] as const)),
        date
      }
      for (const logger of loggers) logger.log(options)
    }

    interface Lookup {
      readonly kind: Kind
      readonly req: IncomingMessage
      readonly res: ServerResponse
      readonly body: string | undefined
      readonly startedNs: bigint
      /** hands the request to the API (once), asking for its answer to be cached under `wanted` */
      readonly passOn: (wanted?: Pending) => void
    }

    const bypass = (l: Lookup) => {
      hotLaneTotal.unsafeUpdate(1, outcomeLabels.bypass)
      l.passOn()
    }

    /** The cached answer for an authenticated hot read; undefined when the lane passed the request on. */
    const lookup = (l: Lookup, key: AuthenticatedKey): Entry | undefined => {
      // plan `none`: the API answers 402
      if (key.account.plan === "none") return void bypass(l)
      const url = l.req.url!
      const cacheKey =
        l.kind === "ticker"
          ? `T ${url}`
          : `S ${key.account.id} ${key.account.plan} ${l.kind === "scan-get" ? url : l.body}`
      const publication = market.publications()
      // only what was cacheable is in the cache (whether a scan is depends on its text alone)
      const entry = cache.get(cacheKey, publication)
      if (entry !== undefined) return entry
      if (l.kind !== "ticker") {
        const params = l.kind === "scan-get" ? scanParamsOfQuery(url) : scanParamsOfBody(l.body!)
        if (params === undefined || !cacheableScan(params, directory)) return void bypass(l)
      }
      hotLaneTotal.unsafeUpdate(1, outcomeLabels.miss)
      l.passOn({ key: cacheKey, publication })
      return undefined
    }

    /** Writes a cached answer as the API writes a 200: same bytes, same headers, log line, metrics. */
    const answer = (l: Lookup, entry: Entry, decision: Decision) => {
      // a refusal is not counted: the API checks again and answers the 429
      if (!decision.allowed) return bypass(l)
      const { req, res } = l
      const incoming = req.headers["x-request-id"]
      const requestId = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : newRequestId()
      res.writeHead(200, {
        "content-type": entry.contentType,
        "content-length": String(entry.body.length),
        "x-request-id": requestId,
        "x-ratelimit-limit": String(decision.limit),
        "x-ratelimit-remaining": String(Math.max(0, decision.remaining)),
        "x-ratelimit-reset": String(decision.resetSeconds)
      })
      res.end(entry.body)
      hotLaneTotal.unsafeUpdate(1, outcomeLabels.hit)
      const seconds = Number(process.hrtime.bigint() - l.startedNs) / 1e9
      const route = l.kind === "ticker" ? "/v2/tickers/:ticker" : "/v2/scan"
      const metricLabels = labelsFor(req.method!, route, 200)
      httpRequestsTotal.unsafeUpdate(1, metricLabels)
      httpRequestDuration.unsafeUpdate(seconds, metricLabels)
      const url = req.url!
      const query = url.indexOf("?")
      // REQUEST_LOG_KEYS, in order
      logRequest([
        requestId,
        req.method!,
        query < 0 ? url : url.slice(0, query),
        route,
        200,
        Math.round(seconds * 1e6) / 1e3,
        "hit"
      ])
    }

    const rateLimit = (key: AuthenticatedKey) =>
      [
        rateLimitKey.apiKey("general", key.keyId),
        limitFor("general", key.account.plan, key.account.customRateLimit)
      ] as const

    /** A hot read: at once when the key is cached and the limiter in process, else through a fiber. Never fails. */
    const serve = (l: Lookup, token: string) => {
      const now = clock.unsafeCurrentTimeMillis()
      const known = accounts.authenticateCached(token, now)
      if (known !== undefined && limiter.checkNow !== undefined) {
        try {
          const entry = lookup(l, known)
          if (entry !== undefined) answer(l, entry, limiter.checkNow(...rateLimit(known), now))
        } catch (error) {
          if (!l.res.headersSent) l.passOn()
          runFork(Effect.logError("hot lane failed", Cause.die(error)))
        }
        return
      }
      runFork(
        Effect.gen(function* () {
          const found = yield* accounts.authenticate(token).pipe(
            Effect.timeout(AUTH_WAIT),
            Effect.orElseSucceed(() => Option.none())
          )
          // unknown or revoked keys, database trouble (a database that hangs, too): the API answers those
          if (Option.isNone(found)) return bypass(l)
          const entry = lookup(l, found.value)
          if (entry === undefined) return
          answer(l, entry, yield* limiter.check(...rateLimit(found.value)))
        }).pipe(
          // a defect must not lose the request: the API answers it unless the answer started
          Effect.catchAllCause((cause) =>
            l.res.headersSent ? Effect.logError("hot lane failed after answering", cause) : Effect.sync(l.passOn)
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
      // at most once per request, whatever path passes it on; `target` is what the API reads:
      // the request itself, or (made only then) a replay of the body the lane read
      const passOn = (res: ServerResponse, target: () => IncomingMessage) => {
        let passed = false
        return (wanted?: Pending) => {
          if (passed) return
          passed = true
          const message = target()
          if (wanted !== undefined) pending.set(message, wanted)
          emit("request", message, res)
        }
      }
      server.emit = ((event: string | symbol, ...args: Array<any>): boolean => {
        if (event !== "request") return emit(event, ...args)
        const req = args[0] as IncomingMessage
        const res = args[1] as ServerResponse
        const kind = classify(req)
        const token = kind === undefined ? undefined : BEARER.exec(req.headers.authorization!)?.[1]
        if (kind === undefined || token === undefined || market.publications() === 0) {
          return emit(event, ...args)
        }
        const startedNs = process.hrtime.bigint()
        if (kind !== "scan-post") {
          serve({ kind, req, res, body: undefined, startedNs, passOn: passOn(res, () => req) }, token)
          return true
        }
        // the body, then the API gets a replay of it when the lane does not answer; a body that
        // is slow to come is handed over as it stands (the API's deadline then applies)
        const chunks: Array<Buffer> = []
        let size = 0
        const expected = Number(req.headers["content-length"])
        const onData = (chunk: Buffer) => {
          chunks.push(chunk)
          size += chunk.length
        }
        const onEnd = () => {
          cleanup()
          const body = Buffer.concat(chunks, size)
          const forward = passOn(res, () => replay(req, [body], true))
          if (size !== expected) return forward()
          serve({ kind, req, res, body: body.toString("utf8"), startedNs, passOn: forward }, token)
        }
        const onSlow = () => {
          cleanup()
          hotLaneTotal.unsafeUpdate(1, outcomeLabels.bypass)
          passOn(res, () => replay(req, chunks, false))()
        }
        const onAbort = () => cleanup()
        waiting.set(onSlow, performance.now() + BODY_WAIT_MS)
        const cleanup = () => {
          waiting.delete(onSlow)
          req.off("data", onData)
          req.off("end", onEnd)
          req.off("error", onAbort)
        }
        req.on("data", onData)
        req.once("end", onEnd)
        req.once("error", onAbort)
        return true
      }) as typeof server.emit
    }

    const fill: HotLaneShape["fill"] = (request, response) => {
      if (response.status !== 200 || response.body._tag !== "Uint8Array") return
      const source = NodeHttpServerRequest.toIncomingMessage(request)
      const wanted = pending.get(source)
      if (wanted === undefined) return
      pending.delete(source)
      // the snapshot has not moved since the request was tagged, so the API answered from it
      if (market.publications() !== wanted.publication) return
      cache.set(wanted.key, {
        publication: wanted.publication,
        body: response.body.body,
        contentType: response.body.contentType
      })
      hotLaneTotal.unsafeUpdate(1, outcomeLabels.filled)
    }

    return { install, fill } satisfies HotLaneShape
  })
)
