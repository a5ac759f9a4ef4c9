import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Refresh ticks in the store (issue 15): the tick singleton decides each tick (`ticks`: its
 * `as_of`, the cadences due, the imports it includes, the refresh request it answers), every
 * process refreshes its market to that `as_of`, and each slice records the last tick it committed
 * (`slice_ticks`, written in the transaction of its states), so a moved singleton or slice neither
 * skips nor repeats a tick. `market_imports` logs each import (the tickers it replaced), so every
 * process applies it before its next tick. `slice_refreshes` (0014) is replaced by `slice_ticks`.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE ticks (
    seq bigint PRIMARY KEY,
    as_of bigint NOT NULL,
    due text[] NOT NULL,
    imports bigint NOT NULL,
    request bigint NOT NULL,
    created_at bigint NOT NULL
  )`
  // missed: ticks the slice skipped (issued while no runner held it), summed over its life;
  // committed_at: the database's clock (epoch ms) when its runner committed the tick
  yield* sql`CREATE TABLE slice_ticks (
    slice smallint PRIMARY KEY,
    seq bigint NOT NULL,
    as_of bigint NOT NULL,
    missed bigint NOT NULL DEFAULT 0,
    committed_at bigint NOT NULL
  )`
  yield* sql`CREATE TABLE market_imports (
    seq bigserial PRIMARY KEY,
    tickers text[] NOT NULL,
    created_at bigint NOT NULL
  )`
  yield* sql`DROP TABLE slice_refreshes`
})
