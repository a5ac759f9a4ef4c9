/**
 * The `mobile_push` channel's gateway: one interface, two implementations.
 *
 * - `PushGateway.recording` (the default; `PushGateway.recordingWith(capacity)` for another
 *   size): sends nothing anywhere. It keeps the last 100 pushes in memory — readable through
 *   `recent` by tests and by an operator — answers each with status 202, and logs every push
 *   at info level without secrets (the device token is shown as its first 6 characters and
 *   its length only; the notification's data as its keys only).
 *
 * - `PushGateway.http(url, options)`: POSTs every push as JSON
 *   `{"token", "platform", "title", "body", "data"}` to a push gateway of the operator's
 *   choosing (for example a small service in front of APNs/FCM) through the delivery
 *   transport: 10 s deadline, redirects not followed, the response read up to 64 KiB,
 *   `Retry-After` parsed. The gateway's answer is the `PostResult` (2xx delivered, 410 gone:
 *   the device token is no longer valid, anything else retried by the caller's schedule).
 *   The URL is operator configuration, not user input, so it may be an internal or `http://`
 *   address; `options.headers` carries the gateway's credentials (never logged). Pushes are
 *   recorded in `recent` as well, with their results.
 */
import { Context, Effect, Layer } from "effect"
import { USER_AGENT } from "./signing.js"
import { makeTransport, type PostResult } from "./transport.js"

export interface PushNotification {
  readonly title: string
  readonly body: string
  readonly data: Record<string, string>
}

export interface RecordedPush {
  readonly deviceToken: string
  readonly platform: string
  readonly notification: PushNotification
  readonly result: PostResult
}

export interface PushGatewayService {
  readonly send: (deviceToken: string, platform: string, notification: PushNotification) => Effect.Effect<PostResult>
  /** the most recent pushes, oldest first */
  readonly recent: Effect.Effect<ReadonlyArray<RecordedPush>>
}

export const DEFAULT_RECORDED_PUSHES = 100

/** A device token as it may appear in logs: "abcdef…(64 chars)". */
export const maskToken = (token: string): string => `${token.slice(0, 6)}…(${token.length} chars)`

const makeRing = (capacity: number) => {
  const items: Array<RecordedPush> = []
  return {
    add: (item: RecordedPush) => {
      items.push(item)
      if (items.length > capacity) items.splice(0, items.length - capacity)
    },
    read: Effect.sync((): ReadonlyArray<RecordedPush> => items.slice())
  }
}

const logPush = (gateway: string, deviceToken: string, platform: string, n: PushNotification, result: PostResult) =>
  Effect.logInfo("push sent").pipe(
    Effect.annotateLogs({
      gateway,
      device: maskToken(deviceToken),
      platform,
      title: n.title,
      data_keys: Object.keys(n.data).join(","),
      status: result.status ?? "none",
      ...(result.error ? { error: result.error } : {})
    })
  )

export class PushGateway extends Context.Tag("vigil/PushGateway")<PushGateway, PushGatewayService>() {
  static readonly recordingWith = (capacity: number = DEFAULT_RECORDED_PUSHES): Layer.Layer<PushGateway> =>
    Layer.sync(PushGateway, () => {
      const ring = makeRing(Math.max(1, capacity))
      return {
        send: (deviceToken, platform, notification) =>
          Effect.gen(function* () {
            const result: PostResult = { status: 202, retryAfterSeconds: null, error: null, durationMs: 0 }
            ring.add({ deviceToken, platform, notification, result })
            yield* logPush("recording", deviceToken, platform, notification, result)
            return result
          }),
        recent: ring.read
      }
    })

  static readonly recording: Layer.Layer<PushGateway> = PushGateway.recordingWith()

  static readonly http = (
    url: string,
    options: {
      readonly headers?: Record<string, string>
      readonly timeoutMs?: number
      readonly capacity?: number
    } = {}
  ): Layer.Layer<PushGateway> =>
    Layer.scoped(
      PushGateway,
      Effect.gen(function* () {
        const transport = yield* Effect.acquireRelease(
          Effect.sync(() =>
            makeTransport({
              allowInsecure: true,
              ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {})
            })
          ),
          (t) => t.close
        )
        const ring = makeRing(Math.max(1, options.capacity ?? DEFAULT_RECORDED_PUSHES))
        const headers = {
          ...options.headers,
          "content-type": "application/json",
          "user-agent": USER_AGENT
        }
        return {
          send: (deviceToken, platform, notification) =>
            Effect.gen(function* () {
              const body = JSON.stringify({
                token: deviceToken,
                platform,
                title: notification.title,
                body: notification.body,
                data: notification.data
              })
              const result = yield* transport.post(url, headers, body)
              ring.add({ deviceToken, platform, notification, result })
              yield* logPush("http", deviceToken, platform, notification, result)
              return result
            }),
          recent: ring.read
        }
      })
    )
}
