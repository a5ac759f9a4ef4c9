import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Daily bars imported from files. The simulated market is regenerated from
 * its seed and never stored; imported bars replace a ticker's simulated
 * history over their date range. Dates are `YYYY-MM-DD` text (sortable, and
 * free of driver date-parsing differences between PGlite and node-postgres).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE imported_bars (
    ticker text NOT NULL,
    date text NOT NULL CHECK (date ~ '^\\d{4}-\\d{2}-\\d{2}$'),
    open double precision NOT NULL,
    high double precision NOT NULL,
    low double precision NOT NULL,
    close double precision NOT NULL,
    volume double precision NOT NULL,
    imported_at bigint NOT NULL,
    PRIMARY KEY (ticker, date)
  )`
})
