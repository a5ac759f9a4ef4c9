/**
 * The evaluator and its actors against the real store (PGlite, and
 * PostgreSQL when DATABASE_URL is set) with hand-made snapshots, in
 * simulated time: first evaluation fires every current match once, state-change
 * deduplication across ticks, enable semantics, cadences, universes, identical
 * predicates evaluated once, and an actor crash that loses nothing.
 */

import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Option, TestClock } from "effect"
import { Alerts } from "../../src/alerts/Alerts.js"
import { isDue, nextInstant, parseCadence } from "../../src/alerts/cadence.js"
import { firedEvent, fireOrder, MAX_FIRE_ROWS } from "../../src/alerts/payload.js"
import { Universes } from "../../src/store/universes.js"
import { Webhooks } from "../../src/store/webhooks.js"
import { backends } from "../support/backends.js"
import { layerFor, queued, snapshot, webhook } from "./support.js"

const stored = (id: string) => Effect.flatMap(Webhooks, (w) => w.getById(id))

describe("cadences and payloads (pure)", () => {
  it("parses cadences: 1m is realtime; 5m and 15m are refused", () => {
    expect(parseCadence("1m")).toBe("realtime")
    expect(parseCadence("REALTIME")).toBe("realtime")
    expect(parseCadence("hourly")).toBe("hourly")
    expect(parseCadence("exchange_open")).toBe("exchange_open")
    expect(parseCadence("5m")).toBeUndefined()
    expect(parseCadence("15m")).toBeUndefined()
  })

  it("hourly is due on the first refresh at or after each top of the hour", () => {
    const h = Date.UTC(2026, 10, 23, 14)
    expect(isDue("hourly", h - 60_000, h - 1)).toBe(false)
    expect(isDue("hourly", h - 60_000, h)).toBe(true)
    expect(isDue("hourly", h, h + 59 * 60_000)).toBe(false)
    expect(isDue("hourly", undefined, h)).toBe(false)
    expect(nextInstant("hourly", h, 60_000)).toBe(h + 3_600_000)
    expect(isDue("realtime", undefined, 0)).toBe(true)
  })

  it("exchange_open is due at 09:30 New York on trading days only", () => {
    // Monday 2026-11-23: 09:30 EST is 14:30 UTC
    const open = Date.UTC(2026, 10, 23, 14, 30)
    expect(isDue("exchange_open", open - 60_000, open)).toBe(true)
    expect(isDue("exchange_open", open, open + 3_600_000)).toBe(false)
    // Thursday 2026-11-26 is Thanksgiving: the next open after Wednesday's is Friday's
    const wednesdayOpen = Date.UTC(2026, 10, 25, 14, 30)
    expect(nextInstant("exchange_open", wednesdayOpen, 0)).toBe(Date.UTC(2026, 10, 27, 14, 30))
    // Saturday → Monday
    expect(nextInstant("exchange_open", Date.UTC(2026, 10, 28, 12), 0)).toBe(Date.UTC(2026, 10, 30, 14, 30))
  })

  it("orders fired rows by market cap descending, nulls last, and truncates at 100 with match_count", () => {
    const s = snapshot(0, {})
    expect(fireOrder(s, ["AAA", "DDD", "CCC", "BBB"])).toEqual(["CCC", "BBB", "AAA", "DDD"])
    const many = Array.from({ length: 150 }, (_, i) => `T${i}`)
    const event = firedEvent({
      webhookId: "wh_x",
      name: "n",
      q: "q",
      snapshot: s,
      added: many,
      fields: [],
      test: false,
      now: 0
    })
    expect(event.data.matches).toHaveLength(MAX_FIRE_ROWS)
    expect(event.data).toMatchObject({ match_count: 150, truncated: true })
  })
})

for (const backend of backends()) {
  describe(`alerts evaluator (${backend.name})`, () => {
    it.scoped(
      "fires once per newly matching ticker, never twice for one transition, and keeps state in the store",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_a', 'pro', 1, 1)`
          yield* TestClock.setTime(Date.UTC(2026, 10, 23, 12))
          const alerts = yield* Alerts
          yield* webhook("wh_1", "price > 10")
          yield* webhook("wh_2", "price  >  10") // same predicate, spelled differently
          yield* webhook("wh_3", "price > 10 AND ticker != 'AAA'")

          const r1 = yield* alerts.evaluate(snapshot(1_000, { AAA: 11, BBB: 12 }))
          expect(r1).not.toHaveProperty("error")
          expect(r1).toMatchObject({ ok: true, evaluated: 3, fires: 3 })
          expect((yield* queued("wh_1")).map((d) => d.matches.map((m) => m.ticker))).toEqual([["BBB", "AAA"]])
          expect((yield* queued("wh_3")).map((d) => d.matches.map((m) => m.ticker))).toEqual([["BBB"]])
          expect((yield* stored("wh_1"))?.lastMatchSet).toEqual(["AAA", "BBB"])

          // same matches: nothing; AAA leaves: state changes, no fire; AAA returns: one fire with AAA only
          expect((yield* alerts.evaluate(snapshot(2_000, { AAA: 11, BBB: 12 }))).fires).toBe(0)
          expect((yield* alerts.evaluate(snapshot(3_000, { BBB: 12 }))).fires).toBe(0)
          expect((yield* stored("wh_1"))?.lastMatchSet).toEqual(["BBB"])
          expect((yield* alerts.evaluate(snapshot(4_000, { AAA: 11, BBB: 12, CCC: 13 }))).fires).toBe(3)
          const fires = yield* queued("wh_1")
          expect(fires.map((d) => d.matches.map((m) => m.ticker).sort())).toEqual([
            ["AAA", "BBB"],
            ["AAA", "CCC"]
          ])
          expect(fires[1]!.matches[0]).toHaveProperty("rsi_14", 50)
        }).pipe(Effect.provide(layerFor(backend.layer()))),
      60_000
    )

    it.scoped(
      "two instances evaluating the same ticks fire each transition exactly once",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_a', 'pro', 1, 1)`
          yield* TestClock.setTime(Date.UTC(2026, 10, 23, 12))
          const a = yield* Alerts
          const b = Context.get(yield* Layer.build(Layer.fresh(Alerts.Default)), Alerts)
          yield* webhook("wh_m", "price > 10")
          yield* a.resync
          yield* b.resync
          const s1 = snapshot(1_000, { AAA: 11 })
          const s2 = snapshot(2_000, { AAA: 11, BBB: 11 })
          expect((yield* a.evaluate(s1)).fires).toBe(1)
          expect((yield* b.evaluate(s1)).fires).toBe(0)
          expect((yield* b.evaluate(s2)).fires).toBe(1)
          expect((yield* a.evaluate(s2)).fires).toBe(0)
          expect((yield* a.evaluate(snapshot(3_000, { BBB: 11 }))).fires).toBe(0)
          expect((yield* b.evaluate(snapshot(3_000, { AAA: 11, BBB: 11 }))).fires).toBe(1)
          expect((yield* queued("wh_m")).map((d) => d.matches.map((m) => m.ticker))).toEqual([
            ["AAA"],
            ["BBB"],
            ["AAA"]
          ])
          expect((yield* stored("wh_m"))?.lastMatchSet).toEqual(["AAA", "BBB"])
        }).pipe(Effect.provide(layerFor(backend.layer()))),
      60_000
    )

    it.scoped(
      "an actor that crashes is restarted from the store and the transition still fires exactly once",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_a', 'pro', 1, 1)`
          yield* TestClock.setTime(Date.UTC(2026, 10, 23, 12))
          const alerts = yield* Alerts
          yield* webhook("wh_c", "price > 10")
          yield* webhook("wh_ok", "price > 10")
          yield* alerts.evaluate(snapshot(1_000, {}))
          let crashes = 1
          yield* alerts.setFault((id, m) => {
            if (id === "wh_c" && m._tag === "Evaluate" && crashes-- > 0) throw new Error("injected")
          })
          const r = yield* alerts.evaluate(snapshot(2_000, { AAA: 11 }))
          expect(r.fires).toBe(1) // wh_ok fired; wh_c crashed and stored nothing
          expect(yield* queued("wh_c")).toEqual([])
          // the supervisor restarts it with backoff (simulated time)
          yield* TestClock.adjust(1_000)
          expect(Number((yield* alerts.restarts).count)).toBeGreaterThanOrEqual(1)
          expect(yield* alerts.actorCount).toBe(2)
          const again = yield* alerts.evaluate(snapshot(3_000, { AAA: 11 }))
          expect(again.fires).toBe(1)
          expect((yield* queued("wh_c")).map((d) => d.match_count)).toEqual([1])
          expect((yield* queued("wh_ok")).map((d) => d.match_count)).toEqual([1])
        }).pipe(Effect.provide(layerFor(backend.layer()))),
      60_000
    )

    it.scoped(
      "enable clears the set so the next evaluation fires every current match once; disabled webhooks are not evaluated",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_a', 'pro', 1, 1)`
          yield* TestClock.setTime(Date.UTC(2026, 10, 23, 12))
          const alerts = yield* Alerts
          const store = yield* Webhooks
          yield* webhook("wh_e", "price > 10")
          yield* alerts.evaluate(snapshot(1_000, { AAA: 11, BBB: 11 }))
          const disabled = yield* store.disable("acc_a", "wh_e", "user", 1_000)
          yield* alerts.changed(disabled!)
          expect(yield* alerts.actorCount).toBe(0)
          expect((yield* alerts.evaluate(snapshot(2_000, { AAA: 11, BBB: 11, CCC: 11 }))).evaluated).toBe(0)
          yield* TestClock.adjust(5_000)
          const enabled = yield* store.enable("acc_a", "wh_e", null)
          expect(enabled._tag === "Enabled" && enabled.record.lastMatchSet).toEqual([])
          if (enabled._tag === "Enabled") yield* alerts.changed(enabled.record)
          expect((yield* alerts.evaluate(snapshot(3_000, { AAA: 11, BBB: 11, CCC: 11 }))).fires).toBe(1)
          expect((yield* queued("wh_e")).map((d) => d.match_count)).toEqual([2, 3])
        }).pipe(Effect.provide(layerFor(backend.layer()))),
      60_000
    )

    it.scoped(
      "hourly webhooks wait for the top of the hour; universes scope the matches (a missing one matches nothing)",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_a', 'pro', 1, 1)`
          yield* (yield* Universes).create({
            accountId: "acc_a",
            id: "mine",
            name: "Mine",
            description: null,
            tickers: ["BBB", "CCC"]
          })
          const alerts = yield* Alerts
          yield* TestClock.setTime(Date.UTC(2026, 10, 23, 14, 10))
          yield* webhook("wh_h", "price > 10", "hourly")
          yield* webhook("wh_u", "price > 10", "realtime", "mine")
          yield* webhook("wh_gone", "price > 10", "realtime", "nope")
          const all = { AAA: 11, BBB: 11, CCC: 11 }
          yield* alerts.evaluate(snapshot(1_000, all))
          expect(yield* queued("wh_h")).toEqual([])
          expect((yield* queued("wh_u")).map((d) => d.matches.map((m) => m.ticker).sort())).toEqual([["BBB", "CCC"]])
          expect(yield* queued("wh_gone")).toEqual([])
          yield* TestClock.setTime(Date.UTC(2026, 10, 23, 14, 59))
          yield* alerts.evaluate(snapshot(2_000, all))
          expect(yield* queued("wh_h")).toEqual([])
          yield* TestClock.setTime(Date.UTC(2026, 10, 23, 15, 0, 30))
          yield* alerts.evaluate(snapshot(3_000, all))
          expect((yield* queued("wh_h")).map((d) => d.match_count)).toEqual([3])
          expect(Option.isSome(Option.fromNullable(alerts.lastCadenceAt("hourly")))).toBe(true)

          // universe changes reach the next tick (the evaluator asks for the lists only after the
          // universes' change counter moved): an edit, a creation, a deletion
          const universes = yield* Universes
          yield* universes.update("acc_a", "mine", { tickers: ["AAA", "BBB", "CCC"] })
          yield* universes.create({ accountId: "acc_a", id: "nope", name: "Now", description: null, tickers: ["CCC"] })
          yield* alerts.evaluate(snapshot(4_000, all))
          expect((yield* queued("wh_u")).map((d) => d.matches.map((m) => m.ticker).sort())).toEqual([
            ["BBB", "CCC"],
            ["AAA"]
          ])
          expect((yield* queued("wh_gone")).map((d) => d.matches.map((m) => m.ticker))).toEqual([["CCC"]])
          // nothing changed: no fire
          yield* alerts.evaluate(snapshot(5_000, all))
          expect(yield* queued("wh_u")).toHaveLength(2)
          yield* universes.remove("acc_a", "mine")
          yield* alerts.evaluate(snapshot(6_000, all))
          expect((yield* stored("wh_u"))?.lastMatchSet).toEqual([])
          // back again: every ticker newly matches
          yield* universes.create({ accountId: "acc_a", id: "mine", name: "M", description: null, tickers: ["AAA"] })
          yield* alerts.evaluate(snapshot(7_000, all))
          expect((yield* queued("wh_u")).map((d) => d.matches.map((m) => m.ticker).sort())).toEqual([
            ["BBB", "CCC"],
            ["AAA"],
            ["AAA"]
          ])
        }).pipe(Effect.provide(layerFor(backend.layer()))),
      60_000
    )

    it.scoped(
      "an edit committed after a higher version was read is still picked up (versions come from a sequence)",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_a', 'pro', 1, 1)`
          yield* TestClock.setTime(Date.UTC(2026, 10, 23, 12))
          const alerts = yield* Alerts
          yield* webhook("wh_late", "price > 10")
          yield* webhook("wh_early", "price > 10")
          expect((yield* alerts.evaluate(snapshot(1_000, { AAA: 11 }))).fires).toBe(2)
          // two transactions take versions v1 < v2; the one with v2 commits (and is read) first
          const [v1, v2] = (yield* sql<{ v: string }>`SELECT nextval('webhook_version') AS v
            FROM generate_series(1, 2)`).map((r) => r.v)
          yield* sql`UPDATE webhooks SET name = 'renamed', version = ${v2} WHERE id = 'wh_early'`
          yield* alerts.resync
          yield* sql`UPDATE webhooks SET q = 'price > 1000', version = ${v1} WHERE id = 'wh_late'`
          // the next tick's sync still reads it: the edited webhook is evaluated with its new q
          const r = yield* alerts.evaluate(snapshot(2_000, { AAA: 11, BBB: 11 }))
          expect(r.fires).toBe(1)
          expect((yield* stored("wh_late"))?.lastMatchSet).toEqual([])
          expect((yield* queued("wh_late")).map((d) => d.match_count)).toEqual([1])
          expect((yield* queued("wh_early")).map((d) => d.match_count)).toEqual([1, 1])
        }).pipe(Effect.provide(layerFor(backend.layer()))),
      60_000
    )

    it.scoped(
      "the database gives every webhook a stable slice, evenly spread over 1,024",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_a', 'pro', 1, 1)`
          const created = yield* webhook("wh_slice", "price > 10")
          expect(created.slice).toBe((yield* stored("wh_slice"))!.slice)
          // the same function as the column, over ids shaped like real ones
          const rows = yield* sql<{
            slice: number
            n: number | string
          }>`SELECT (hashtext('wh_' || md5(g::text))::bigint & 1023) AS slice,
              count(*) AS n FROM generate_series(1, 102400) AS g GROUP BY 1`
          expect(rows.length).toBe(1024)
          const counts = rows.map((r) => Number(r.n))
          expect(Math.max(...counts) / 100).toBeLessThan(1.4)
          expect(Math.min(...counts) / 100).toBeGreaterThan(0.6)
          expect(rows.every((r) => r.slice >= 0 && r.slice < 1024)).toBe(true)
        }).pipe(Effect.provide(layerFor(backend.layer()))),
      60_000
    )

    it.scoped(
      "slices move between evaluators: the one giving a slice up stops its actors, the one taking it carries on from the stored states",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_a', 'pro', 1, 1)`
          yield* TestClock.setTime(Date.UTC(2026, 10, 23, 12))
          const a = yield* Alerts
          const b = Context.get(yield* Layer.build(Layer.fresh(Alerts.Default)), Alerts)
          const ids = Array.from({ length: 40 }, (_, k) => `wh_mv${k}`)
          for (const id of ids) yield* webhook(id, "price > 10")
          const sliceOf = new Map(
            (yield* sql<{ id: string; slice: number }>`SELECT id, slice FROM webhooks`).map((r) => [r.id, r.slice])
          )
          const slices = [...new Set(sliceOf.values())].sort((x, y) => x - y)
          expect(slices.length).toBeGreaterThan(10)
          const half = new Set(slices.slice(0, slices.length >> 1))
          const rest = new Set(slices.filter((n) => !half.has(n)))
          const inHalf = ids.filter((id) => half.has(sliceOf.get(id)!)).length
          yield* a.own(half)
          yield* b.own(rest)
          expect(yield* a.actorCount).toBe(inHalf)
          expect(yield* b.actorCount).toBe(ids.length - inHalf)
          // each fires its own slices' transitions: every webhook once in all
          const s1 = snapshot(1_000, { AAA: 11 })
          expect((yield* a.evaluate(s1)).fires + (yield* b.evaluate(s1)).fires).toBe(ids.length)
          // the first half moves from a to b: nothing fires again for a transition already stored
          yield* a.own(new Set())
          yield* b.own(new Set([...half, ...rest]))
          expect(yield* a.actorCount).toBe(0)
          expect(yield* b.actorCount).toBe(ids.length)
          expect((yield* b.evaluate(snapshot(2_000, { AAA: 11 }))).fires).toBe(0)
          // a new transition fires once, from the slice's new evaluator
          expect((yield* b.evaluate(snapshot(3_000, { AAA: 11, BBB: 11 }))).fires).toBe(ids.length)
          expect((yield* a.evaluate(snapshot(3_000, { AAA: 11, BBB: 11 }))).evaluated).toBe(0)
          for (const id of ids) expect((yield* queued(id)).map((d) => d.match_count)).toEqual([1, 1])
          // back to every slice
          yield* a.own("all")
          expect(yield* a.actorCount).toBe(ids.length)
        }).pipe(Effect.provide(layerFor(backend.layer()))),
      60_000
    )

    it.scoped(
      "a start reads full webhook rows a page at a time: every one of several pages gets an actor and fires once",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc_a', 'enterprise', 1, 1)`
          yield* TestClock.setTime(Date.UTC(2026, 10, 23, 12))
          // more than two pages of rows (ROWS_PAGE is 2,000; their keys fit one page of 20,000),
          // inserted by hand: without their state rows, which the first page's read gives them
          const n = 4_321
          const ids = Array.from({ length: n }, (_, k) => `wh_p${k}`)
          const qs = ids.map((_, k) => (k % 2 === 0 ? "price > 10" : `price > ${10 + (k % 7)}`))
          yield* sql`INSERT INTO webhooks (id, account_id, name, q, universe_id, cadence, channel, fields, status,
              origin_type, origin_condition, created_at, updated_at, armed_at)
            SELECT w.id, 'acc_a', w.id, w.q, NULL, 'realtime', 'in_app', ARRAY['rsi_14'], 'active', 'query', w.q, 1, 1, 1
            FROM unnest(${ids}::text[], ${qs}::text[]) AS w(id, q)`
          const alerts = yield* Alerts
          yield* alerts.resync
          expect(yield* alerts.actorCount).toBe(n)
          const r = yield* alerts.evaluate(snapshot(1_000, { AAA: 100 }))
          expect(r).toMatchObject({ ok: true, evaluated: n, fires: n })
          const states = yield* sql<{ n: number | string }>`SELECT count(*) AS n FROM webhook_states`
          expect(Number(states[0]!.n)).toBe(n)
          expect((yield* stored(`wh_p${n - 1}`))?.lastMatchSet).toEqual(["AAA"])
          // nothing moved: nothing fires again
          expect((yield* alerts.evaluate(snapshot(2_000, { AAA: 100 }))).fires).toBe(0)
        }).pipe(Effect.provide(layerFor(backend.layer()))),
      120_000
    )
  })
}
