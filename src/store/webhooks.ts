/**
 * Webhook subscriptions, account-scoped: the resource (create, read, list,
 * update, enable, disable, delete, rotate). The evaluator's state — match
 * sets written each tick, its lease, what changed since its last sync — is
 * `EvaluatorState` (evaluatorState.ts).
 *
 * The store keeps what it is given: validation (compiling `q`, target
 * safety, plan gates) is the API's. One rule lives here because it needs a
 * transaction: the plan's webhook cap (checked under a lock on the account
 * row, so concurrent creates cannot overshoot it).
 *
 * Creates are grouped: concurrent `create` calls wait in a queue, and one
 * fiber commits all those waiting in one transaction of a fixed number of
 * statements (lock the accounts, count the capped ones' active webhooks,
 * insert every row with its state), so a create costs neither a transaction
 * of its own nor anything that grows with the account's webhooks.
 */

import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import type { Cadence } from "../market/ports.js"
import { makeGroupCommit } from "./groupCommit.js"

/** an evaluation cadence: defined with the refresh tick (`src/market/ports.ts`) */
export type { Cadence }
export type Channel = "webhook" | "chat" | "in_app" | "mobile_push"
export type WebhookStatus = "active" | "disabled"
export type FireOn = "enter" | "exit" | "both"

/** A subscription's firing options (issue 16; `src/alerts/firing/options.ts` has their rules). */
export interface FiringOptions {
  readonly fireOn: FireOn
  /** ms a ticker must match on every evaluation before it enters (0: at once) */
  readonly pendingMs: number
  /** the frozen hysteresis condition, or null (a ticker leaves when `q` turns false) */
  readonly clearQ: string | null
  /** ms after a fire during which a re-entry is absorbed (0: none) */
  readonly cooldownMs: number
  /** ms between repeats of a ticker that stays inside, or null (no repeat) */
  readonly repeatMs: number | null
}

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
  readonly firing: FiringOptions
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
  /** the evaluator's slice (0–1023, stored by the database: migration 0013) */
  readonly slice: number
  /** epoch ms until which events are written to the feed but not delivered, or null */
  readonly snoozedUntil: number | null
  /** the sequence of the webhook's last event (0: none yet) */
  readonly eventSeq: number
  /** the alert machine's per-ticker memory (`encodeMemory`; empty without pending, cooldown or repeat) */
  readonly memory: string
}

/** A row of the `webhook_records` view. */
export interface WebhookRow {
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
  slice: number | string
  fire_on: FireOn
  pending_for_ms: number | string
  clear_q: string | null
  cooldown_ms: number | string
  repeat_interval_ms: number | string | null
  snoozed_until: number | string | null
  event_seq: number | string
  memory: string
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

export const toRecord = (r: WebhookRow): WebhookRecord => ({
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
  stateSeq: Number(r.state_seq),
  slice: Number(r.slice),
  firing: {
    fireOn: r.fire_on,
    pendingMs: Number(r.pending_for_ms),
    clearQ: r.clear_q,
    cooldownMs: Number(r.cooldown_ms),
    repeatMs: num(r.repeat_interval_ms)
  },
  snoozedUntil: num(r.snoozed_until),
  eventSeq: Number(r.event_seq),
  memory: r.memory
})

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
  readonly firing?: FiringOptions
}

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
     * Inserts active webhooks with their state rows, in the given order (`created_seq` orders them
     * so), in one statement (call inside a transaction).
     */
    const insertRows = (admitted: ReadonlyArray<Omit<PendingCreate, "cap">>, ms: number) =>
      Effect.gen(function* () {
        const now = Math.floor(ms / 1000)
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
            origin_condition: config.origin.condition,
            fire_on: config.firing.fireOn,
            pending_for_ms: config.firing.pendingMs,
            clear_q: config.firing.clearQ,
            cooldown_ms: config.firing.cooldownMs,
            repeat_interval_ms: config.firing.repeatMs
          }))
        )
        // in the group's order, so `created_seq` orders them as they came
        const rows = yield* sql<WebhookRow>`WITH input AS (
            SELECT r.*, e.n FROM jsonb_array_elements(${input}::jsonb) WITH ORDINALITY AS e(v, n),
              jsonb_to_record(e.v) AS r(id text, account_id text, name text, q text, universe_id text, cadence text,
                channel text, target_url text, chat_url text, device_id text, signing_secret text, fields jsonb,
                origin_type text, origin_ref text, origin_condition text, fire_on text, pending_for_ms bigint,
                clear_q text, cooldown_ms bigint, repeat_interval_ms bigint)),
          inserted AS (
            INSERT INTO webhooks (id, account_id, name, q, universe_id, cadence, channel, target_url, chat_url,
              device_id, signing_secret, fields, status, origin_type, origin_ref, origin_condition,
              fire_on, pending_for_ms, clear_q, cooldown_ms, repeat_interval_ms, created_at, updated_at, armed_at)
            SELECT id, account_id, name, q, universe_id, cadence, channel, target_url, chat_url, device_id,
              signing_secret, ARRAY(SELECT jsonb_array_elements_text(fields)), 'active', origin_type, origin_ref,
              origin_condition, fire_on, pending_for_ms, clear_q, cooldown_ms, repeat_interval_ms,
              ${now}, ${now}, ${ms}
            FROM input ORDER BY n
            RETURNING *),
          states AS (
            INSERT INTO webhook_states (webhook_id, armed_at) SELECT id, armed_at FROM inserted RETURNING webhook_id)
          SELECT inserted.*, '' AS match_base, '' AS match_delta, 0 AS match_deltas, 0 AS state_seq,
            NULL::bigint AS state_evaluated_at, NULL::bigint AS last_fired, 0 AS event_seq, '' AS memory
          FROM inserted`
        return rows
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
        const rows = yield* insertRows(admitted, ms)
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

    /**
     * Creates several webhooks of one account all or nothing, in one transaction: none when they
     * would take the account past `cap` active webhooks (null = no cap).
     */
    const createBatch = (
      accountId: string,
      items: ReadonlyArray<{ readonly id: string; readonly config: WebhookConfig }>,
      cap: number | null
    ) =>
      Effect.gen(function* () {
        const ms = yield* Clock.currentTimeMillis
        const active = yield* lockAndCount(accountId)
        if (cap !== null && active + items.length > cap) return { _tag: "LimitReached", active } as const
        const rows = yield* insertRows(
          items.map((i) => ({ accountId, ...i })),
          ms
        )
        const byId = new Map(rows.map((r) => [r.id, toRecord(r)] as const))
        const records = items.map((i) => byId.get(i.id)!)
        return { _tag: "Created", records, ticks: yield* ticks } as const
      }).pipe(sql.withTransaction)

    const get = (accountId: string, id: string) =>
      Effect.map(
        sql<WebhookRow>`SELECT * FROM webhook_records WHERE account_id = ${accountId} AND id = ${id}`,
        (rows) => (rows.length === 0 ? undefined : toRecord(rows[0]!))
      )

    /** `get` and `ticks` in one statement (one round trip): what a read that shows `last_evaluated_at` needs. */
    const getWithTicks = (accountId: string, id: string) =>
      Effect.map(
        sql<WebhookRow & { ticks_text: string | null }>`SELECT w.*,
            (SELECT string_agg(cadence || '=' || evaluated_at::text, ',') FROM evaluation_ticks) AS ticks_text
          FROM webhook_records w WHERE w.account_id = ${accountId} AND w.id = ${id}`,
        (rows) => {
          if (rows.length === 0) return undefined
          const ticks = new Map<Cadence, number>()
          for (const pair of (rows[0]!.ticks_text ?? "").split(",")) {
            const [cadence, at] = pair.split("=")
            if (cadence !== undefined && at !== undefined && at !== "") ticks.set(cadence as Cadence, Number(at))
          }
          return { record: toRecord(rows[0]!), ticks: ticks as ReadonlyMap<Cadence, number> }
        }
      )

    const getById = (id: string) =>
      Effect.map(sql<WebhookRow>`SELECT * FROM webhook_records WHERE id = ${id}`, (rows) =>
        rows.length === 0 ? undefined : toRecord(rows[0]!)
      )

    /** Several webhooks by id (any account), for the delivery workers' batches. */
    const getMany = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed(new Map<string, WebhookRecord>())
        : Effect.map(
            sql<WebhookRow>`SELECT * FROM webhook_records WHERE id = ANY(${ids}::text[])`,
            (rows) => new Map(rows.map((r) => [r.id, toRecord(r)] as const))
          )

    /** The account's webhooks newest first, after the creation position `afterSeq` when given. */
    const list = (accountId: string, limit: number, afterSeq?: number) =>
      Effect.map(
        afterSeq === undefined
          ? sql<WebhookRow>`SELECT * FROM webhook_records WHERE account_id = ${accountId}
              ORDER BY created_seq DESC LIMIT ${limit}`
          : sql<WebhookRow>`SELECT * FROM webhook_records WHERE account_id = ${accountId} AND created_seq < ${afterSeq}
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
            fire_on = ${(patch.firing ?? current.firing).fireOn},
            pending_for_ms = ${(patch.firing ?? current.firing).pendingMs},
            clear_q = ${(patch.firing ?? current.firing).clearQ},
            cooldown_ms = ${(patch.firing ?? current.firing).cooldownMs},
            repeat_interval_ms = ${(patch.firing ?? current.firing).repeatMs},
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

    /** Snoozes until `until` (epoch ms), or ends a snooze (null); undefined when the webhook does not exist. */
    const snooze = (accountId: string, id: string, until: number | null) =>
      Effect.gen(function* () {
        const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const rows = yield* sql<{ id: string }>`UPDATE webhooks SET snoozed_until = ${until}, updated_at = ${now},
            version = nextval('webhook_version')
          WHERE account_id = ${accountId} AND id = ${id} RETURNING id`
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

    /** When each cadence was last evaluated (epoch ms). */
    const ticks = Effect.map(
      sql<{ cadence: Cadence; evaluated_at: number | string }>`SELECT cadence, evaluated_at FROM evaluation_ticks`,
      (rows) => new Map(rows.map((r) => [r.cadence, Number(r.evaluated_at)] as const))
    )

    return {
      create,
      createBatch,
      get,
      getWithTicks,
      getById,
      getMany,
      list,
      update,
      disable,
      enable,
      remove,
      rotateSecret,
      snooze,
      enforceCap,
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
