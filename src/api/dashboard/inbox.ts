/**
 * The dashboard's live inbox (issue 18, item 7): `GET /dashboard/api/inbox/events`, server-sent
 * events for the signed-in session (its cookie: no key in the URL). Each notification of an
 * `in_app` webhook that arrives after the stream opened is sent once as
 * `event: notification` (the `/v2/notifications` item); a comment every 15 s keeps proxies from
 * closing an idle stream. The account's inbox is read every second (whichever instance stored the
 * notification: the store is shared); the stream ends when the session does.
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Duration, Effect, Either, Option, Schedule, Stream } from "effect"
import { DashboardSessions } from "../../accounts/DashboardSessions.js"
import { hasFeature, plansWith } from "../../accounts/plans.js"
import { Deliveries } from "../../store/deliveries.js"
import { refusal } from "../envelope.js"
import { notificationDoc } from "../notifications/inbox.js"
import { cookieSession, tokenOf } from "./cookieSession.js"

export const INBOX_EVENTS = "/dashboard/api/inbox/events"
/** how often the inbox is read for new notifications */
export const INBOX_POLL = Duration.seconds(1)
/** how many of the newest notifications each read looks at */
const NEWEST = 50
const HEARTBEAT_EVERY = 15

const encoder = new TextEncoder()

export const DashboardInboxLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const sessions = yield* DashboardSessions
    const store = yield* Deliveries
    yield* router.get(
      INBOX_EVENTS,
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const found = yield* cookieSession(sessions, request)
        if (Either.isLeft(found)) return found.left
        const session = found.right
        const token = tokenOf(request)
        if (!hasFeature(session.plan, "webhooks")) {
          return yield* refusal(
            403,
            "webhook_tier_required",
            `in-app notifications come from webhooks, on the ${plansWith("webhooks").join(", ")} plans; this account is on ${session.plan}`
          )
        }
        const accountId = session.user.accountId
        const newest = Effect.orElseSucceed(store.notifications(accountId, false, NEWEST), () => [])
        // what is there when the stream opens is not news
        const seen = new Set((yield* newest).map((n) => n.id))
        let ticks = 0
        const frames = Stream.fromSchedule(Schedule.spaced(INBOX_POLL)).pipe(
          Stream.mapEffect(() =>
            Effect.gen(function* () {
              ticks++
              const alive = yield* Effect.option(sessions.find(token))
              if (Option.isSome(alive) && Option.isNone(alive.value)) return undefined
              const fresh = (yield* newest).filter((n) => !seen.has(n.id)).reverse()
              for (const n of fresh) seen.add(n.id)
              if (seen.size > 10_000) for (const id of [...seen].slice(0, 5_000)) seen.delete(id)
              const text =
                fresh
                  .map((n) => `event: notification\nid: ${n.id}\ndata: ${JSON.stringify(notificationDoc(n))}\n\n`)
                  .join("") + (ticks % HEARTBEAT_EVERY === 0 ? ": still here\n\n" : "")
              return text
            })
          ),
          Stream.takeWhile((text): text is string => text !== undefined),
          Stream.filter((text) => text.length > 0),
          Stream.map((text) => encoder.encode(text))
        )
        return HttpServerResponse.stream(Stream.concat(Stream.make(encoder.encode(": open\n\n")), frames), {
          contentType: "text/event-stream",
          headers: { "cache-control": "no-cache", "x-accel-buffering": "no" }
        })
      })
    )
  })
)
