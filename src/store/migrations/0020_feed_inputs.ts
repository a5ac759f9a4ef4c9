import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A live feed's fundamentals and news (issue 17, the ingest's `Fundamentals` and `News` events):
 * `feed_fundamentals` keeps per ticker and first day in force the fields the feed gave (a JSON
 * object of numbers and nulls, merged field by field as more arrive for that day); `feed_news`
 * each mention, numbered as it arrived. `market_imports` now says what it logged: `bars` (an
 * import) or `inputs` (a feed's fundamentals or news), so a following process reads back only
 * what changed.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE feed_fundamentals (
    ticker text NOT NULL,
    from_day integer NOT NULL,
    fields jsonb NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (ticker, from_day)
  )`
  yield* sql`CREATE TABLE feed_news (
    seq bigserial PRIMARY KEY,
    ticker text NOT NULL,
    at bigint NOT NULL,
    relevance double precision NOT NULL CHECK (relevance >= 0 AND relevance <= 1),
    sentiment double precision NOT NULL CHECK (sentiment >= -1 AND sentiment <= 1)
  )`
  yield* sql`CREATE INDEX feed_news_ticker ON feed_news (ticker, at)`
  yield* sql`ALTER TABLE market_imports ADD COLUMN kind text NOT NULL DEFAULT 'bars' CHECK (kind IN ('bars', 'inputs'))`
})
