import { Migrator, SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, TestClock } from "effect"
import { MAX_UNIVERSE_SIZE } from "../../src/api/universes/Api.js"
import { editTickers, lookupUniverse, membersOn } from "../../src/api/universes/resolve.js"
import type { MarketData } from "../../src/market/engine/MarketData.js"
import { migrations, runMigrations } from "../../src/store/migrate.js"
import { Universes } from "../../src/store/universes.js"
import { backends } from "../support/backends.js"

const DAY_MS = 86_400_000
/** an epoch day, and `at(d, h)`: `h` hours into day D0 + d (UTC) */
const D0 = Math.floor(Date.UTC(2026, 2, 2) / DAY_MS)
const at = (d: number, hours: number) => (D0 + d) * DAY_MS + hours * 3_600_000

const versionsOf = (accountId: string, id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ effective_at: number | string; tickers: ReadonlyArray<string> }>`SELECT effective_at, tickers
      FROM universe_memberships WHERE account_id = ${accountId} AND universe_id = ${id} ORDER BY version`
  ).pipe(Effect.map((rows) => rows.map((r) => [Number(r.effective_at), r.tickers] as const)))

/** An own universe's members as of day D0 + d, through the API's resolver (no market needed for own universes). */
const asOf = (accountId: string, id: string, d: number) =>
  Effect.map(lookupUniverse(accountId, id, { from: D0 + d, to: D0 + d }), (u) =>
    membersOn(undefined as unknown as MarketData, u, D0 + d)
  )

const account = (id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES (${id}, 'pro', 1, 1)`
  )

for (const backend of backends()) {
  describe(`universes store (${backend.name})`, () => {
    it.layer(Layer.fresh(Universes.Default).pipe(Layer.provideMerge(backend.layer())), { timeout: 60_000 })((it) => {
      it.effect("creates, reads, lists, updates and deletes, scoped to the account", () =>
        Effect.gen(function* () {
          const store = yield* Universes
          yield* account("acc_a")
          yield* account("acc_b")
          const created = yield* store.create({
            accountId: "acc_a",
            id: "tech",
            name: "Tech",
            description: null,
            tickers: ["AAPL", "MSFT"]
          })
          expect(created).toMatchObject({ id: "tech", name: "Tech", description: null, tickers: ["AAPL", "MSFT"] })
          if (created === "taken") throw new Error("unexpected")
          expect(typeof created.createdAt).toBe("number")
          expect(
            yield* store.create({ accountId: "acc_a", id: "tech", name: "Again", description: null, tickers: ["A"] })
          ).toBe("taken")
          // the same id in another account is another universe
          expect(
            yield* store.create({ accountId: "acc_b", id: "tech", name: "B", description: "d", tickers: ["NVDA"] })
          ).toMatchObject({ accountId: "acc_b", tickers: ["NVDA"] })
          expect((yield* store.get("acc_a", "tech"))?.tickers).toEqual(["AAPL", "MSFT"])
          expect(yield* store.get("acc_a", "nope")).toBeUndefined()

          for (const id of ["a1", "a2", "a3"]) {
            yield* store.create({ accountId: "acc_a", id, name: id, description: null, tickers: ["SPY"] })
          }
          expect((yield* store.list("acc_a", 2)).map((u) => u.id)).toEqual(["a1", "a2"])
          expect((yield* store.list("acc_a", 10, "a2")).map((u) => u.id)).toEqual(["a3", "tech"])

          const updated = yield* store.update("acc_a", "tech", { description: "big tech", tickers: ["AAPL"] })
          expect(updated).toMatchObject({ name: "Tech", description: "big tech", tickers: ["AAPL"] })
          expect(yield* store.update("acc_a", "missing", { name: "x" })).toBeUndefined()
          expect((yield* store.get("acc_b", "tech"))?.tickers).toEqual(["NVDA"])

          expect(yield* store.remove("acc_b", "a1")).toBe(false)
          expect(yield* store.remove("acc_a", "a1")).toBe(true)
          expect(yield* store.remove("acc_a", "a1")).toBe(false)
          expect(yield* store.get("acc_a", "a1")).toBeUndefined()
        })
      )

      it.effect("keeps a version of the list per change of tickers, effective at the Clock's now", () =>
        Effect.gen(function* () {
          const store = yield* Universes
          yield* account("acc_h")
          yield* TestClock.setTime(at(0, 10))
          yield* store.create({ accountId: "acc_h", id: "h", name: "H", description: null, tickers: ["AAPL", "MSFT"] })
          yield* TestClock.setTime(at(3, 15))
          yield* store.update("acc_h", "h", { tickers: ["AAPL", "NVDA"] })
          yield* TestClock.setTime(at(3, 16))
          yield* store.update("acc_h", "h", { name: "renamed" }) // no change of tickers: no version
          yield* TestClock.setTime(at(3, 23))
          yield* store.update("acc_h", "h", { tickers: ["NVDA"] })
          yield* store.update("acc_h", "h", { tickers: ["NVDA", "SPY"] }) // the same second: the later one wins
          yield* TestClock.setTime(at(6, 12))
          yield* store.update("acc_h", "h", { tickers: ["NVDA", "SPY"], description: "d" }) // the same list
          expect(yield* versionsOf("acc_h", "h")).toEqual([
            [at(0, 10) / 1000, ["AAPL", "MSFT"]],
            [at(3, 15) / 1000, ["AAPL", "NVDA"]],
            [at(3, 23) / 1000, ["NVDA"]],
            [at(3, 23) / 1000, ["NVDA", "SPY"]]
          ])
          expect((yield* store.get("acc_h", "h"))?.tickers).toEqual(["NVDA", "SPY"])

          // the versions in effect over a span of days: from the one in effect at the end of the first day
          const span = (from: number, to: number) =>
            Effect.map(store.membership("acc_h", "h", D0 + from, D0 + to), (vs) => vs?.map((v) => v.tickers))
          expect(yield* span(-5, -5)).toEqual([["AAPL", "MSFT"]]) // before it existed: the first version
          expect(yield* span(-5, 1)).toEqual([["AAPL", "MSFT"]])
          expect(yield* span(0, 2)).toEqual([["AAPL", "MSFT"]])
          // the list at the end of the day: the last of that second's (its earlier ones come along)
          expect(yield* span(3, 3)).toEqual([["NVDA"], ["NVDA", "SPY"]])
          expect(yield* span(2, 9)).toEqual([["AAPL", "MSFT"], ["AAPL", "NVDA"], ["NVDA"], ["NVDA", "SPY"]])
          expect(yield* store.membership("acc_h", "nope", D0, D0)).toBeUndefined()
          expect(yield* store.membership("acc_a", "h", D0, D0)).toBeUndefined()

          // as of a day through the resolver: the latest version effective on or before that day
          expect(yield* asOf("acc_h", "h", -30)).toEqual(["AAPL", "MSFT"])
          expect(yield* asOf("acc_h", "h", 0)).toEqual(["AAPL", "MSFT"])
          expect(yield* asOf("acc_h", "h", 2)).toEqual(["AAPL", "MSFT"])
          expect(yield* asOf("acc_h", "h", 3)).toEqual(["NVDA", "SPY"])
          expect(yield* asOf("acc_h", "h", 100)).toEqual(["NVDA", "SPY"])
          // live: the current list
          const live = yield* lookupUniverse("acc_h", "h")
          expect(membersOn(undefined as unknown as MarketData, live, D0)).toEqual(["NVDA", "SPY"])
        })
      )

      it.effect("deletes a universe's history with it: the same slug created again starts afresh", () =>
        Effect.gen(function* () {
          const store = yield* Universes
          yield* account("acc_r")
          yield* TestClock.setTime(at(0, 12))
          yield* store.create({ accountId: "acc_r", id: "r", name: "R", description: null, tickers: ["AAPL"] })
          yield* TestClock.setTime(at(2, 12))
          yield* store.update("acc_r", "r", { tickers: ["MSFT"] })
          yield* TestClock.setTime(at(4, 12))
          expect(yield* store.remove("acc_r", "r")).toBe(true)
          expect(yield* versionsOf("acc_r", "r")).toEqual([])
          expect(yield* store.membership("acc_r", "r", D0, D0 + 10)).toBeUndefined()
          yield* TestClock.setTime(at(6, 12))
          yield* store.create({ accountId: "acc_r", id: "r", name: "R", description: null, tickers: ["SPY"] })
          expect(yield* versionsOf("acc_r", "r")).toEqual([[at(6, 12) / 1000, ["SPY"]]])
          for (const d of [-1, 1, 3, 5, 6, 9]) expect(yield* asOf("acc_r", "r", d)).toEqual(["SPY"])
        })
      )

      it.effect(
        "never records a version before the latest one (a clock that stepped back); keeps both of one second",
        () =>
          Effect.gen(function* () {
            const store = yield* Universes
            yield* account("acc_c")
            yield* TestClock.setTime(at(5, 12))
            yield* store.create({ accountId: "acc_c", id: "c", name: "C", description: null, tickers: ["AAPL"] })
            yield* TestClock.setTime(at(4, 12))
            yield* store.update("acc_c", "c", { tickers: ["MSFT"] })
            expect(yield* versionsOf("acc_c", "c")).toEqual([
              [at(5, 12) / 1000, ["AAPL"]],
              [at(5, 12) / 1000, ["MSFT"]]
            ])
            expect(yield* asOf("acc_c", "c", 9)).toEqual(["MSFT"])
            expect(yield* asOf("acc_c", "c", 5)).toEqual(["MSFT"])
            // before it existed: the list it was created with, though it changed within the same second
            expect(yield* asOf("acc_c", "c", 4)).toEqual(["AAPL"])
          })
      )

      it.effect("concurrent add/remove edits and renames all count: none is lost, one version each", () =>
        Effect.gen(function* () {
          const store = yield* Universes
          yield* account("acc_x")
          const removed = Array.from({ length: 24 }, (_, i) => `R${i}`)
          const added = Array.from({ length: 24 }, (_, i) => `A${i}`)
          yield* store.create({
            accountId: "acc_x",
            id: "x",
            name: "X",
            description: null,
            tickers: ["KEEP", ...removed]
          })
          const edits = added.flatMap((a, i) => [
            store.update("acc_x", "x", { tickers: editTickers([a], []) }),
            store.update("acc_x", "x", { tickers: editTickers([], [removed[i]!]) }),
            store.update("acc_x", "x", { name: `X${i}` }) // keeps the list as it is when it writes
          ])
          yield* Effect.all(edits, { concurrency: "unbounded" })
          const after = (yield* store.get("acc_x", "x"))!
          expect(after.tickers[0]).toBe("KEEP")
          expect([...after.tickers].sort()).toEqual(["KEEP", ...added].sort())
          // one version per edit of the list, each the one before with its edit applied; the last is the list
          const versions = (yield* versionsOf("acc_x", "x")).map(([, tickers]) => tickers)
          expect(versions).toHaveLength(1 + 2 * added.length)
          for (let i = 1; i < versions.length; i++) {
            const [before, next] = [new Set(versions[i - 1]), new Set(versions[i])]
            const changed =
              [...before].filter((t) => !next.has(t)).length + [...next].filter((t) => !before.has(t)).length
            expect(changed).toBe(1)
          }
          expect(versions.at(-1)).toEqual(after.tickers)
        })
      )

      it.effect("a rename concurrent with new lists never writes back the list it read", () =>
        Effect.gen(function* () {
          const store = yield* Universes
          yield* account("acc_y")
          yield* store.create({ accountId: "acc_y", id: "y", name: "Y", description: null, tickers: ["L"] })
          const lists = Array.from({ length: 16 }, (_, i) => [`L${i}`])
          yield* Effect.all(
            lists.flatMap((tickers, i) => [
              store.update("acc_y", "y", { tickers }),
              store.update("acc_y", "y", { name: `Y${i}`, description: `d${i}` })
            ]),
            { concurrency: "unbounded" }
          )
          const after = (yield* store.get("acc_y", "y"))!
          const versions = (yield* versionsOf("acc_y", "y")).map(([, tickers]) => tickers)
          expect(versions).toHaveLength(1 + lists.length)
          expect(versions.at(-1)).toEqual(after.tickers)
        })
      )

      it.effect("the size cap holds under concurrent adds: exactly the adds that fit succeed", () =>
        Effect.gen(function* () {
          const store = yield* Universes
          yield* account("acc_cap")
          const start = Array.from({ length: MAX_UNIVERSE_SIZE - 5 }, (_, i) => `T${i}`)
          yield* store.create({ accountId: "acc_cap", id: "cap", name: "Cap", description: null, tickers: start })
          const adds = Array.from({ length: 20 }, (_, i) => `N${i}`)
          const results = yield* Effect.all(
            adds.map((t) => Effect.either(store.update("acc_cap", "cap", { tickers: editTickers([t], []) }))),
            { concurrency: "unbounded" }
          )
          const ok = adds.filter((_, i) => Either.isRight(results[i]!))
          expect(ok).toHaveLength(5)
          for (const r of results) {
            if (Either.isLeft(r))
              expect(r.left).toMatchObject({ _tag: "BadRequest", details: { max_size: MAX_UNIVERSE_SIZE } })
          }
          const after = (yield* store.get("acc_cap", "cap"))!
          expect(after.tickers).toHaveLength(MAX_UNIVERSE_SIZE)
          expect(after.tickers.slice(start.length).sort()).toEqual([...ok].sort())
          expect(yield* versionsOf("acc_cap", "cap")).toHaveLength(1 + 5)
        })
      )

      it.effect("stores 5,000 tickers", () =>
        Effect.gen(function* () {
          const store = yield* Universes
          yield* account("acc_big")
          const tickers = Array.from({ length: 5000 }, (_, i) => `T${i}`)
          yield* store.create({ accountId: "acc_big", id: "big", name: "Big", description: null, tickers })
          expect((yield* store.get("acc_big", "big"))?.tickers).toEqual(tickers)
        })
      )
    })

    it.effect(
      "the migration gives every existing universe one version: its list, effective at its created_at",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0011"))
          yield* Migrator.make({})({ loader: Migrator.fromRecord(before), table: "vigil_migrations" })
          yield* account("acc_m")
          yield* sql`INSERT INTO universes (account_id, id, name, description, tickers, created_at, updated_at)
            VALUES ('acc_m', 'old', 'Old', NULL, ARRAY['AAPL','MSFT'], 1700000000, 1700500000),
              ('acc_m', 'older', 'Older', NULL, ARRAY['SPY'], 1600000000, 1600000000)`
          yield* runMigrations
          expect(yield* versionsOf("acc_m", "old")).toEqual([[1700000000, ["AAPL", "MSFT"]]])
          expect(yield* versionsOf("acc_m", "older")).toEqual([[1600000000, ["SPY"]]])
        }).pipe(Effect.provide(Layer.fresh(backend.bare()))),
      60_000
    )
  })
}
