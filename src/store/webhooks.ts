/**
 * Webhook subscriptions, account-scoped, and the evaluator's writes.
 *
 * The store keeps what it is given: validation (compiling `q`, target
 * safety, plan gates) is the API's. Two rules live here because they need a
 * transaction: the plan's webhook cap (checked under a lock on the account
 * row, so concurrent creates cannot overshoot it) and the evaluator's tick
 * commit (new match states and their deliveries in one transaction).
 *
 * Creates are grouped: concurrent `create` calls wait in a queue, and one
 * fiber commits all those waiting in one transaction of a fixed number of
 * statements (lock the accounts, count the capped ones' active webhooks,
 * insert every row with its state), so a create costs neither a transaction
 * of its own nor anything that grows with the account's webhooks.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { makeGroupCommit } from "./groupCommit.js"

export type Cadence = "realtime" | "hourly" | "exchange_open"
export type Channel = "webhook" | "chat" | "in_app" | "mobile_push"
export type WebhookStatus = "active" | "disabled"

export interface Origin {
  readonly type: "ticker" | "signal" | "query"
  readonly ref: string | null
  readonly condition: string | null
}

export interface WebhookConfig {
  readonly name: string
  readonly q: string
  readonly universeId: string | null
  readonly cadence: Cadence
  readonly channel: Channel
  readonly targetUrl: string | null
  readonly chatUrl: string | null
  readonly deviceId: string | null
  readonly signingSecret: string | null
  readonly fields: ReadonlyArray<string>
  readonly origin: Origin
}

export interface WebhookRecord extends WebhookConfig {
  readonly id: string
  readonly accountId: string
  readonly status: WebhookStatus
  readonly disabledReason: string | null
  readonly previousSecret: string | null
  /** epoch ms until which the previous secret still signs */
  readonly previousSecretUntil: number | null
  /** epoch seconds */
  readonly createdAt: number
  readonly updatedAt: number
  /** epoch ms: when the webhook last became active */
  readonly armedAt: number
  readonly lastMatchSet: ReadonlyArray<string>
  /** deltas stored on top of the last full write of the set (see migration 0009) */
  readonly matchDeltas: number
  /** epoch ms, frozen at the last state change (see `effectiveLastEvaluated`) */
  readonly lastEvaluatedAt: number | null
  /** epoch seconds */
  readonly lastFired: number | null
  readonly version: number
  /** creation order */
  readonly seq: number
  /** writes of the match state so far */
  readonly stateSeq: number
}

interface Row {
  id: string
  account_id: string
  name: string
  q: string
  universe_id: string | null
  cadence: Cadence
  channel: Channel
  target_url: string | null
  chat_url: string | null
  device_id: string | null
  signing_secret: string | null
  previous_secret: string | null
  previous_secret_until: number | string | null
  fields: ReadonlyArray<string>
  status: WebhookStatus
  disabled_reason: string | null
  origin_type: Origin["type"]
  origin_ref: string | null
  origin_condition: string | null
  created_at: number | string
  updated_at: number | string
  armed_at: number | string
  match_base: string
  match_delta: string
  match_deltas: number | string
  last_evaluated_at: number | string | null
  state_evaluated_at: number | string | null
  last_fired: number | string | null
  version: number | string
  created_seq: number | string
  state_seq: number | string
}

const num = (v: number | string | null): number | null => (v === null ? null : Number(v))
const maxOrNull = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : Math.max(a, b)

/**
 * The stored match set: `base` (comma-separated tickers) with `delta` applied
 * (`;>A,B;<C`: entries in order, `>` tickers that came in, `<` tickers that
 * left; see migration 0009). Ascending.
 */
export const decodeMatchSet = (base: string, delta: string): Array<string> => {
  const set = new Set(base === "" ? [] : base.split(","))
  if (delta !== "") {
    for (const entry of delta.split(";")) {
      if (entry === "") continue
      const names = entry.slice(1).split(",")
      if (entry[0] === ">") for (const n of names) set.add(n)
      else for (const n of names) set.delete(n)
    }
  }
  return [...set].sort()
}

/** a ticker symbol that can be written into a delta (no separator in it) */
const DELTA_SAFE = /^[^,;<>]+$/

/** The delta entry for a change of the match set (`undefined` when a symbol cannot be written so). */
export const encodeDelta = (added: ReadonlyArray<string>, removed: ReadonlyArray<string>): string | undefined => {
  for (const n of added) if (!DELTA_SAFE.test(n)) return undefined
  for (const n of removed) if (!DELTA_SAFE.test(n)) return undefined
  return `${added.length > 0 ? `;>${added.join(",")}` : ""}${removed.length > 0 ? `;<${removed.join(",")}` : ""}`
}

const toRecord = (r: Row): WebhookRecord => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  q: r.q,
  universeId: r.universe_id,
  cadence: r.cadence,
  channel: r.channel,
  targetUrl: r.target_url,
  chatUrl: r.chat_url,
  deviceId: r.device_id,
  signingSecret: r.signing_secret,
  previousSecret: r.previous_secret,
  previousSecretUntil: num(r.previous_secret_until),
  fields: r.fields,
  status: r.status,
  disabledReason: r.disabled_reason,
  origin: { type: r.origin_type, ref: r.origin_ref, condition: r.origin_condition },
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
  armedAt: Number(r.armed_at),
  lastMatchSet: decodeMatchSet(r.match_base, r.match_delta),
  matchDeltas: Number(r.match_deltas),
  lastEvaluatedAt: maxOrNull(num(r.last_evaluated_at), num(r.state_evaluated_at)),
  lastFired: num(r.last_fired),
  version: Number(r.version),
  seq: Number(r.created_seq),
  stateSeq: Number(r.state_seq)
})

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
  readonly fired: boolean
}

/** A delivery to enqueue. */
export interface NewDelivery {
  readonly id: string
  readonly webhookId: string
  readonly accountId: string
  readonly eventId: string
  readonly channel: Channel
  readonly targetUrl: string
  readonly test: boolean
  readonly payload: string
  /** epoch ms */
  readonly dueAt: number
}

export type CreateOutcome =
  | {
      readonly _tag: "Created"
      readonly record: WebhookRecord
      /** the evaluation ticks as the create's transaction saw them (for `effectiveLastEvaluated`) */
      readonly ticks: ReadonlyMap<Cadence, number>
    }
  | { readonly _tag: "LimitReached"; readonly active: number }

export type EnableOutcome =
  | { readonly _tag: "Enabled"; readonly record: WebhookRecord }
  | { readonly _tag: "LimitReached"; readonly active: number }
  | { readonly _tag: "NotFound" }

export interface WebhookPatch {
  readonly name?: string
  readonly targetUrl?: string | null
  readonly chatUrl?: string | null
  readonly cadence?: Cadence
  readonly fields?: ReadonlyArray<string>
}

export const insertDeliveries = (sql: SqlClient.SqlClient, deliveries: ReadonlyArray<NewDelivery>, nowS: number) =>
  deliveries.length === 0
    ? Effect.void
    : sql`INSERT INTO deliveries (id, webhook_id, account_id, event, event_id, channel, target_url, test, payload,
          attempt, status, due_at, created_at)
        SELECT d.id, d.webhook_id, d.account_id, 'webhook.fired', d.event_id, d.channel, d.target_url, d.test, d.payload,
          0, 'pending', d.due_at, ${nowS}
        FROM unnest(${deliveries.map((d) => d.id)}::text[], ${deliveries.map((d) => d.webhookId)}::text[],
          ${deliveries.map((d) => d.accountId)}::text[], ${deliveries.map((d) => d.eventId)}::text[],
          ${deliveries.map((d) => d.channel)}::text[], ${deliveries.map((d) => d.targetUrl)}::text[],
          ${deliveries.map((d) => d.test)}::boolean[], ${deliveries.map((d) => d.payload)}::text[],
          ${deliveries.map((d) => d.dueAt)}::bigint[])
          AS d(id, webhook_id, account_id, event_id, channel, target_url, test, payload, due_at)`.pipe(Effect.asVoid)

/** The most creates committed in one transaction. */
export const CREATE_BATCH = 256

interface PendingCreate {
  readonly accountId: string
  readonly id: string
  readonly config: WebhookConfig
  readonly cap: number | null
}

export class Webhooks extends Effect.Service<Webhooks>()("vigil/Webhooks", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** active webhooks of the account, under a lock on the account row (call inside a transaction) */
    const lockAndCount = (accountId: string) =>
      Effect.gen(function* () {
        yield* sql`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`
        const rows = yield* sql<{ n: number | string }>`SELECT count(*) AS n FROM webhooks
          WHERE account_id = ${accountId} AND status = 'active'`
        return Number(rows[0]?.n ?? 0)
      })

    /**
     * Commits a group of creates in one transaction, in their order: locks the accounts' rows
     * (sorted, so two groups never wait on each other crosswise), then counts the active webhooks
     * of the accounts with a cap (an index of active webhooks per account: the count reads at most
     * the account's active ones, never its disabled ones, and accounts without a cap count
     * nothing), admits each create while its account is under its cap, and inserts every admitted
     * row and its state in one statement, and reads the evaluation ticks (what a create answers
     * shows). Five statements whatever the group's size.
     */
    const commitCreates = (group: ReadonlyArray<PendingCreate>) =>
      Effect.gen(function* () {
        const ms = yield* Clock.currentTimeMillis
        const now = Math.floor(ms / 1000)
        const accounts = [...new Set(group.map((c) => c.accountId))].sort()
        yield* sql`SELECT id FROM accounts WHERE id = ANY(${accounts}::text[]) ORDER BY id FOR UPDATE`
        // counted after the lock, in a statement of its own: it sees every create committed before
        const capped = [...new Set(group.filter((c) => c.cap !== null).map((c) => c.accountId))]
        const active = new Map<string, number>()
        if (capped.length > 0) {
          const rows = yield* sql<{ account_id: string; n: number | string }>`SELECT account_id, count(*) AS n
            FROM webhooks WHERE account_id = ANY(${capped}::text[]) AND status = 'active' GROUP BY account_id`
          for (const r of rows) active.set(r.account_id, Number(r.n))
        }
        const outcomes: Array<CreateOutcome | undefined> = []
        const admitted: Array<PendingCreate> = []
        for (const c of group) {
          const n = active.get(c.accountId) ?? 0
          if (c.cap !== null && n >= c.cap) {
            outcomes.push({ _tag: "LimitReached", active: n })
          } else {
            active.set(c.accountId, n + 1)
            admitted.push(c)
            outcomes.push(undefined)
          }
        }
        if (admitted.length === 0) return outcomes as Array<CreateOutcome>
        const input = JSON.stringify(
          admitted.map(({ accountId, id, config }) => ({
            id,
            account_id: accountId,
            name: config.name,
            q: config.q,
            universe_id: config.universeId,
            cadence: config.cadence,
            channel: config.channel,
            target_url: config.targetUrl,
            chat_url: config.chatUrl,
            device_id: config.deviceId,
            signing_secret: config.signingSecret,
            fields: config.fields,
            origin_type: config.origin.type,
            origin_ref: config.origin.ref,
            origin_condition: config.origin.condition
          }))
        )
        // in the group's order, so `created_seq` orders them as they came
        const rows = yield* sql<Row>`WITH input AS (
            SELECT r.*, e.n FROM jsonb_array_elements(${input}::jsonb) WITH ORDINALITY AS e(v, n),
              jsonb_to_record(e.v) AS r(id text, account_id text, name text, q text, universe_id text, cadence text,
                channel text, target_url text, chat_url text, device_id text, signing_secret text, fields jsonb,
                origin_type text, origin_ref text, origin_condition text)),
          inserted AS (
            INSERT INTO webhooks (id, account_id, name, q, universe_id, cadence, channel, target_url, chat_url,
              device_id, signing_secret, fields, status, origin_type, origin_ref, origin_condition,
              created_at, updated_at, armed_at)
            SELECT id, account_id, name, q, universe_id, cadence, channel, target_url, chat_url, device_id,
              signing_secret, ARRAY(SELECT jsonb_array_elements_text(fields)), 'active', origin_type, origin_ref,
              origin_condition, ${now}, ${now}, ${ms}
            FROM input ORDER BY n
            RETURNING *),
          states AS (
            INSERT INTO webhook_states (webhook_id, armed_at) SELECT id, armed_at FROM inserted RETURNING webhook_id)
          SELECT inserted.*, '' AS match_base, '' AS match_delta, 0 AS match_deltas, 0 AS state_seq,
            NULL::bigint AS state_evaluated_at, NULL::bigint AS last_fired
          FROM inserted`
        const records = new Map(rows.map((r) => [r.id, toRecord(r)] as const))
        const tickRows = yield* ticks
        let k = 0
        return outcomes.map((o) => {
          if (o !== undefined) return o
          const record = records.get(admitted[k++]!.id)
          if (record === undefined) throw new Error("webhook create: an inserted row was not returned")
          return { _tag: "Created", record, ticks: tickRows } as CreateOutcome
        })
      }).pipe(sql.withTransaction)

    const grouped = yield* makeGroupCommit(commitCreates, CREATE_BATCH)

    /**
     * Creates an active webhook unless the account already has `cap` active ones (null = no cap).
     * Committed with the creates that wait at the same time (see `commitCreates`).
     */
    const create = (accountId: string, id: string, config: WebhookConfig, cap: number | null) =>
      grouped({ accountId, id, config, cap })

    const get = (accountId: string, id: string) =>
      Effect.map(sql<Row>`SELECT * FROM webhook_records WHERE account_id = ${accountId} AND id = ${id}`, (rows) =>
        rows.length === 0 ? undefined : toRecord(rows[0]!)
      )

    const getById = (id: string) =>
      Effect.map(sql<Row>`SELECT * FROM webhook_records WHERE id = ${id}`, (rows) =>
        rows.length === 0 ? undefined : toRecord(rows[0]!)
      )

    /** Several webhooks by id (any account), for the delivery workers' batches. */
    const getMany = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed(new Map<string, WebhookRecord>())
        : Effect.map(
            sql<Row>`SELECT * FROM webhook_records WHERE id = ANY(${ids}::text[])`,
            (rows) => new Map(rows.map((r) => [r.id, toRecord(r)] as const))
          )

    /** The account's webhooks newest first, after the creation position `afterSeq` when given. */
    const list = (accountId: string, limit: number, afterSeq?: number) =>
      Effect.map(
        afterSeq === undefined
          ? sql<Row>`SELECT * FROM webhook_records WHERE account_id = ${accountId}
              ORDER BY created_seq DESC LIMIT ${limit}`
          : sql<Row>`SELECT * FROM webhook_records WHERE account_id = ${accountId} AND created_seq < ${afterSeq}
              ORDER BY created_seq DESC LIMIT ${limit}`,
        (rows) => rows.map(toRecord)
      )

    /**
     * Applies a patch to the webhook as locked in this transaction (`FOR UPDATE`), so the fields it
     * leaves alone keep what concurrent patches wrote; undefined when the webhook does not exist.
     */
    const update = (accountId: string, id: string, patch: WebhookPatch) =>
      Effect.gen(function* () {
        const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const locked = yield* sql`SELECT id FROM webhooks WHERE account_id = ${accountId} AND id = ${id} FOR UPDATE`
        if (locked.length === 0) return undefined
        const current = yield* get(accountId, id)
        if (current === undefined) return undefined
        const rows = yield* sql<{ id: string }>`UPDATE webhooks SET
            name = ${patch.name ?? current.name},
            target_url = ${patch.targetUrl !== undefined ? patch.targetUrl : current.targetUrl},
            chat_url = ${patch.chatUrl !== undefined ? patch.chatUrl : current.chatUrl},
            cadence = ${patch.cadence ?? current.cadence},
            fields = ${patch.fields ?? current.fields}::text[],
            updated_at = ${now}, version = nextval('webhook_version')
          WHERE account_id = ${accountId} AND id = ${id} RETURNING id`
        return rows.length === 0 ? undefined : yield* getById(id)
      }).pipe(sql.withTransaction)

    /** Disables; the effective `last_evaluated_at` is frozen into the row. */
    const disable = (accountId: string | undefined, id: string, reason: string, lastEvaluatedAt: number | null) =>
      Effect.gen(function* () {
        const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const rows = yield* sql<{ id: string }>`UPDATE webhooks SET status = 'disabled', disabled_reason = ${reason},
            last_evaluated_at = ${lastEvaluatedAt}, updated_at = ${now}, version = nextval('webhook_version')
          WHERE id = ${id} AND status = 'active' ${accountId === undefined ? sql`` : sql`AND account_id = ${accountId}`}
          RETURNING id`
        return rows.length === 0 ? undefined : yield* getById(id)
      }).pipe(sql.withTransaction)

    /**
     * Enables a disabled webhook unless that would exceed `cap` active ones:
     * clears `last_match_set` and `last_evaluated_at`, so the next evaluation
     * fires once for every current match. An active webhook is returned as it is.
     */
    const enable = (accountId: string, id: string, cap: number | null) =>
      Effect.gen(function* () {
        const ms = yield* Clock.currentTimeMillis
        const active = yield* lockAndCount(accountId)
        const current = yield* get(accountId, id)
        if (current === undefined) return { _tag: "NotFound" } as EnableOutcome
        if (current.status === "active") return { _tag: "Enabled", record: current } as EnableOutcome
        if (cap !== null && active >= cap) return { _tag: "LimitReached", active } as EnableOutcome
        yield* sql`UPDATE webhooks SET status = 'active', disabled_reason = NULL,
            last_evaluated_at = NULL, armed_at = ${ms}, updated_at = ${Math.floor(ms / 1000)},
            version = nextval('webhook_version')
          WHERE account_id = ${accountId} AND id = ${id}`
        // the match state cleared (a new state_seq, so a write computed before is refused)
        yield* sql`INSERT INTO webhook_states (webhook_id, armed_at, state_seq) VALUES (${id}, ${ms}, 1)
          ON CONFLICT (webhook_id) DO UPDATE SET armed_at = EXCLUDED.armed_at, state_seq = webhook_states.state_seq + 1,
            base = '', delta = '', deltas = 0, evaluated_at = NULL`
        return { _tag: "Enabled", record: (yield* getById(id))! } as EnableOutcome
      }).pipe(sql.withTransaction)

    const remove = (accountId: string, id: string) =>
      Effect.map(
        sql<{ id: string }>`DELETE FROM webhooks WHERE account_id = ${accountId} AND id = ${id} RETURNING id`,
        (rows) => rows.length > 0
      )

    /** Replaces the signing secret; the old one keeps signing until `previousUntil` (epoch ms). */
    const rotateSecret = (accountId: string, id: string, secret: string, previousUntil: number) =>
      Effect.gen(function* () {
        const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const rows = yield* sql<{ id: string }>`UPDATE webhooks SET previous_secret = signing_secret,
            previous_secret_until = ${previousUntil}, signing_secret = ${secret}, updated_at = ${now},
            version = nextval('webhook_version')
          WHERE account_id = ${accountId} AND id = ${id} AND channel = 'webhook' RETURNING id`
        return rows.length === 0 ? undefined : yield* getById(id)
      }).pipe(sql.withTransaction)

    /**
     * A plan downgrade: keeps the `cap` oldest active webhooks and disables the
     * rest (most recently created first); configuration is kept. Returns the
     * disabled ids.
     */
    const enforceCap = (accountId: string, cap: number | null) =>
      Effect.gen(function* () {
        if (cap === null) return [] as ReadonlyArray<string>
        const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        yield* lockAndCount(accountId)
        const rows = yield* sql<{ id: string }>`UPDATE webhooks SET status = 'disabled', disabled_reason = 'plan_limit',
            updated_at = ${now}, version = nextval('webhook_version')
          WHERE id IN (SELECT id FROM webhooks WHERE account_id = ${accountId} AND status = 'active'
            ORDER BY created_seq ASC OFFSET ${cap})
          RETURNING id`
        return rows.map((r) => r.id)
      }).pipe(sql.withTransaction)

    /**
     * The webhooks changed after `version` (all when 0), for the evaluator, in version order: at
     * most `limit` of them, so a start with 100,000 webhooks reads them a page at a time instead
     * of holding every full row at once. Every tick asks: the highest version first (an index
     * probe), so a tick with no change reads no row. `repair` (the first page of a sync) first
     * gives a state row to any webhook inserted without one (by hand): the evaluator writes
     * states there.
     */
    const changedSince = (version: number, limit: number, repair: boolean) =>
      Effect.gen(function* () {
        if (version > 0) {
          const top = yield* sql<{ v: number | string | null }>`SELECT max(version) AS v FROM webhooks`
          if (Number(top[0]?.v ?? 0) <= version) return [] as Array<WebhookRecord>
        }
        if (repair) {
          yield* sql`INSERT INTO webhook_states (webhook_id, armed_at)
            SELECT w.id, w.armed_at FROM webhooks w
            WHERE w.version > ${version} AND NOT EXISTS (SELECT 1 FROM webhook_states s WHERE s.webhook_id = w.id)
            ON CONFLICT (webhook_id) DO NOTHING`
        }
        const rows = yield* sql<Row>`SELECT * FROM webhook_records WHERE version > ${version}
          ORDER BY version LIMIT ${limit}`
        return rows.map(toRecord)
      })

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
     * of the webhooks written. With `writer` (an evaluator instance), a commit
     * that writes states also bumps the state writer's counter (`stateWriter`).
     * Returns the ids written and the counter's new value.
     */
    const commitTick = (
      evaluatedAt: number,
      cadences: ReadonlyArray<Cadence>,
      changes: ReadonlyArray<MatchChange>,
      deliveries: ReadonlyArray<NewDelivery>,
      writer?: string
    ) =>
      Effect.gen(function* () {
        const nowS = Math.floor(evaluatedAt / 1000)
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
        // the state_seq the diff started from), and the fires of exactly those webhooks
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
              state_seq = s.state_seq + 1
            FROM unnest(${changes.map((c) => c.id)}::text[], ${changes.map((c) => c.armedAt)}::bigint[],
              ${changes.map((c) => c.stateSeq)}::bigint[], ${full}::boolean[], ${text}::text[],
              ${changes.map((c) => c.fired)}::boolean[])
              AS i(id, armed_at, state_seq, whole, body, fired)
            WHERE s.webhook_id = i.id AND s.armed_at = i.armed_at AND s.state_seq = i.state_seq
              AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = i.id AND w.status = 'active' AND w.armed_at = i.armed_at)
            RETURNING s.webhook_id AS id),
          queued AS (
            INSERT INTO deliveries (id, webhook_id, account_id, event, event_id, channel, target_url, test, payload,
              attempt, status, due_at, created_at)
            SELECT d.id, d.webhook_id, d.account_id, 'webhook.fired', d.event_id, d.channel, d.target_url, d.test,
              d.payload, 0, 'pending', d.due_at, ${nowS}
            FROM unnest(${d.map((x) => x.id)}::text[], ${d.map((x) => x.webhookId)}::text[],
              ${d.map((x) => x.accountId)}::text[], ${d.map((x) => x.eventId)}::text[],
              ${d.map((x) => x.channel)}::text[], ${d.map((x) => x.targetUrl)}::text[],
              ${d.map((x) => x.test)}::boolean[], ${d.map((x) => x.payload)}::text[],
              ${d.map((x) => x.dueAt)}::bigint[])
              AS d(id, webhook_id, account_id, event_id, channel, target_url, test, payload, due_at)
            WHERE d.webhook_id IN (SELECT id FROM written)
            RETURNING 1)
          SELECT (SELECT array_agg(id) FROM written) AS written, (SELECT count(*) FROM queued) AS queued`
        return { written: new Set<string>(rows[0]?.written ?? []), writerSeq }
      }).pipe(sql.withTransaction)

    /**
     * Takes or renews the lease `name` for `holder` until `until` (epoch ms);
     * true when `holder` holds it (it was free, expired, or already its own).
     */
    const acquireLease = (name: string, holder: string, now: number, until: number) =>
      Effect.map(
        sql<{ holder: string }>`INSERT INTO leases (name, holder, until) VALUES (${name}, ${holder}, ${until})
          ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, until = EXCLUDED.until
            WHERE leases.until < ${now} OR leases.holder = EXCLUDED.holder
          RETURNING holder`,
        (rows) => rows.length > 0
      )

    /** The stored match state of webhooks (to resynchronize actors whose write lost a race). */
    const states = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed([] as ReadonlyArray<WebhookRecord>)
        : Effect.map(sql<Row>`SELECT * FROM webhook_records WHERE id = ANY(${ids}::text[])`, (rows) =>
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
     * Whether any webhook changed after `version` or went away: the active count and the highest
     * version (one cheap query instead of comparing every id).
     */
    const activeSummary = Effect.map(
      sql<{ n: number | string; v: number | string | null }>`SELECT
          (SELECT count(*) FROM webhooks WHERE status = 'active') AS n, (SELECT max(version) FROM webhooks) AS v`,
      (rows) => ({ active: Number(rows[0]?.n ?? 0), version: Number(rows[0]?.v ?? 0) })
    )

    /** When each cadence was last evaluated (epoch ms). */
    const ticks = Effect.map(
      sql<{ cadence: Cadence; evaluated_at: number | string }>`SELECT cadence, evaluated_at FROM evaluation_ticks`,
      (rows) => new Map(rows.map((r) => [r.cadence, Number(r.evaluated_at)] as const))
    )

    return {
      create,
      get,
      getById,
      getMany,
      list,
      update,
      disable,
      enable,
      remove,
      rotateSecret,
      enforceCap,
      changedSince,
      existing,
      commitTick,
      acquireLease,
      stateWriter,
      universeDigests,
      universesVersion,
      universeLists,
      activeSummary,
      states,
      ticks
    } as const
  })
}) {}

/**
 * `last_evaluated_at` as the API shows it: the last tick of the webhook's
 * cadence when the webhook is active and was armed by then, else the value
 * frozen in the row.
 */
export const effectiveLastEvaluated = (w: WebhookRecord, ticks: ReadonlyMap<Cadence, number>): number | null => {
  const tick = ticks.get(w.cadence)
  return w.status === "active" && tick !== undefined && tick >= w.armedAt
    ? Math.max(tick, w.lastEvaluatedAt ?? 0)
    : w.lastEvaluatedAt
}
