/**
 * The market feed's switch (`market_feed`, migration 0017): paused or not,
 * shared by every process through the store (`POST /admin/feed/pause`,
 * `/admin/feed/resume`).
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"

export class MarketFeed extends Effect.Service<MarketFeed>()("vigil/MarketFeed", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      /** whether the feed is paused (no new market data applied) */
      paused: Effect.map(
        sql<{ paused: boolean }>`SELECT paused FROM market_feed WHERE id = 1`,
        (rows) => rows[0]?.paused === true
      ),
      /** pauses or resumes the feed */
      set: (paused: boolean) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.asVoid(sql`INSERT INTO market_feed (id, paused, changed_at) VALUES (1, ${paused}, ${now})
            ON CONFLICT (id) DO UPDATE SET paused = EXCLUDED.paused, changed_at = EXCLUDED.changed_at`)
        )
    } as const
  })
}) {}
