/**
 * The outbound HTTP transport of every delivery channel: one POST per attempt, through
 * undici and the safe dispatcher (src/delivery/targetSafety.ts).
 *
 * Guarantees:
 * - `post` never fails and never throws: every outcome is a `PostResult` (`status` null when
 *   there was no response — timeout, refused target, connection error — with a short human
 *   `error`).
 * - the URL is checked again with `validateTargetUrl`, and every address dialled is vetted
 *   (unless insecure targets are allowed);
 * - redirects are never followed: a 3xx comes back as its status with the error
 *   "redirect to <location> not followed";
 * - one overall deadline per attempt (`timeoutMs`, default 10 s) covers DNS, connect, TLS,
 *   sending, the response headers and reading the body; undici's headers/body timeouts are
 *   set to the same value as a second bound. The deadline is wall-clock time on purpose: it
 *   bounds real network I/O, and an Effect-Clock deadline would let a `TestClock.adjust`
 *   time out a request that is really in flight;
 * - at most `maxResponseBytes` (default 64 KiB) of a response are read; the rest is
 *   discarded by closing the connection;
 * - `Retry-After` (seconds or an HTTP date) is parsed on every response;
 * - at most `perHostConcurrency` (default 8) attempts run at once per target host (host and
 *   port), each host with its own FIFO permit gate (src/delivery/gate.ts — not
 *   `Effect.Semaphore`, whose release wakes every waiter), created on first use and dropped
 *   when idle, so
 *   one slow receiver cannot hold up the others. Waiting for a permit is not part of the
 *   attempt's deadline or its `durationMs`.
 */
import { Clock, Context, Effect, Either, Layer } from "effect"
import { request } from "undici"
import { AppConfig } from "../config/AppConfig.js"
import { type Gate, makeGate } from "./gate.js"
import { type LookupAll, safeDispatcher, validateTargetUrl } from "./targetSafety.js"

export interface PostResult {
  /** HTTP status of the response; null when there was none */
  readonly status: number | null
  /** the response's Retry-After in seconds (from a number or an HTTP date), if any */
  readonly retryAfterSeconds: number | null
  /**
   * a short human message when something went wrong, else null: "timeout after 10 s",
   * "redirect to <location> not followed" (with the 3xx status), "connection refused",
   * "target refused: private address 10.0.0.5 (resolved from …)", "response body cut off: …"
   * (with the status, which stands)
   */
  readonly error: string | null
  /** time of the attempt itself (not the wait for a host permit), read from the Effect Clock */
  readonly durationMs: number
}

export interface TransportOptions {
  readonly allowInsecure: boolean
  /** overall deadline of one attempt; default 10 000 */
  readonly timeoutMs?: number
  /** response bytes read at most; default 64 KiB */
  readonly maxResponseBytes?: number
  /** attempts in flight at once per target host:port; default 8 */
  readonly perHostConcurrency?: number
  /** TCP/TLS connect timeout; default min(timeoutMs, 5 000) */
  readonly connectTimeoutMs?: number
  /** name resolution (tests); default the system resolver */
  readonly lookup?: LookupAll
}

export interface Transport {
  readonly post: (url: string, headers: Record<string, string>, body: string) => Effect.Effect<PostResult>
  /** closes the connection pool (in-flight attempts finish, bounded by their deadline) */
  readonly close: Effect.Effect<void>
  /** target hosts with an attempt in flight or waiting (each holds one semaphore) */
  readonly activeHosts: () => number
}

export const DEFAULT_TIMEOUT_MS = 10_000
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024
export const DEFAULT_PER_HOST_CONCURRENCY = 8

/** "300 ms", "10 s", "2.5 s" */
export const formatMillis = (ms: number): string =>
  ms < 1000 ? `${Math.round(ms)} ms` : `${Number((ms / 1000).toFixed(1))} s`

/**
 * `Retry-After` as seconds from `nowMs`: a non-negative integer as is, an HTTP date as the
 * whole seconds until then (0 when past); null when absent or unreadable.
 */
export const parseRetryAfter = (value: string | ReadonlyArray<string> | undefined, nowMs: number): number | null => {
  const raw = Array.isArray(value) ? value[0] : (value as string | undefined)
  if (raw === undefined) return null
  const text = raw.trim()
  if (/^\d+$/.test(text)) {
    const n = Number(text)
    return Number.isSafeInteger(n) ? n : null
  }
  if (!/[a-z]/i.test(text)) return null
  const at = Date.parse(text)
  if (Number.isNaN(at)) return null
  return Math.max(0, Math.ceil((at - nowMs) / 1000))
}

const codeOf = (e: unknown): string | undefined => {
  const code = (e as { code?: unknown } | null)?.code
  return typeof code === "string" ? code : undefined
}

/** A short human message for a failed attempt. */
export const describeFailure = (e: unknown, timedOut: boolean, timeoutMs: number): string => {
  if (timedOut) return `timeout after ${formatMillis(timeoutMs)}`
  const chain: Array<unknown> = []
  for (let x: unknown = e; x !== undefined && x !== null && chain.length < 5; x = (x as { cause?: unknown }).cause)
    chain.push(x)
  for (const x of chain) {
    const code = codeOf(x)
    const message = x instanceof Error ? x.message : String(x)
    switch (code) {
      case "VIGIL_TARGET_REFUSED":
        return message
      case "UND_ERR_HEADERS_TIMEOUT":
      case "UND_ERR_BODY_TIMEOUT":
        return `timeout after ${formatMillis(timeoutMs)}`
      case "UND_ERR_CONNECT_TIMEOUT":
        return "connect timeout"
      case "ECONNREFUSED":
        return "connection refused"
      case "ENOTFOUND":
        return "host not found"
      case "EAI_AGAIN":
        return "DNS lookup failed (temporary)"
      case "ECONNRESET":
      case "EPIPE":
        return "connection reset by the target"
      case "UND_ERR_SOCKET":
        return "connection closed by the target"
      case "EHOSTUNREACH":
      case "ENETUNREACH":
        return "host unreachable"
      case "UND_ERR_CLOSED":
      case "UND_ERR_DESTROYED":
        return "transport closed"
    }
    if (
      code !== undefined &&
      /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL|HOSTNAME_MISMATCH)/.test(code)
    )
      return `TLS error: ${code}`
  }
  const first = chain[0]
  const message = first instanceof Error ? first.message : String(first)
  return `request failed: ${message.slice(0, 200)}`
}

/** A transport; see the module comment. Close it when done (or use `DeliveryTransport`). */
export const makeTransport = (options: TransportOptions): Transport => {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
  const perHost = Math.max(1, options.perHostConcurrency ?? DEFAULT_PER_HOST_CONCURRENCY)
  const dispatcher = safeDispatcher({
    allowInsecure: options.allowInsecure,
    connectTimeoutMs: options.connectTimeoutMs ?? Math.min(timeoutMs, 5_000),
    ...(options.lookup ? { lookup: options.lookup } : {}),
    agentOptions: { connections: perHost, headersTimeout: timeoutMs, bodyTimeout: timeoutMs }
  })

  const hosts = new Map<string, Gate>()
  const withHostPermit = <A>(host: string, effect: Effect.Effect<A>): Effect.Effect<A> =>
    Effect.suspend(() => {
      let gate = hosts.get(host)
      if (gate === undefined) {
        gate = makeGate(perHost)
        hosts.set(host, gate)
      }
      const held = gate
      return held.withPermit(effect).pipe(
        Effect.ensuring(
          Effect.sync(() => {
            if (held.active() === 0 && held.waiting() === 0 && hosts.get(host) === held) hosts.delete(host)
          })
        )
      )
    })

  type Attempt = Omit<PostResult, "durationMs">

  /** One attempt under one AbortController, aborted by the deadline or by interruption. */
  const attempt = (url: URL, headers: Record<string, string>, body: string, nowMs: number): Effect.Effect<Attempt> =>
    Effect.async<Attempt>((resume) => {
      const controller = new AbortController()
      const deadline = { passed: false }
      const timer = setTimeout(() => {
        deadline.passed = true
        controller.abort(new Error(`timeout after ${formatMillis(timeoutMs)}`))
      }, timeoutMs)
      attemptWithin(url, headers, body, controller.signal, deadline, nowMs).then(
        (result) => {
          clearTimeout(timer)
          resume(Effect.succeed(result))
        },
        (defect: unknown) => {
          clearTimeout(timer)
          resume(Effect.die(defect))
        }
      )
      return Effect.sync(() => {
        clearTimeout(timer)
        controller.abort(new Error("interrupted"))
      })
    })

  const attemptWithin = async (
    url: URL,
    headers: Record<string, string>,
    body: string,
    signal: AbortSignal,
    deadline: { readonly passed: boolean },
    nowMs: number
  ): Promise<Attempt> => {
    let response: Awaited<ReturnType<typeof request>>
    try {
      response = await request(url, { method: "POST", headers, body, dispatcher, signal })
    } catch (e) {
      return { status: null, retryAfterSeconds: null, error: describeFailure(e, deadline.passed, timeoutMs) }
    }
    const status = response.statusCode
    const retryAfterSeconds = parseRetryAfter(response.headers["retry-after"], nowMs)
    let error: string | null = null
    if (status >= 300 && status < 400) {
      const location = response.headers.location
      const to = Array.isArray(location) ? location[0] : location
      error = to ? `redirect to ${to.slice(0, 200)} not followed` : "redirect not followed"
    }
    try {
      let read = 0
      for await (const chunk of response.body) {
        read += (chunk as Buffer).length
        if (read >= maxResponseBytes) break // leaving the loop destroys the body (and its connection)
      }
    } catch (e) {
      // the status is known; a body that stalls or breaks does not change the outcome
      if (error === null && deadline.passed) error = `response body cut off: ${describeFailure(e, true, timeoutMs)}`
    } finally {
      if (!response.body.readableEnded && !response.body.destroyed) response.body.destroy()
    }
    return { status, retryAfterSeconds, error }
  }

  const post = (url: string, headers: Record<string, string>, body: string): Effect.Effect<PostResult> =>
    Either.match(validateTargetUrl(url, { allowInsecure: options.allowInsecure }), {
      onLeft: (refused) =>
        Effect.succeed<PostResult>({
          status: null,
          retryAfterSeconds: null,
          error: `target refused: ${refused.reason}`,
          durationMs: 0
        }),
      onRight: (parsed) =>
        withHostPermit(
          parsed.host,
          Effect.gen(function* () {
            const start = yield* Clock.currentTimeMillis
            const result = yield* attempt(parsed, headers, body, start)
            const end = yield* Clock.currentTimeMillis
            return { ...result, durationMs: Math.max(0, end - start) }
          })
        ).pipe(
          Effect.catchAllDefect((defect) =>
            Effect.succeed<PostResult>({
              status: null,
              retryAfterSeconds: null,
              error: describeFailure(defect, false, timeoutMs),
              durationMs: 0
            })
          )
        )
    })

  const close = Effect.tryPromise(() => dispatcher.close()).pipe(Effect.ignore)

  return { post, close, activeHosts: () => hosts.size }
}

/**
 * The transport as a service. `DeliveryTransport.layer` reads `WEBHOOK_ALLOW_INSECURE_TARGETS`
 * from AppConfig and uses the defaults above; the connection pool closes with the layer's scope.
 */
export class DeliveryTransport extends Context.Tag("vigil/DeliveryTransport")<
  DeliveryTransport,
  Pick<Transport, "post" | "activeHosts">
>() {
  static readonly layerWith = (options: TransportOptions): Layer.Layer<DeliveryTransport> =>
    Layer.scoped(
      DeliveryTransport,
      Effect.acquireRelease(
        Effect.sync(() => makeTransport(options)),
        (t) => t.close
      )
    )

  static readonly layer: Layer.Layer<DeliveryTransport, never, AppConfig> = Layer.unwrapEffect(
    Effect.map(AppConfig, (config) =>
      DeliveryTransport.layerWith({ allowInsecure: config.webhookAllowInsecureTargets })
    )
  )
}
