/**
 * The delivery workers: take due deliveries from the queue in the database
 * (with a lease, so several workers and instances never send one twice at
 * once, and a crashed worker's delivery is taken again when the lease
 * expires), send them on their channel and record the result.
 *
 * - `webhook`: a POST signed per Standard Webhooks, signed afresh on every
 *   attempt (new `webhook-timestamp`, same `webhook-id`), with the current
 *   signing secret and, during a rotation's overlap, the previous one too.
 * - `chat`: a Slack-compatible `{text}` summary POSTed to the chat URL.
 * - `in_app`: a row in the account's inbox (`GET /v2/notifications`).
 * - `mobile_push`: the push gateway, to the registered device.
 *
 * A 2xx is `delivered`. Anything else is retried after each delay of
 * `WEBHOOK_RETRY_SCHEDULE` (Retry-After on 429/503 honoured within the
 * schedule's bounds); when the schedule is exhausted the delivery is
 * `permanent_failure` and the webhook `disabled`. A 410 Gone fails the
 * delivery and disables the webhook at once. Test pings are sent once and
 * never disable a webhook.
 */
import { Clock, Context, Duration, Effect, FiberSet, Metric, MetricBoundaries, Queue, Schedule } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { Readiness } from "../observability/Readiness.js"
import { type AttemptResult, Deliveries, type DeliveryRecord } from "../store/deliveries.js"
import { type WebhookRecord, Webhooks } from "../store/webhooks.js"
import { chatMessage } from "./chat.js"
import type { AlertEvent } from "./event.js"
import { classify, nextAttemptDelayMs, retryAfterHint, scheduleMillis } from "./outcome.js"
import { PushGateway } from "./push.js"
import { webhookHeaders } from "./signing.js"
import { DeliveryTransport, type PostResult } from "./transport.js"
import { DeliveryWake } from "./wake.js"

/** How long a claimed delivery is reserved for its worker: well past the 10 s attempt deadline. */
export const LEASE_MS = 60_000
/**
 * The longest the workers wait before looking at the queue again when nothing
 * woke them (deliveries queued by another instance). Otherwise they sleep
 * exactly until the next pending delivery is due or its lease expires.
 */
export class DeliveryPollInterval extends Context.Reference<DeliveryPollInterval>()("vigil/DeliveryPollInterval", {
  defaultValue: () => 1_000
}) {}
/**
 * A result that could not be recorded (the database is down) is retried, backing off up to 2 s,
 * while its delivery's lease has at least this much left; after that it is left to the lease.
 */
const RECORD_MARGIN_MS = 10_000
/** deliveries claimed at once */
const BATCH = 128
/** the claim loop waits for room for at least this many before claiming again */
const MIN_CLAIM = 32
/** deliveries claimed and not yet recorded, at most (the transport bounds each target host to 8 at once) */
const MAX_IN_FLIGHT = 512
/** attempts at once in `drain` */
const CONCURRENCY = 32

const deliveriesTotal = Metric.counter("webhook_delivery_attempts_total", {
  description: "Delivery attempts by channel and result (delivered, retry, failed)",
  incremental: true
})
const attemptDuration = Metric.histogram(
  "webhook_delivery_attempt_duration_seconds",
  MetricBoundaries.fromIterable([0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]),
  "Time of one delivery attempt"
)

/** the tagged counters, made once (tagging per attempt allocates a new metric key each time) */
const taggedAttempts = new Map<string, typeof deliveriesTotal>()
const attemptsCounter = (channel: string, result: string) => {
  const key = `${channel}/${result}`
  let counter = taggedAttempts.get(key)
  if (counter === undefined) {
    counter = deliveriesTotal.pipe(Metric.tagged("channel", channel), Metric.tagged("result", result))
    taggedAttempts.set(key, counter)
  }
  return counter
}

const nothing: PostResult = { status: null, retryAfterSeconds: null, error: null, durationMs: 0 }

const summary = (event: AlertEvent) => {
  const tickers = event.data.matches.slice(0, 5).map((m) => String(m.ticker))
  const more = event.data.match_count - tickers.length
  return {
    title: `${event.data.name}${event.data.test ? " (test)" : ""}`,
    body:
      event.data.match_count === 0
        ? "Test notification"
        : `${event.data.match_count} ${event.type === "webhook.cleared" ? "no longer matching" : "newly matching"}: ${tickers.join(", ")}${more > 0 ? ` and ${more} more` : ""}`
  }
}

export class DeliveryWorker extends Effect.Service<DeliveryWorker>()("vigil/DeliveryWorker", {
  scoped: Effect.gen(function* () {
    const config = yield* AppConfig
    const deliveries = yield* Deliveries
    const webhooks = yield* Webhooks
    const transport = yield* DeliveryTransport
    const push = yield* PushGateway
    const wake = yield* DeliveryWake
    const readiness = yield* Readiness
    const poll = yield* DeliveryPollInterval
    const schedule = scheduleMillis(config.webhookRetrySchedule)

    const send = (d: DeliveryRecord, w: WebhookRecord, now: number): Effect.Effect<PostResult> => {
      switch (w.channel) {
        case "webhook": {
          if (w.targetUrl === null || w.signingSecret === null) {
            return Effect.succeed({ ...nothing, error: "webhook has no target_url" })
          }
          const secrets =
            w.previousSecret !== null && w.previousSecretUntil !== null && w.previousSecretUntil > now
              ? [w.signingSecret, w.previousSecret]
              : [w.signingSecret]
          return transport.post(
            w.targetUrl,
            webhookHeaders(secrets, d.eventId, Math.floor(now / 1000), d.payload),
            d.payload
          )
        }
        case "chat": {
          if (w.chatUrl === null) return Effect.succeed({ ...nothing, error: "webhook has no chat_url" })
          const event = JSON.parse(d.payload) as AlertEvent
          const body = JSON.stringify(
            chatMessage({
              webhookName: event.data.name,
              q: event.data.q,
              asOf: event.data.as_of,
              test: event.data.test,
              cleared: event.type === "webhook.cleared",
              matchCount: event.data.match_count,
              rows: event.data.matches
            })
          )
          return transport.post(w.chatUrl, { "content-type": "application/json" }, body)
        }
        case "in_app": {
          const event = JSON.parse(d.payload) as AlertEvent
          const { title, body } = summary(event)
          return deliveries
            .addNotification(
              w.accountId,
              { id: `ntf_${d.id.slice(4)}`, webhookId: w.id, title, body, payload: d.payload },
              d.id
            )
            .pipe(
              Effect.as<PostResult>({ ...nothing, status: 200 }),
              Effect.catchAll((e) =>
                Effect.succeed<PostResult>({ ...nothing, error: `inbox write failed: ${e.message}` })
              )
            )
        }
        case "mobile_push": {
          if (w.deviceId === null) return Effect.succeed({ ...nothing, error: "webhook has no device_id" })
          return deliveries.device(w.accountId, w.deviceId).pipe(
            Effect.flatMap((device) => {
              if (device === undefined)
                return Effect.succeed<PostResult>({ ...nothing, error: "device not registered" })
              const event = JSON.parse(d.payload) as AlertEvent
              const { title, body } = summary(event)
              return push.send(device.token, device.platform, {
                title,
                body,
                data: { webhook_id: w.id, event_id: d.eventId, delivery_id: d.id }
              })
            }),
            Effect.catchAll((e) =>
              Effect.succeed<PostResult>({ ...nothing, error: `device lookup failed: ${e.message}` })
            )
          )
        }
      }
    }

    /** Decides the record of an attempt. */
    const decide = (d: DeliveryRecord, result: PostResult, now: number): AttemptResult => {
      const outcome = classify(result)
      const error = result.error ?? (result.status === null ? "no response" : `HTTP ${result.status}`)
      if (outcome === "delivered") return { _tag: "Delivered", statusCode: result.status }
      if (d.test) return { _tag: "Failed", statusCode: result.status, error, disableWebhook: false }
      if (outcome === "gone") {
        return {
          _tag: "Failed",
          statusCode: result.status,
          error: "410 Gone: the receiver asked to stop",
          disableWebhook: true
        }
      }
      const delay = nextAttemptDelayMs(schedule, d.attempt, retryAfterHint(result))
      return delay === null
        ? { _tag: "Failed", statusCode: result.status, error, disableWebhook: true }
        : { _tag: "Retry", statusCode: result.status, error, dueAt: now + delay }
    }

    /**
     * Completed attempts wait here to be recorded; the recorder takes all
     * that are waiting at once (group commit: one statement for many
     * deliveries, no timer — whatever finished during the previous write goes
     * into the next one).
     */
    const completed = yield* Queue.unbounded<readonly [DeliveryRecord, AttemptResult]>()
    /** deliveries claimed and not yet recorded */
    let inFlight = 0
    /** when each of them was claimed (epoch ms): its lease runs until LEASE_MS after */
    const claimedAt = new Map<string, number>()
    /** tells the claim loop that attempts were recorded (room, and perhaps an earlier retry to schedule) */
    const recorded = yield* Queue.sliding<void>(1)

    const attemptOne = (d: DeliveryRecord, w: WebhookRecord | undefined) =>
      Effect.gen(function* () {
        if (w === undefined) return undefined // the webhook was deleted (its deliveries go with it)
        const now = yield* Clock.currentTimeMillis
        const result = yield* send(d, w, now)
        const done = yield* Clock.currentTimeMillis
        const decision = decide(d, result, done)
        yield* Metric.update(attemptDuration, result.durationMs / 1000)
        yield* Metric.update(
          attemptsCounter(
            d.channel,
            decision._tag === "Delivered" ? "delivered" : decision._tag === "Retry" ? "retry" : "failed"
          ),
          1
        )
        return decision
      }).pipe(
        Effect.catchAllCause((cause) =>
          Effect.logError("delivery attempt failed unexpectedly; it is retried when its lease expires", cause).pipe(
            Effect.annotateLogs({ delivery_id: d.id }),
            Effect.as(undefined)
          )
        )
      )

    const release = (records: ReadonlyArray<DeliveryRecord>) =>
      Effect.suspend(() => {
        for (const d of records) claimedAt.delete(d.id)
        inFlight -= records.length
        return Queue.offer(recorded, undefined)
      })

    /** One attempt, handed to the recorder (or released at once when there is nothing to record). */
    const deliver = (d: DeliveryRecord, w: WebhookRecord | undefined) =>
      Effect.flatMap(attemptOne(d, w), (decision) =>
        decision === undefined ? release([d]) : Queue.offer(completed, [d, decision] as const)
      )

    const recorder = Effect.forever(
      Effect.gen(function* () {
        const first = yield* Queue.take(completed)
        const rest = yield* Queue.takeAll(completed)
        const batch = [first, ...rest]
        // while the database is down, keep the results and record them when it is back (no resend),
        // as long as the leases hold; past that, the deliveries are taken again when their leases expire
        const now = yield* Clock.currentTimeMillis
        const leaseLeft =
          Math.min(...batch.map(([d]) => claimedAt.get(d.id) ?? now)) + LEASE_MS - RECORD_MARGIN_MS - now
        const disabled = yield* deliveries.completeMany(batch).pipe(
          Effect.tapError(() =>
            Effect.logWarning("delivery results could not be recorded; retrying").pipe(
              Effect.annotateLogs({ deliveries: batch.length })
            )
          ),
          Effect.retry(
            Schedule.exponential("100 millis").pipe(
              Schedule.union(Schedule.spaced("2 seconds")),
              Schedule.upTo(Duration.millis(Math.max(0, leaseLeft)))
            )
          ),
          Effect.catchAllCause((cause) =>
            Effect.logError(
              "delivery attempts could not be recorded; they are retried when their leases expire",
              cause
            ).pipe(Effect.annotateLogs({ deliveries: batch.length }), Effect.as([] as ReadonlyArray<string>))
          )
        )
        for (const id of disabled) {
          const [d, r] = batch.find(([x]) => x.webhookId === id)!
          yield* Effect.logWarning("webhook disabled after failed delivery").pipe(
            Effect.annotateLogs({ webhook_id: id, delivery_id: d.id, last_status_code: r.statusCode ?? "none" })
          )
        }
        yield* release(batch.map(([d]) => d))
      })
    )

    /** Claims up to `limit` due deliveries and starts sending them; how many were claimed. */
    const claim = (limit: number) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const claimed = yield* deliveries.claimDue(limit, LEASE_MS)
        if (claimed.length === 0) return 0
        for (const d of claimed) claimedAt.set(d.id, now)
        // a failure here leaves the claimed deliveries to be taken again when their leases expire
        const targets = yield* webhooks.getMany([...new Set(claimed.map((d) => d.webhookId))])
        inFlight += claimed.length
        for (const d of claimed) yield* FiberSet.run(running, deliver(d, targets.get(d.webhookId)))
        return claimed.length
      })

    /** One pass (tests, tools): claims due deliveries, sends them and records the results; how many were claimed. */
    const drain = Effect.gen(function* () {
      const claimed = yield* deliveries.claimDue(BATCH, LEASE_MS)
      const targets = yield* webhooks.getMany([...new Set(claimed.map((d) => d.webhookId))])
      const results = yield* Effect.forEach(claimed, (d) => attemptOne(d, targets.get(d.webhookId)), {
        concurrency: CONCURRENCY
      })
      yield* deliveries.completeMany(
        claimed.flatMap((d, i) => (results[i] === undefined ? [] : [[d, results[i]!] as const]))
      )
      return claimed.length
    })

    /**
     * The claim loop keeps up to `MAX_IN_FLIGHT` deliveries in flight: it
     * claims more as soon as there is room for a batch, so one slow receiver
     * (bounded per host by the transport) never stops the others; when the
     * queue is empty it sleeps until the next delivery is due, a wake
     * (deliveries queued here), a recorded retry, or the poll interval.
     */
    const loop = Effect.gen(function* () {
      yield* readiness.await("migrations")
      for (;;) {
        const room = MAX_IN_FLIGHT - inFlight
        const want = Math.min(BATCH, room)
        const n =
          want < MIN_CLAIM
            ? 0
            : yield* claim(want).pipe(
                Effect.catchAllCause((cause) =>
                  Effect.logWarning("delivery queue unavailable; retrying", cause).pipe(Effect.as(-1))
                )
              )
        if (n === want && n > 0) continue
        if (want < MIN_CLAIM) {
          // full: wait until attempts are recorded
          yield* Queue.take(recorded)
          continue
        }
        const next = n < 0 ? undefined : yield* deliveries.nextDue.pipe(Effect.orElseSucceed(() => undefined))
        const now = yield* Clock.currentTimeMillis
        // at least 10 ms, so a due delivery another worker holds is not polled in a hot loop
        const wait = next === undefined ? poll : Math.max(n < 0 ? 1_000 : 10, Math.min(poll, next - now))
        yield* Effect.raceFirst(Effect.raceFirst(wake.next, Queue.take(recorded)), Effect.sleep(wait))
      }
    })
    const running = yield* FiberSet.make()
    yield* Effect.forkScoped(recorder)
    yield* Effect.forkScoped(loop)
    return { drain } as const
  })
}) {}
