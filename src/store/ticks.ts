/**
 * Refresh ticks as the store keeps them (migration 0015). The tick singleton
 * (`src/alerts/tickDriver.ts`) issues each tick; every process that follows
 * ticks refreshes its market to the tick's `as_of` (with the imports it
 * names); each slice's last committed tick is written with its states
 * (`EvaluatorState.commitTick`); a refresh asked for through any process
 * is answered by the first tick issued after it.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { ImportedTickers, RefreshTick } from "../market/ports.js"
import type { Cadence } from "./webhooks.js"

/** A refresh tick as the store keeps it: the market's port defines it (`src/market/ports.ts`). */
export type Tick = RefreshTick

interface TickRow {
  readonly seq: number | string
  readonly as_of: number | string
  readonly due: ReadonlyArray<Cadence>
  readonly imports: number | string
  readonly request: number | string
}

const toTick = (r: TickRow): Tick => ({
  seq: Number(r.seq),
  asOf: Number(r.as_of),
  due: r.due,
  imports: Number(r.imports),
  request: Number(r.request)
})

/** how long ticks and the import log are kept (the latest of each is always kept) */
export const TICK_RETENTION_MS = 7 * 86_400_000

export class Ticks extends Effect.Service<Ticks>()("vigil/Ticks", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const latest = Effect.map(
      sql<TickRow>`SELECT seq, as_of, due, imports, request FROM ticks ORDER BY seq DESC LIMIT 1`,
      (rows) => (rows.length === 0 ? undefined : toTick(rows[0]!))
    )

    /**
     * Issues the tick after the latest one, unless one at or after `asOf` exists (a singleton that
     * moved may briefly run twice: the second insert finds the first's row). The tick, or
     * undefined when none was issued.
     */
    const issue = (t: Omit<Tick, "seq">, now: number) =>
      Effect.map(
        sql<TickRow>`INSERT INTO ticks (seq, as_of, due, imports, request, created_at)
          SELECT coalesce(max(seq), 0) + 1, ${t.asOf}, ${t.due}::text[], ${t.imports}, ${t.request}, ${now}
          FROM ticks HAVING coalesce(max(as_of), -1) < ${t.asOf}
          ON CONFLICT (seq) DO NOTHING
          RETURNING seq, as_of, due, imports, request`,
        (rows) => (rows.length === 0 ? undefined : toTick(rows[0]!))
      )

    /** the as_of of the last tick on which each cadence was due (within the retention) */
    const lastDue = Effect.map(
      sql<{ cadence: Cadence; at: number | string }>`SELECT c AS cadence, max(t.as_of) AS at
        FROM ticks t CROSS JOIN LATERAL unnest(t.due) AS c GROUP BY c`,
      (rows) => new Map(rows.map((r) => [r.cadence, Number(r.at)] as const))
    )

    /** the first tick issued for the refresh request `request` (undefined: not yet) */
    const answering = (request: number) =>
      Effect.map(
        sql<TickRow>`SELECT seq, as_of, due, imports, request FROM ticks WHERE request >= ${request}
          ORDER BY seq LIMIT 1`,
        (rows) => (rows.length === 0 ? undefined : toTick(rows[0]!))
      )

    /** the tick with the as_of `asOf` */
    const at = (asOf: number) =>
      Effect.map(
        sql<TickRow>`SELECT seq, as_of, due, imports, request FROM ticks WHERE as_of = ${asOf} LIMIT 1`,
        (rows) => (rows.length === 0 ? undefined : toTick(rows[0]!))
      )

    /**
     * A refresh asked for (`POST /admin/refresh`): a counter in `leases` (`refresh_request`),
     * never below the request time. The tick singleton answers it with its next tick.
     */
    const requestRefresh = (now: number) =>
      Effect.map(
        sql<{ until: number | string }>`INSERT INTO leases (name, holder, until)
          VALUES ('refresh_request', 'api', ${now})
          ON CONFLICT (name) DO UPDATE SET until = GREATEST(leases.until + 1, EXCLUDED.until)
          RETURNING until`,
        (rows) => Number(rows[0]!.until)
      )
    const refreshRequested = Effect.map(
      sql<{ until: number | string }>`SELECT until FROM leases WHERE name = 'refresh_request'`,
      (rows) => Number(rows[0]?.until ?? 0)
    )

    /** the slices (of 0 … `slices` − 1) whose last committed tick is before `seq` */
    const slicesBehind = (seq: number, slices: number) =>
      Effect.map(
        sql<{ s: number }>`SELECT s FROM generate_series(0, ${slices - 1}) AS s
          WHERE NOT EXISTS (SELECT 1 FROM slice_ticks t WHERE t.slice = s AND t.seq >= ${seq}) ORDER BY s`,
        (rows) => rows.map((r) => Number(r.s))
      )

    /** the last committed tick of each slice that has one */
    const sliceTicks = Effect.map(
      sql<{ slice: number; seq: number | string; as_of: number | string }>`SELECT slice, seq, as_of FROM slice_ticks`,
      (rows) => new Map(rows.map((r) => [Number(r.slice), { seq: Number(r.seq), asOf: Number(r.as_of) }] as const))
    )

    /** ticks skipped by slices, summed over every slice (a tick issued while nobody held a slice) */
    const missed = Effect.map(sql<{ n: number | string | null }>`SELECT sum(missed) AS n FROM slice_ticks`, (rows) =>
      Number(rows[0]?.n ?? 0)
    )

    /** the last import logged (0: none) */
    const importsVersion = Effect.map(
      sql<{ v: number | string | null }>`SELECT max(seq) AS v FROM market_imports`,
      (rows) => Number(rows[0]?.v ?? 0)
    )

    /** the tickers imported after the import `version`, up to `upTo`: bars, and a feed's fundamentals or news */
    const importedSince = (version: number, upTo: number) =>
      Effect.map(
        sql<{ tickers: ReadonlyArray<string>; kind: string }>`SELECT tickers, kind FROM market_imports
          WHERE seq > ${version} AND seq <= ${upTo} ORDER BY seq`,
        (rows): ImportedTickers => ({
          bars: new Set(rows.flatMap((r) => (r.kind === "bars" ? r.tickers : []))),
          inputs: new Set(rows.flatMap((r) => (r.kind === "inputs" ? r.tickers : [])))
        })
      )

    /**
     * Retention: ticks and imports older than `TICK_RETENTION_MS` (the latest of each kept: the
     * next tick and the imports version read them), and the cluster's processed messages with
     * their replies (the cluster never deletes them; Vigil sends none today, a later entity might).
     */
    const prune = (now: number) =>
      Effect.gen(function* () {
        const before = now - TICK_RETENTION_MS
        const ticks = yield* sql<{ n: number | string }>`WITH gone AS (DELETE FROM ticks
            WHERE as_of < ${before} AND seq < (SELECT max(seq) FROM ticks) RETURNING 1)
          SELECT count(*) AS n FROM gone`
        yield* sql`DELETE FROM market_imports
          WHERE created_at < ${before} AND seq < (SELECT max(seq) FROM market_imports)`
        const cluster = yield* sql<{ m: string | null }>`SELECT to_regclass('cluster_messages')::text AS m`
        let messages = 0
        if (cluster[0]?.m != null) {
          yield* sql`DELETE FROM cluster_replies r USING cluster_messages m
            WHERE r.request_id = m.id AND m.processed`
          const gone = yield* sql<{ n: number | string }>`WITH gone AS (DELETE FROM cluster_messages
              WHERE processed RETURNING 1) SELECT count(*) AS n FROM gone`
          messages = Number(gone[0]?.n ?? 0)
        }
        return { ticks: Number(ticks[0]?.n ?? 0), messages }
      })

    return {
      latest,
      issue,
      lastDue,
      answering,
      at,
      requestRefresh,
      refreshRequested,
      slicesBehind,
      sliceTicks,
      missed,
      importsVersion,
      importedSince,
      prune
    } as const
  })
}) {}
