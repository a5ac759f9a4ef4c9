/**
 * The evaluator's state in the store: what changed since its last sync, the
 * match states it writes each tick (with their fires and its slices' tick,
 * in one transaction), the universes its webhooks are scoped to. Kept apart
 * from the webhook resource (webhooks.ts): the evaluator (`src/alerts`)
 * reads and writes here, the API there.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { NewDelivery } from "./deliveries.js"
import { textList } from "./textList.js"
import { type Cadence, toRecord, type WebhookRecord, type WebhookRow } from "./webhooks.js"

/** What an evaluation tick changes for one webhook. */
export interface MatchChange {
  readonly id: string
  /** the `armed_at` the new state was computed from: a webhook re-armed meanwhile is left alone */
  readonly armedAt: number
  /** the `state_seq` the diff started from: a state written meanwhile (another instance) is left alone */
  readonly stateSeq: number
  /**
   * the new match set in full (tickers, or already comma-separated), or only its change since the
   * state `stateSeq` (appended to the stored delta: a few bytes instead of the whole set)
   */
  readonly write:
    | { readonly _tag: "Full"; readonly matchSet: ReadonlyArray<string> | string }
    | {
        readonly _tag: "Delta"
        readonly added: ReadonlyArray<string>
        readonly removed: ReadonlyArray<string>
        /** the new set in full, written instead when a symbol cannot go into a delta */
        readonly matchSet: () => ReadonlyArray<string> | string
      }
  /** a `webhook.fired` event is among its events (its `last_fired` moves) */
  readonly fired: boolean
  /** the sequence of its last event after this change */
  readonly eventSeq: number
  /** the alert machine's per-ticker memory after this change (`encodeMemory`) */
  readonly memory: string
}

/** An event written to a webhook's feed (and delivered unless `suppressed`). */
export interface NewEvent {
  readonly webhookId: string
  readonly sequence: number
  readonly type: string
  /** epoch ms of the market data evaluated */
  readonly dataAsOf: number
  readonly suppressed: boolean
  /** the delivery that sends it (its payload is the body), or null: the body is kept with the event */
  readonly deliveryId: string | null
  readonly body: string
}

/** a ticker symbol that can be written into a delta (no separator in it) */
const DELTA_SAFE = /^[^,;<>]+$/

/** The delta entry for a change of the match set (`undefined` when a symbol cannot be written so). */
export const encodeDelta = (added: ReadonlyArray<string>, removed: ReadonlyArray<string>): string | undefined => {
  for (const n of added) if (!DELTA_SAFE.test(n)) return undefined
  for (const n of removed) if (!DELTA_SAFE.test(n)) return undefined
  return `${added.length > 0 ? `;>${added.join(",")}` : ""}${removed.length > 0 ? `;<${removed.join(",")}` : ""}`
}

/** What a sync reads of each changed webhook first (`changedSince`). */
export interface WebhookKey {
  readonly id: string
  readonly version: number
  readonly status: string
  readonly slice: number
}

/**
 * The stored tick a commit belongs to (`slice_ticks`, migration 0015): a state is written only
 * where the webhook's slice has not committed this tick or a later one (another runner that held
 * the slice during a move), and with `record` (the tick's last transaction) the slices evaluated
 * record it.
 */
export interface SliceTick {
  readonly seq: number
  readonly asOf: number
  readonly slices: ReadonlyArray<number>
  readonly record: boolean
}

export class EvaluatorState extends Effect.Service<EvaluatorState>()("vigil/EvaluatorState", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * The webhooks changed after `version` (all when 0), for the evaluator, in version order: at
     * most `limit` of them, keys only (id, version, status, slice) — the evaluator reads the full
     * rows of those it has no actor for or whose actor is older (`states`), so a sync that reads
     * rows again (see `Roster.sync`) costs a few bytes per row. Every tick asks: the highest
     * version first (an index probe), so a tick with no change reads no row. `repair` (the first
     * page of a sync) first gives a state row to any webhook inserted without one (by hand): the
     * evaluator writes states there.
     */
    const changedSince = (version: number, limit: number, repair: boolean) =>
      Effect.gen(function* () {
        if (version > 0) {
          const top = yield* sql<{ v: number | string | null }>`SELECT max(version) AS v FROM webhooks`
          if (Number(top[0]?.v ?? 0) <= version) return [] as Array<WebhookKey>
        }
        if (repair) {
          yield* sql`INSERT INTO webhook_states (webhook_id, armed_at)
            SELECT w.id, w.armed_at FROM webhooks w
            WHERE w.version > ${version} AND NOT EXISTS (SELECT 1 FROM webhook_states s WHERE s.webhook_id = w.id)
            ON CONFLICT (webhook_id) DO NOTHING`
        }
        const rows = yield* sql<{
          id: string
          version: number | string
          status: string
          slice: number
        }>`SELECT id, version, status, slice FROM webhooks WHERE version > ${version} ORDER BY version LIMIT ${limit}`
        return rows.map((r): WebhookKey => ({ id: r.id, version: Number(r.version), status: r.status, slice: r.slice }))
      })

    /** The active webhooks of the slices `slices` (a runner taking them), with their stored states. */
    const sliceWebhooks = (slices: ReadonlyArray<number>) =>
      slices.length === 0
        ? Effect.succeed([] as ReadonlyArray<WebhookRecord>)
        : Effect.map(
            sql<WebhookRow>`SELECT * FROM webhook_records WHERE status = 'active' AND slice = ANY(${slices}::int[])`,
            (rows) => rows.map(toRecord)
          )

    /** The ids of every webhook that still exists among `ids`. */
    const existing = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed(new Set<string>())
        : Effect.map(
            sql<{ id: string }>`SELECT id FROM webhooks WHERE id = ANY(${ids}::text[])`,
            (rows) => new Set(rows.map((r) => r.id))
          )

    /**
     * One evaluation tick, in one transaction: records the tick for its
     * cadences, writes the changed match sets (only where the webhook is
     * still active and armed as the change assumed) and enqueues the fires
     * of the webhooks written, fenced by `sliceTick` (a slice another runner
     * already committed this tick for is not written again) and recording it
     * for the slices evaluated. With `writer` (an evaluator instance), a commit
     * that writes states also bumps the state writer's counter (`stateWriter`).
     * Returns the ids written and the counter's new value.
     */
    const commitTick = (
      evaluatedAt: number,
      cadences: ReadonlyArray<Cadence>,
      changes: ReadonlyArray<MatchChange>,
      deliveries: ReadonlyArray<NewDelivery>,
      writer?: string,
      sliceTick?: SliceTick,
      /** the events of the webhooks written, for their feeds */
      events: ReadonlyArray<NewEvent> = []
    ) =>
      Effect.gen(function* () {
        const nowS = Math.floor(evaluatedAt / 1000)
        // the slices' last committed tick, last in the last of the tick's transactions
        const recordSlices =
          sliceTick === undefined || !sliceTick.record || sliceTick.slices.length === 0
            ? Effect.void
            : sql`INSERT INTO slice_ticks (slice, seq, as_of, committed_at)
            SELECT s, ${sliceTick.seq}, ${sliceTick.asOf}, (extract(epoch FROM clock_timestamp()) * 1000)::bigint
            FROM unnest(${sliceTick.slices}::int[]) AS s
            ON CONFLICT (slice) DO UPDATE SET seq = EXCLUDED.seq, as_of = EXCLUDED.as_of,
              committed_at = EXCLUDED.committed_at,
              missed = slice_ticks.missed + GREATEST(EXCLUDED.seq - slice_ticks.seq - 1, 0)
              WHERE slice_ticks.seq < EXCLUDED.seq`.pipe(Effect.asVoid)
        // the state writer's counter, bumped under its row lock (see `stateWriter`)
        let writerSeq: number | undefined
        if (writer !== undefined && changes.length > 0) {
          const rows = yield* sql<{ until: number | string }>`INSERT INTO leases (name, holder, until)
            VALUES ('state_writer', ${writer}, 1)
            ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, until = leases.until + 1
            RETURNING until`
          writerSeq = Number(rows[0]!.until)
        }
        const ticks =
          cadences.length > 0
            ? sql`INSERT INTO evaluation_ticks (cadence, evaluated_at)
                SELECT c, ${evaluatedAt} FROM unnest(${cadences}::text[]) AS c
                ON CONFLICT (cadence) DO UPDATE SET evaluated_at = EXCLUDED.evaluated_at`
            : undefined
        if (changes.length === 0) {
          if (ticks !== undefined) yield* ticks
          yield* recordSlices
          return { written: new Set<string>(), writerSeq }
        }
        // each change appends its delta to the state row (or writes the set in full): a short row,
        // updated in place, never the whole set (see migration 0009)
        const full: Array<boolean> = []
        const text: Array<string> = []
        for (const c of changes) {
          const delta = c.write._tag === "Delta" ? encodeDelta(c.write.added, c.write.removed) : undefined
          if (delta !== undefined) {
            full.push(false)
            text.push(delta)
          } else {
            full.push(true)
            const m = c.write._tag === "Full" ? c.write.matchSet : c.write.matchSet()
            text.push(typeof m === "string" ? m : m.join(","))
          }
        }
        // one statement: the tick, the states written (where still active, armed as assumed and at
        // the state_seq the diff started from), and the fires of exactly those webhooks. The webhook
        // is checked by a scalar subquery, not EXISTS: one primary-key probe per change whatever the
        // statistics say. An EXISTS became a semi-join, and on the embedded database (no autovacuum,
        // so statistics as old as the last ANALYZE) a hash join reading every webhook: with 100,000
        // webhooks, half of a tick's commit
        const d = deliveries
        const rows = yield* sql<{ written: ReadonlyArray<string> | null }>`WITH
          ${ticks === undefined ? sql`` : sql`tick AS (${ticks}),`}
          written AS (
            UPDATE webhook_states s SET
              base = CASE WHEN i.whole THEN i.body ELSE s.base END,
              delta = CASE WHEN i.whole THEN '' ELSE s.delta || i.body END,
              deltas = CASE WHEN i.whole THEN 0 ELSE s.deltas + 1 END,
              evaluated_at = ${evaluatedAt},
              fired_at = CASE WHEN i.fired THEN ${nowS} ELSE s.fired_at END,
              state_seq = s.state_seq + 1,
              event_seq = i.event_seq,
              memory = i.memory
            FROM unnest(${changes.map((c) => c.id)}::text[], ${changes.map((c) => c.armedAt)}::bigint[],
              ${changes.map((c) => c.stateSeq)}::bigint[], ${full}::boolean[], ${textList(sql, text)},
              ${changes.map((c) => c.fired)}::boolean[], ${changes.map((c) => c.eventSeq)}::bigint[],
              ${textList(
                sql,
                changes.map((c) => c.memory)
              )})
              AS i(id, armed_at, state_seq, whole, body, fired, event_seq, memory)
            WHERE s.webhook_id = i.id AND s.armed_at = i.armed_at AND s.state_seq = i.state_seq
              AND (SELECT w.status = 'active' AND w.armed_at = i.armed_at
                ${
                  sliceTick === undefined
                    ? sql``
                    : sql`AND NOT EXISTS (SELECT 1 FROM slice_ticks t WHERE t.slice = w.slice AND t.seq >= ${sliceTick.seq})`
                }
                FROM webhooks w WHERE w.id = i.id)
            RETURNING s.webhook_id AS id),
          queued AS (
            INSERT INTO deliveries (id, webhook_id, account_id, event, event_id, channel, target_url, test, payload,
              attempt, status, due_at, created_at)
            SELECT d.id, d.webhook_id, d.account_id, d.event, d.event_id, d.channel, d.target_url, d.test,
              d.payload, 0, 'pending', d.due_at, ${nowS}
            FROM unnest(${d.map((x) => x.id)}::text[], ${d.map((x) => x.webhookId)}::text[],
              ${d.map((x) => x.event)}::text[],
              ${d.map((x) => x.accountId)}::text[], ${d.map((x) => x.eventId)}::text[],
              ${d.map((x) => x.channel)}::text[], ${d.map((x) => x.targetUrl)}::text[],
              ${d.map((x) => x.test)}::boolean[], ${textList(
                sql,
                d.map((x) => x.payload)
              )},
              ${d.map((x) => x.dueAt)}::bigint[])
              AS d(id, webhook_id, event, account_id, event_id, channel, target_url, test, payload, due_at)
            WHERE d.webhook_id IN (SELECT id FROM written)
            RETURNING 1),
          feed AS (
            INSERT INTO webhook_events (webhook_id, sequence, type, created_at, data_as_of, suppressed, delivery_id,
              body)
            SELECT e.webhook_id, e.sequence, e.type, ${evaluatedAt}, e.data_as_of, e.suppressed, e.delivery_id,
              e.body
            FROM unnest(${events.map((x) => x.webhookId)}::text[], ${events.map((x) => x.sequence)}::bigint[],
              ${events.map((x) => x.type)}::text[], ${events.map((x) => x.dataAsOf)}::bigint[],
              ${events.map((x) => x.suppressed)}::boolean[], ${events.map((x) => x.deliveryId)}::text[],
              ${textList(
                sql,
                events.map((x) => (x.deliveryId === null ? x.body : null))
              )})
              AS e(webhook_id, sequence, type, data_as_of, suppressed, delivery_id, body)
            WHERE e.webhook_id IN (SELECT id FROM written)
            RETURNING 1)
          SELECT (SELECT array_agg(id) FROM written) AS written, (SELECT count(*) FROM queued) AS queued,
            (SELECT count(*) FROM feed) AS feed`
        yield* recordSlices
        return { written: new Set<string>(rows[0]?.written ?? []), writerSeq }
      }).pipe(sql.withTransaction)

    /** The stored match state of webhooks (to resynchronize actors whose write lost a race). */
    const states = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed([] as ReadonlyArray<WebhookRecord>)
        : Effect.map(sql<WebhookRow>`SELECT * FROM webhook_records WHERE id = ANY(${ids}::text[])`, (rows) =>
            rows.map(toRecord)
          )

    /**
     * The last writer of match states (a `leases` row used as a counter): the
     * instance whose `commitTick` (with `writer`) last wrote states, and a
     * number bumped by every such commit. An evaluator that finds it unchanged
     * since its own last commit knows no other instance has written a match
     * state since, so its actors still hold the stored states.
     */
    const stateWriter = Effect.map(
      sql<{ holder: string; until: number | string }>`SELECT holder, until FROM leases WHERE name = 'state_writer'`,
      (rows) => (rows.length === 0 ? undefined : { holder: rows[0]!.holder, seq: Number(rows[0]!.until) })
    )

    /** The counter of changes to any universe (migration 0010): the digests need asking only when it moved. */
    const universesVersion = Effect.map(
      sql<{ version: number | string }>`SELECT version FROM universes_version`,
      (rows) => Number(rows[0]?.version ?? 0)
    )

    /**
     * For the evaluator, each tick: of the universes `keys` (account id, universe id), those that
     * exist, with an md5 digest of their ticker lists (so only changed lists are read again).
     */
    const universeDigests = (keys: ReadonlyArray<readonly [string, string]>) =>
      keys.length === 0
        ? Effect.succeed([] as ReadonlyArray<{ account_id: string; id: string; digest: string }>)
        : sql<{ account_id: string; id: string; digest: string }>`SELECT u.account_id, u.id,
              md5(array_to_string(u.tickers, ',')) AS digest
            FROM universes u JOIN unnest(${keys.map((k) => k[0])}::text[], ${keys.map((k) => k[1])}::text[])
              AS k(account_id, id) ON u.account_id = k.account_id AND u.id = k.id`

    /** The ticker lists of the universes `keys` (account id, universe id) that exist, with their digests. */
    const universeLists = (keys: ReadonlyArray<readonly [string, string]>) =>
      keys.length === 0
        ? Effect.succeed(
            [] as ReadonlyArray<{ account_id: string; id: string; digest: string; tickers: ReadonlyArray<string> }>
          )
        : sql<{ account_id: string; id: string; digest: string; tickers: ReadonlyArray<string> }>`SELECT u.account_id,
              u.id, md5(array_to_string(u.tickers, ',')) AS digest, u.tickers
            FROM universes u JOIN unnest(${keys.map((k) => k[0])}::text[], ${keys.map((k) => k[1])}::text[])
              AS k(account_id, id) ON u.account_id = k.account_id AND u.id = k.id`

    /**
     * Whether any webhook changed after `version` or went away: the active count (of the slices
     * `slices` only, when given: a runner's) and the highest version (one cheap query instead of
     * comparing every id).
     */
    const activeSummary = (slices?: ReadonlyArray<number>) =>
      Effect.map(
        sql<{ n: number | string; v: number | string | null }>`SELECT
          (SELECT count(*) FROM webhooks WHERE status = 'active'
            ${slices === undefined ? sql`` : sql`AND slice = ANY(${slices}::int[])`}) AS n,
          (SELECT max(version) FROM webhooks) AS v`,
        (rows) => ({ active: Number(rows[0]?.n ?? 0), version: Number(rows[0]?.v ?? 0) })
      )

    return {
      changedSince,
      sliceWebhooks,
      existing,
      commitTick,
      stateWriter,
      universeDigests,
      universesVersion,
      universeLists,
      activeSummary,
      states
    } as const
  })
}) {}
