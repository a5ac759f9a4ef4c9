/**
 * Firing options through the evaluator and the store (PGlite, and PostgreSQL when DATABASE_URL is
 * set), in simulated time: exit events, hysteresis, pending, repeat, cooldown, snooze; every event
 * numbered gap-free in the feed, its body the delivered payload; a new evaluator carries on from
 * the stored state.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, TestClock } from "effect"
import { Alerts } from "../../../src/alerts/Alerts.js"
import { DEFAULT_FIRING } from "../../../src/alerts/firing/options.js"
import { Universes } from "../../../src/store/universes.js"
import { WebhookEvents } from "../../../src/store/webhookEvents.js"
import { backends } from "../../support/backends.js"
import { layerFor, snapshot, webhook } from "../support.js"

const MIN = 60_000
const T0 = Date.UTC(2026, 10, 23, 15)

interface FeedRow {
  readonly sequence: number
  readonly type: string
  readonly suppressed: boolean
  readonly data_as_of: number
  readonly body: string
}

/** the webhook's feed, and the payloads queued for delivery */
const feed = (webhookId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const events = yield* sql<FeedRow & { stored: string | null }>`SELECT e.sequence, e.type, e.suppressed,
        e.data_as_of, coalesce(e.body, d.payload) AS body, e.body AS stored
      FROM webhook_events e LEFT JOIN deliveries d ON d.id = e.delivery_id
      WHERE e.webhook_id = ${webhookId} ORDER BY e.sequence`
    // a body is stored once: with its delivery, or (suppressed) with the event
    for (const e of events) expect(e.stored === null, `event ${e.sequence}`).toBe(!e.suppressed)
    const delivered = yield* sql<{ event: string; payload: string }>`SELECT event, payload FROM deliveries
      WHERE webhook_id = ${webhookId} ORDER BY created_at, id`
    return {
      events: events.map((e) => ({ ...e, sequence: Number(e.sequence), data_as_of: Number(e.data_as_of) })),
      delivered
    }
  })

/** each event as `<type> <tickers>` (repeated rows marked `+`) */
const summary = (rows: ReadonlyArray<{ readonly body: string }>) =>
  rows.map((r) => {
    const e = JSON.parse(r.body)
    const tickers = e.data.matches.map((m: any) => `${m.ticker}${m.repeat === true ? "+" : ""}`).sort()
    return `${e.type === "webhook.cleared" ? "cleared" : "fired"} ${tickers.join(",")}`
  })

for (const backend of backends()) {
  describe(`firing options in the evaluator (${backend.name})`, () => {
    const setup = Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_a', 'pro', 1, 1)`
      yield* TestClock.setTime(T0)
      return yield* Alerts
    })
    /** evaluates at T0 + `minute` minutes with these RSI values (the others 50) */
    const at = (alerts: Alerts, minute: number, rsi: Record<string, number>) =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0 + minute * MIN)
        const r = yield* alerts.evaluate(snapshot(T0 + minute * MIN - 5_000, {}, rsi))
        expect(r).not.toHaveProperty("error")
        return r
      })

    it.scoped(
      "fire_on both with clear_q: enters under 30, leaves above 40 only; each event numbered, its body the payload",
      () =>
        Effect.gen(function* () {
          const alerts = yield* setup
          yield* webhook("wh_h", "rsi_14 < 30", "realtime", null, {
            ...DEFAULT_FIRING,
            fireOn: "both",
            clearQ: "rsi_14 > 40"
          })
          yield* webhook("wh_plain", "rsi_14 < 30")
          yield* at(alerts, 1, { AAA: 28, BBB: 25 })
          yield* at(alerts, 2, { AAA: 35, BBB: 25 }) // AAA: q false, clear_q not yet: still inside
          yield* at(alerts, 3, { AAA: 41, BBB: 45 }) // both leave
          yield* at(alerts, 4, { AAA: 29, BBB: 45 }) // AAA again
          const { events, delivered } = yield* feed("wh_h")
          expect(summary(events)).toEqual(["fired AAA,BBB", "cleared AAA,BBB", "fired AAA"])
          expect(events.map((e) => e.sequence)).toEqual([1, 2, 3])
          expect(events.map((e) => e.body)).toEqual(delivered.map((d) => d.payload))
          expect(delivered.map((d) => d.event)).toEqual(["webhook.fired", "webhook.cleared", "webhook.fired"])
          const cleared = JSON.parse(events[1]!.body)
          expect(cleared.data).toMatchObject({
            sequence: 2,
            data_as_of: new Date(T0 + 3 * MIN - 5_000).toISOString(),
            match_count: 2
          })
          // rows carry their current values
          expect(cleared.data.matches.map((m: any) => m.rsi_14).sort()).toEqual([41, 45])
          expect(events[1]!.data_as_of).toBe(T0 + 3 * MIN - 5_000)
          // the plain webhook: AAA left at minute 2 and came back at 4; no exit events
          expect(summary((yield* feed("wh_plain")).events)).toEqual(["fired AAA,BBB", "fired AAA"])
          const plain = JSON.parse((yield* feed("wh_plain")).events[1]!.body)
          expect(plain.data.sequence).toBe(2)
        }).pipe(Effect.provide(layerFor(backend.layer()))),
      60_000
    )

    it.scoped(
      "pending_for, repeat_interval and cooldown, carried on by a new evaluator from the stored state",
      () =>
        Effect.gen(function* () {
          const alerts = yield* setup
          yield* webhook("wh_pending", "rsi_14 < 30", "realtime", null, { ...DEFAULT_FIRING, pendingMs: 3 * MIN })
          yield* webhook("wh_repeat", "rsi_14 < 30", "realtime", null, { ...DEFAULT_FIRING, repeatMs: 2 * MIN })
          yield* webhook("wh_cool", "rsi_14 < 30", "realtime", null, { ...DEFAULT_FIRING, cooldownMs: 10 * MIN })
          yield* at(alerts, 1, { AAA: 20 })
          yield* at(alerts, 2, { AAA: 20 })
          // a new process from here on: the memory (pending since, last sent, last fired) is in the store
          const b = Context.get(yield* Layer.build(Layer.fresh(Alerts.Default)), Alerts)
          yield* at(b, 3, { AAA: 20 }) // unchanged matches: the repeat is due all the same
          yield* at(b, 4, { AAA: 20 }) // pending for 3 minutes: enters
          yield* at(b, 5, { AAA: 40 }) // leaves
          yield* at(b, 6, { AAA: 20 }) // cooling (fired at 1): absorbed
          yield* at(b, 7, { AAA: 40 })
          yield* at(b, 12, { AAA: 20 }) // 11 minutes after the fire
          // in at 4 (pending since 1); back at 6 but out at 7 before 3 minutes; pending again since 12
          expect(summary((yield* feed("wh_pending")).events)).toEqual(["fired AAA"])
          expect(summary((yield* feed("wh_repeat")).events)).toEqual([
            "fired AAA",
            "fired AAA+",
            "fired AAA",
            "fired AAA"
          ])
          expect(summary((yield* feed("wh_cool")).events)).toEqual(["fired AAA", "fired AAA"])
          const sequences = (yield* feed("wh_repeat")).events.map((e) => e.sequence)
          expect(sequences).toEqual([1, 2, 3, 4])
        }).pipe(Effect.provide(layerFor(backend.layer()))),
      60_000
    )

    it.scoped(
      "clear_q over the whole market: a ticker that left the universe still leaves when clear_q holds",
      () =>
        Effect.gen(function* () {
          const alerts = yield* setup
          const universes = yield* Universes
          yield* universes.create({
            accountId: "acc_a",
            id: "few",
            name: "Few",
            description: null,
            tickers: ["AAA"]
          })
          yield* webhook("wh_u", "rsi_14 < 30", "realtime", "few", {
            ...DEFAULT_FIRING,
            fireOn: "both",
            clearQ: "rsi_14 > 40"
          })
          yield* at(alerts, 1, { AAA: 20, BBB: 20 })
          yield* universes.update("acc_a", "few", { tickers: ["BBB"] })
          yield* at(alerts, 2, { AAA: 35 }) // out of the universe, clear_q false: still inside
          yield* at(alerts, 3, { AAA: 45 })
          expect(summary((yield* feed("wh_u")).events)).toEqual(["fired AAA", "cleared AAA"])
        }).pipe(Effect.provide(layerFor(backend.layer()))),
      60_000
    )

    it.scoped(
      "the feed keeps events until pruned by age (EVENT_RETENTION), the newest kept",
      () =>
        Effect.gen(function* () {
          const alerts = yield* setup
          yield* webhook("wh_r", "rsi_14 < 30", "realtime", null, { ...DEFAULT_FIRING, fireOn: "both" })
          yield* at(alerts, 1, { AAA: 20 })
          yield* at(alerts, 2, { AAA: 50 })
          yield* at(alerts, 3, { AAA: 20 })
          const events = yield* WebhookEvents
          expect(yield* events.prune(T0 + 2 * MIN + 1)).toBe(2)
          const page = yield* events.page("wh_r", 0, 10)
          expect(page.oldest).toBe(3)
          expect(page.events.map((e) => e.sequence)).toEqual([3])
          expect(yield* events.prune(T0)).toBe(0)
        }).pipe(Effect.provide(WebhookEvents.Default.pipe(Layer.provideMerge(layerFor(backend.layer()))))),
      60_000
    )

    it.scoped(
      "the stale-data guard: a tick whose data is over 3 refresh intervals old evaluates nothing; fresh data resumes",
      () =>
        Effect.gen(function* () {
          const alerts = yield* setup
          yield* webhook("wh_st", "rsi_14 < 30", "realtime", null, { ...DEFAULT_FIRING, repeatMs: MIN })
          yield* at(alerts, 1, { AAA: 20 })
          // ticks go on at minute 10 with the data of minute 2 (the feed paused): 8 minutes > 3 × 60 s
          yield* TestClock.setTime(T0 + 10 * MIN)
          const held = snapshot(T0 + 2 * MIN, {}, { AAA: 20, BBB: 20 })
          const tick = { seq: 1, asOf: T0 + 10 * MIN, due: ["realtime" as const], imports: 0, request: 0 }
          const stale = yield* alerts.evaluate(held, tick)
          expect(stale).toMatchObject({ ok: true, stale: true, evaluated: 0, fires: 0 })
          // 2 minutes old: not stale yet, evaluated
          yield* TestClock.setTime(T0 + 11 * MIN)
          const fresh = yield* alerts.evaluate(snapshot(T0 + 9 * MIN, {}, { AAA: 20, BBB: 20 }), {
            ...tick,
            seq: 2,
            asOf: T0 + 11 * MIN
          })
          expect(fresh.stale).toBeUndefined()
          expect(summary((yield* feed("wh_st")).events)).toEqual(["fired AAA", "fired AAA+,BBB"])
        }).pipe(Effect.provide(layerFor(backend.layer()))),
      60_000
    )

    it.scoped(
      "snoozed: events go to the feed suppressed, nothing is delivered, and nothing is re-sent after",
      () =>
        Effect.gen(function* () {
          const alerts = yield* setup
          const sql = yield* SqlClient.SqlClient
          yield* webhook("wh_s", "rsi_14 < 30", "realtime", null, { ...DEFAULT_FIRING, fireOn: "both" })
          yield* sql`UPDATE webhooks SET snoozed_until = ${T0 + 3 * MIN}, version = nextval('webhook_version')
            WHERE id = 'wh_s'`
          yield* at(alerts, 1, { AAA: 20 })
          yield* at(alerts, 2, { AAA: 50 })
          yield* at(alerts, 4, { BBB: 20 })
          const { events, delivered } = yield* feed("wh_s")
          expect(summary(events)).toEqual(["fired AAA", "cleared AAA", "fired BBB"])
          expect(events.map((e) => [e.sequence, e.suppressed])).toEqual([
            [1, true],
            [2, true],
            [3, false]
          ])
          expect(summary(delivered.map((d) => ({ body: d.payload })))).toEqual(["fired BBB"])
        }).pipe(Effect.provide(layerFor(backend.layer()))),
      60_000
    )
  })
}
