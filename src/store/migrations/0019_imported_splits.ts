import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Stock splits imported from files (`ticker,date,ratio`, issue 17): `ratio` new shares per old
 * share from `date` on (4 for a 4-for-1, 0.1 for a 1-for-10 reverse split). Bars are stored as
 * their files give them; when read back for the market, an imported bar dated before a split is
 * divided by its ratio (prices) and multiplied by it (volume), over every later split of its
 * ticker, so the order in which bars and splits arrive does not matter. `adjusted` marks bars
 * whose file already carried the adjustment (an adjusted close or a split coefficient column):
 * splits leave those as they are. The date check of `imported_bars` becomes a cheaper one.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE imported_splits (
    ticker text NOT NULL,
    date text NOT NULL CHECK (octet_length(date) = 10 AND substr(date, 5, 1) = '-' AND date::date IS NOT NULL),
    ratio double precision NOT NULL CHECK (ratio > 0),
    imported_at bigint NOT NULL,
    PRIMARY KEY (ticker, date)
  )`
  yield* sql`ALTER TABLE imported_bars ADD COLUMN adjusted boolean NOT NULL DEFAULT false`
  // a date of ten characters that PostgreSQL reads as a date: 0002's regular expression cost as
  // much per row as the rest of the insert, on PostgreSQL and more on the embedded store (issue 17)
  yield* sql`ALTER TABLE imported_bars DROP CONSTRAINT imported_bars_date_check`
  yield* sql`ALTER TABLE imported_bars ADD CONSTRAINT imported_bars_date_check
    CHECK (octet_length(date) = 10 AND substr(date, 5, 1) = '-' AND date::date IS NOT NULL)`
})
