/**
 * The crash-safety proof (issue 7, item 1), shared by `npm run proof:crash`
 * (scripts/crash-safety.ts) and the CI-sized test
 * (test/reliability/crashSafety.test.ts).
 *
 * It runs the real service (as `npm start`: its build, test/support/server.ts) on a PostgreSQL
 * schema of its own (or the embedded store in a data directory of its own)
 * with a local receiver, a 2 s refresh, a short retry schedule and a few
 * hundred active webhooks whose match states change often: ticker-scoped
 * price thresholds set at the current price, conditions over the account's
 * own universes (edited between refreshes, so tickers enter and leave them),
 * over `top_100`, and over the whole market, and a tenth more ticker
 * thresholds with firing options (issue 16: `fire_on: both` with `clear_q`
 * and a cooldown, or with `pending_for` and `repeat_interval`); a few are
 * disabled and enabled again as it runs. A driver edits universes, toggles webhooks and calls
 * `POST /admin/refresh` in a loop; the killer SIGKILLs the service at random
 * moments — while a refresh is being evaluated, while the receiver has
 * deliveries in flight, or at a random time — and restarts it.
 *
 * The audit: before any webhook exists it adds two triggers to the service's
 * schema (its own instrumentation, not the service's): every change of a
 * webhook's stored match state is logged with the old and new sets and the
 * transaction id, and every delivery row with the transaction id that
 * inserted it. So each fire can be tied to the state write that recorded it.
 *
 * What it checks at the end (after a last, evaluated refresh and a drain):
 * 1. every fire (every non-test delivery row) was delivered: its status is
 *    `delivered` and the receiver got at least one POST with its `webhook-id`,
 *    a valid signature and exactly the stored body; nothing was received
 *    that is not in the store, and one `webhook-id` never carried two bodies;
 * 2. no match transition was fired under two event ids. A transition is a
 *    ticker entering a webhook's stored match set. Each fire must belong to
 *    exactly one state write of its webhook in the same transaction, list
 *    exactly the tickers that write added (`match_count` = |new − old|), and
 *    never a ticker that was already in the stored set; each write that added
 *    tickers must have exactly one fire. And from the receiver's side: per
 *    webhook and ticker, two distinct event ids naming the ticker must have a
 *    stored state without it between them, and a webhook never has two event
 *    ids for one `as_of`;
 * 3. no delivery is left `pending` after the drain (the 60 s lease of an
 *    attempt cut by a kill, plus the retry schedule, plus slack);
 * 4. every active webhook's stored match set equals a recomputation: the
 *    same `q` (and universe) through `POST /v2/scan` on the snapshot the last
 *    refresh evaluated (the last run uses a 1 h refresh interval, so the
 *    snapshot stays put while it scans);
 * 5. every webhook's events reached the receiver with `data.sequence` 1..n,
 *    one event id per sequence, and its feed (`GET /v2/webhooks/{id}/events`)
 *    holds exactly those events with the bodies delivered.
 * Checks 2 and 4 are of the plain webhooks (the options' entries are not the
 * set's additions, and they fire exits); check 5 is of every webhook.
 *
 * With `runners` (`npm run proof:cluster`, test/reliability/cluster.test.ts) the same run goes on
 * a cluster (support/topology.ts): an API process, which the driver talks to and which is never
 * killed, and runners on a fresh database; the kills are of runners — while a refresh is being
 * evaluated, the runner running the refresh-tick singleton, or any — SIGKILL or SIGTERM, each
 * restarted, and each measured: until the others hold every slice (handover), until every slice
 * has committed a tick issued after the signal (failover), the slice-ticks skipped meanwhile, and
 * how soon the restarted runner holds slices again. Checked on top: SIGKILL failover ≤ 15 s,
 * SIGTERM handover ≤ 5 s with no tick missed, every restarted runner taking slices back.
 */
import { rmSync } from "node:fs"
import type { MarketChoice } from "../../support/sampleTickers.js"
import { admin, newDataDir } from "../../support/server.js"
import { embeddedInspector, type Inspector, privateDatabase, privateSchema } from "./database.js"
import { type Receiver, startReceiver } from "./receiver.js"
import { clusterOf, type RunnerKill, singleService } from "./topology.js"

export interface CrashOptions {
  readonly store: "postgres" | "embedded"
  /** for `postgres`: the server to make a private schema (a database, for a cluster) on */
  readonly databaseUrl?: string
  readonly webhooks: number
  readonly kills: number
  /**
   * `proof:cluster`: an API process and this many runners on a fresh PostgreSQL database; the
   * `kills` SIGKILL runners, `sigterms` more stop one gracefully, each restarted
   */
  readonly runners?: number
  readonly sigterms?: number
  /** the Redis the cluster's processes share (API processes need one) */
  readonly redisUrl?: string
  readonly historyDays?: number
  /**
   * The processes' market: the seed's tickers ("all", the default: `npm run proof:*`) or the
   * suites' sample (the CI-sized runs in `npm test`; server.ts `StartOptions.market`)
   */
  readonly market?: MarketChoice
  readonly log?: (line: string) => void
  /** keep the schema / data directory for inspection */
  readonly keep?: boolean
  /**
   * The failover bounds checked (ms; default the issue's figures: SIGKILL 15 s, SIGTERM 5 s).
   * `proof:cluster` holds the figures; the CI-sized test checks that failover happens, with
   * room for a shared machine's stalls, and prints the figures (a slow one traced).
   */
  readonly failoverBoundsMs?: { readonly sigkill: number; readonly sigterm: number }
}

export interface CrashReport {
  readonly store: string
  readonly webhooks: number
  readonly kills: number
  readonly killsDuringRefresh: number
  readonly killsWithDeliveriesInFlight: number
  readonly restartMs: { readonly median: number; readonly max: number }
  readonly refreshes: number
  readonly refreshesFailed: number
  readonly universeEdits: number
  readonly toggles: number
  readonly stateWrites: number
  readonly fires: number
  readonly transitions: number
  readonly posts: number
  readonly distinctIds: number
  /** event ids received more than once (at-least-once redeliveries, the same id each time) */
  readonly redeliveredIds: number
  readonly injected503: number
  readonly maxAttempt: number
  readonly duplicateTransitions: number
  readonly drainMs: number
  readonly recomputed: number
  /** the cluster run: each kill of a runner, the ticks issued, the ticks slices skipped */
  readonly cluster?: {
    readonly runners: number
    readonly kills: ReadonlyArray<RunnerKill>
    readonly ticks: number
    readonly ticksMissed: number
  }
  readonly checks: ReadonlyArray<{ readonly name: string; readonly passed: boolean; readonly detail: string }>
  readonly violations: ReadonlyArray<string>
}

const RETRY_SCHEDULE = "1s,2s,2s,3s,3s"
const LEASE_MS = 60_000
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const rand = (a: number, b: number) => a + Math.random() * (b - a)
const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(Math.random() * xs.length)]!
const shuffle = <A>(xs: ReadonlyArray<A>): Array<A> => {
  const out = [...xs]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0

const AUDIT_SQL = [
  `CREATE TABLE audit_states (seq bigserial PRIMARY KEY, webhook_id text NOT NULL, tx bigint NOT NULL,
    old_set text[] NOT NULL, new_set text[] NOT NULL, old_seq bigint, new_seq bigint,
    old_status text, new_status text, old_armed bigint, new_armed bigint)`,
  // match states live in webhook_states as a base set plus appended deltas (migration 0009): decode both sides
  `CREATE FUNCTION audit_decode(base text, delta text) RETURNS text[] LANGUAGE plpgsql AS $$
  DECLARE
    s text[] := CASE WHEN base = '' THEN ARRAY[]::text[] ELSE string_to_array(base, ',') END;
    e text;
    names text[];
  BEGIN
    IF delta <> '' THEN
      FOREACH e IN ARRAY string_to_array(delta, ';') LOOP
        CONTINUE WHEN e = '';
        names := string_to_array(substr(e, 2), ',');
        IF left(e, 1) = '>' THEN
          s := array(SELECT DISTINCT x FROM unnest(s || names) AS x);
        ELSE
          s := array(SELECT x FROM unnest(s) AS x EXCEPT SELECT y FROM unnest(names) AS y);
        END IF;
      END LOOP;
    END IF;
    RETURN array(SELECT DISTINCT x FROM unnest(s) AS x ORDER BY 1);
  END $$`,
  `CREATE FUNCTION audit_state() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE st text;
  BEGIN
    IF NEW.base IS DISTINCT FROM OLD.base OR NEW.delta IS DISTINCT FROM OLD.delta
       OR NEW.state_seq IS DISTINCT FROM OLD.state_seq OR NEW.armed_at IS DISTINCT FROM OLD.armed_at THEN
      SELECT status INTO st FROM webhooks WHERE id = NEW.webhook_id;
      INSERT INTO audit_states (webhook_id, tx, old_set, new_set, old_seq, new_seq, old_status, new_status,
        old_armed, new_armed)
      VALUES (NEW.webhook_id, txid_current(), audit_decode(OLD.base, OLD.delta), audit_decode(NEW.base, NEW.delta),
        OLD.state_seq, NEW.state_seq, st, st, OLD.armed_at, NEW.armed_at);
    END IF;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER audit_state AFTER UPDATE ON webhook_states FOR EACH ROW EXECUTE FUNCTION audit_state()`,
  `CREATE TABLE audit_deliveries (delivery_id text PRIMARY KEY, tx bigint NOT NULL)`,
  `CREATE FUNCTION audit_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO audit_deliveries (delivery_id, tx) VALUES (NEW.id, txid_current());
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER audit_delivery AFTER INSERT ON deliveries FOR EACH ROW EXECUTE FUNCTION audit_delivery()`
]

interface Http {
  status: number
  body: any
}

const call = async (url: string, key: string, method: string, path: string, body?: unknown): Promise<Http> => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000)
  })
  const text = await res.text()
  let parsed: any = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed }
}

const must = (r: Http, what: string, status = 200) => {
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 400)}`)
  return r.body
}

export const runCrashSafety = async (options: CrashOptions): Promise<CrashReport> => {
  const log = options.log ?? (() => {})
  const receiver: Receiver = await startReceiver({ failFirst: 0.1, maxDelayMs: 40 })
  const runners = options.runners ?? 0
  const pgSchema =
    options.store !== "postgres"
      ? undefined
      : runners > 0
        ? await privateDatabase(options.databaseUrl ?? "", "cluster_proof")
        : await privateSchema(options.databaseUrl ?? "", "crash")
  const dataDir = newDataDir(pgSchema === undefined ? {} : { DATABASE_URL: pgSchema.serviceUrl })
  const baseEnv: Record<string, string> = {
    DATA_DIR: dataDir,
    HISTORY_DAYS: String(options.historyDays ?? 30),
    REFRESH_INTERVAL: "2s",
    WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
    WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE,
    ...(pgSchema === undefined ? {} : { DATABASE_URL: pgSchema.serviceUrl }),
    ...(options.redisUrl === undefined ? {} : { REDIS_URL: options.redisUrl })
  }
  const market = options.market ?? "all"
  const single = runners > 0 ? undefined : singleService(baseEnv, market)
  const cluster =
    runners > 0 && pgSchema !== undefined ? clusterOf(baseEnv, runners, pgSchema.inspector, market) : undefined
  const topology = (single ?? cluster)!
  const server = () => topology.api()
  const violations: Array<string> = []
  const violate = (what: string) => {
    if (violations.length < 200) violations.push(what)
  }

  try {
    // ---- setup: migrations, the audit triggers, the account, universes, webhooks ----------------
    await topology.start()
    if (pgSchema !== undefined) {
      const db = await pgSchema.inspector()
      for (const statement of AUDIT_SQL) await db.query(statement)
      await db.close()
    } else {
      await topology.stop()
      const db = await embeddedInspector(dataDir)
      for (const statement of AUDIT_SQL) await db.query(statement)
      await db.close()
      await topology.start()
    }
    const url = () => server()!.url
    const key = must(await admin(server()!, "POST", "/admin/accounts", { plan: "scale" }), "create account", 201)
      .api_key as string

    const scanAll = async (q: string, universe: string | undefined, fields?: string) => {
      const out: Array<Record<string, any>> = []
      let cursor: string | undefined
      for (;;) {
        const body = must(
          await call(url(), key, "POST", "/v2/scan", {
            q,
            limit: 100,
            order: "ticker",
            dir: "asc",
            ...(universe === undefined ? {} : { universe }),
            ...(fields === undefined ? {} : { fields }),
            ...(cursor === undefined ? {} : { cursor })
          }),
          `scan ${q}`
        )
        out.push(...body.results)
        if (body.next_cursor === null) return out
        cursor = body.next_cursor
      }
    }

    const top = await scanAll("price > 0", "top_100", "price")
    const large = await scanAll("market_cap > 100000000000", undefined, "price")
    const pool = [...new Set([...top, ...large].map((r) => String(r.ticker)))]
    const prices = new Map<string, number>([...top, ...large].map((r) => [String(r.ticker), Number(r.price)]))
    log(`pool of ${pool.length} tickers`)

    const UNIVERSES = 4
    const universeIds: Array<string> = []
    for (let u = 0; u < UNIVERSES; u++) {
      const id = `crash_u${u}`
      must(
        await call(url(), key, "POST", "/v2/universes", {
          id,
          name: `crash ${u}`,
          tickers: shuffle(pool).slice(0, 30)
        }),
        "create universe",
        201
      )
      universeIds.push(id)
    }

    const n = options.webhooks
    const nTicker = Math.round(n * 0.6)
    const nUniverse = Math.round(n * 0.25)
    const nMarket = n - nTicker - nUniverse
    const webhookIds: Array<string> = []
    const target = (i: number) => `${receiver.url}/hook/${i}`
    const created = (body: any) => {
      webhookIds.push(body.id)
      receiver.secrets.set(body.id, body.signing_secret)
    }
    for (let i = 0; i < nTicker; i++) {
      const t = pick(pool)
      const p = prices.get(t)!
      const threshold = (p * (1 + rand(-0.0005, 0.0005))).toPrecision(8)
      created(
        must(
          await call(url(), key, "POST", `/v2/tickers/${encodeURIComponent(t)}/subscribe`, {
            condition: `price > ${threshold}`,
            target_url: target(webhookIds.length)
          }),
          "subscribe ticker"
        )
      )
    }
    const universeQs = ["price > 0", "day_change_pct > 0", "rsi_14 > 50", "day_change_pct < 0"]
    for (let i = 0; i < nUniverse; i++) {
      const universe = i % 5 === 4 ? "top_100" : pick(universeIds)
      created(
        must(
          await call(url(), key, "POST", "/v2/webhooks", {
            q: pick(universeQs),
            universe,
            target_url: target(webhookIds.length)
          }),
          "create universe webhook",
          201
        )
      )
    }
    const marketQs = [
      "day_change_pct > 0.01 AND market_cap > 10000000000",
      "day_change_pct > 0.02 AND market_cap > 5000000000",
      "day_change_pct < -0.01 AND market_cap > 10000000000",
      "day_change_pct > 0 AND market_cap > 200000000000",
      "day_change_pct < 0 AND market_cap > 200000000000",
      "rsi_14 > 70 AND market_cap > 20000000000",
      "rsi_14 < 35 AND market_cap > 20000000000"
    ]
    for (let i = 0; i < nMarket; i++) {
      created(
        must(
          await call(url(), key, "POST", "/v2/webhooks", { q: marketQs[i % marketQs.length], target_url: target(i) }),
          "create market webhook",
          201
        )
      )
    }
    // issue 16: ticker webhooks with firing options (exits, hysteresis, cooldown, pending, repeat)
    const nOptions = Math.max(4, Math.round(n * 0.1))
    const optionIds = new Set<string>()
    for (let i = 0; i < nOptions; i++) {
      const t = pick(pool)
      const p = prices.get(t)!
      const upper = (p * (1 + rand(-0.0005, 0.0005))).toPrecision(8)
      const lower = (p * (1 + rand(-0.0015, -0.0005))).toPrecision(8)
      const options =
        i % 2 === 0
          ? { fire_on: "both", clear_q: `price < ${lower}`, cooldown: "5s" }
          : { fire_on: "both", pending_for: "2s", repeat_interval: "6s" }
      const body = must(
        await call(url(), key, "POST", `/v2/tickers/${encodeURIComponent(t)}/subscribe`, {
          condition: `price > ${upper}`,
          ...options,
          target_url: target(webhookIds.length)
        }),
        "subscribe ticker with firing options"
      )
      created(body)
      optionIds.add(body.id)
    }
    log(
      `${webhookIds.length} webhooks (${nTicker} ticker, ${nUniverse} universe, ${nMarket} whole-market, ${nOptions} with firing options)`
    )

    // ---- chaos: the driver and the killer ------------------------------------------------------------
    let stopDriver = false
    let refreshing = false
    let refreshes = 0
    let refreshesFailed = 0
    let universeEdits = 0
    let toggles = 0
    const disabled = new Set<string>()
    const driver = (async () => {
      while (!stopDriver) {
        const s = server()
        if (s === undefined) {
          await sleep(100)
          continue
        }
        try {
          const u = pick(universeIds)
          const current = must(await call(s.url, key, "GET", `/v2/universes/${u}`), "get universe")
            .tickers as Array<string>
          const outside = pool.filter((t) => !current.includes(t))
          const remove = shuffle(current).slice(0, Math.min(4, current.length - 10))
          const add = shuffle(outside).slice(0, 4)
          must(await call(s.url, key, "PATCH", `/v2/universes/${u}`, { add, remove }), "edit universe")
          universeEdits++
          if (Math.random() < 0.3) {
            const id = pick(webhookIds)
            const enable = disabled.has(id)
            must(await call(s.url, key, "POST", `/v2/webhooks/${id}/${enable ? "enable" : "disable"}`), "toggle")
            if (enable) disabled.delete(id)
            else disabled.add(id)
            toggles++
          }
          refreshing = true
          const r = await admin(s, "POST", "/admin/refresh")
          refreshing = false
          if (r.status === 200) refreshes++
          else refreshesFailed++
        } catch {
          // the service was killed under the request
          refreshing = false
        }
        await sleep(rand(50, 400))
      }
    })()

    const restartTimes: Array<number> = []
    let killsDuringRefresh = 0
    let killsWithDeliveries = 0
    const waitUntil = async (cond: () => boolean, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs
      while (!cond() && Date.now() < deadline) await sleep(2)
    }
    const runnerKills: Array<RunnerKill> = []
    const sigterms = cluster === undefined ? 0 : (options.sigterms ?? 0)
    const total = options.kills + sigterms
    let termsLeft = sigterms
    for (let k = 0; k < total; k++) {
      await sleep(rand(1_000, 3_000))
      const mode = k % 3
      if (mode === 0) {
        await waitUntil(() => refreshing, 10_000)
        await sleep(rand(0, 250))
      } else if (mode === 1 && cluster === undefined) {
        await waitUntil(() => receiver.inFlight() > 0, 10_000)
      } else {
        await sleep(rand(0, 2_000))
      }
      if (refreshing) killsDuringRefresh++
      if (receiver.inFlight() > 0) killsWithDeliveries++
      if (single !== undefined) {
        const ms = await single.kill()
        restartTimes.push(ms)
        log(
          `kill ${k + 1}/${options.kills} (${["evaluation", "delivery", "random"][mode]}) — ${receiver.posts.length} POSTs so far, restarted in ${ms} ms`
        )
        continue
      }
      // a runner: mid-evaluation, the one running the tick singleton, or any; SIGTERMs spread out
      const signal = termsLeft > 0 && (k % 3 === 2 || total - k <= termsLeft) ? "SIGTERM" : "SIGKILL"
      if (signal === "SIGTERM") termsLeft--
      const holder = mode === 1 ? await cluster!.singletonRunner() : -1
      const victim = holder >= 0 ? holder : Math.floor(Math.random() * runners)
      const r = await cluster!.kill(victim, signal, ["evaluation", "singleton", "random"][mode]!)
      runnerKills.push(r)
      restartTimes.push(r.restartMs)
      log(
        `${signal} ${k + 1}/${total} of runner ${victim} (${r.mode}${r.singleton ? ", it ran the tick singleton" : ""}): slices all held elsewhere after ${r.handoverMs} ms, every slice evaluated a new tick after ${r.failoverMs} ms, ${r.ticksMissed} slice-ticks missed; restarted in ${r.restartMs} ms, slices held ${r.takeBackMs} ms after joining (${r.takenBack})`
      )
    }
    const lastKill = Date.now()
    stopDriver = true
    await driver

    // ---- the end: a last evaluated refresh on a frozen snapshot, the recomputation, the drain ----------
    await topology.stop()
    await topology.start({ REFRESH_INTERVAL: "1h" })
    let final: Http | undefined
    for (let i = 0; i < 10; i++) {
      final = await admin(server()!, "POST", "/admin/refresh")
      if (final.status === 200) break
      await sleep(2_000)
    }
    if (final?.status !== 200) violate(`final refresh failed: ${final?.status} ${JSON.stringify(final?.body)}`)
    const all: Array<any> = []
    for (let cursor: string | undefined; ; ) {
      const page = must(
        await call(url(), key, "GET", `/v2/webhooks?limit=100${cursor === undefined ? "" : `&cursor=${cursor}`}`),
        "list webhooks"
      )
      all.push(...page.webhooks)
      if (page.next_cursor === null) break
      cursor = page.next_cursor
    }
    const recomputedSets = new Map<string, Array<string>>()
    let recomputed = 0
    let mismatched = 0
    for (const w of all) {
      // a webhook with firing options holds its entered tickers (pending, hysteresis), not q's matches
      if (w.status !== "active" || optionIds.has(w.id)) continue
      const cacheKey = `${w.q}\u0000${w.universe_id ?? ""}`
      let expected = recomputedSets.get(cacheKey)
      if (expected === undefined) {
        expected = (await scanAll(w.q, w.universe_id ?? undefined)).map((r) => String(r.ticker)).sort()
        recomputedSets.set(cacheKey, expected)
      }
      const stored = [...(w.last_match_set as Array<string>)].sort()
      recomputed++
      if (stored.join(",") !== expected.join(",")) {
        mismatched++
        violate(
          `stored match set of ${w.id} (${w.q} / ${w.universe_id ?? "all"}) differs from the recomputation: stored ${stored.length}, expected ${expected.length}, missing ${expected.filter((t) => !stored.includes(t)).slice(0, 5)}, extra ${stored.filter((t) => !expected.includes(t)).slice(0, 5)}`
        )
      }
    }

    // the drain: every pending delivery sent (the lease of an attempt cut by the last kill included)
    const drainStarted = Date.now()
    const drainDeadline = Math.max(lastKill + LEASE_MS, Date.now()) + 30_000
    let pending: Array<any> = []
    for (;;) {
      pending = []
      for (const id of webhookIds) {
        const page = must(
          await call(url(), key, "GET", `/v2/webhooks/${id}/deliveries?status=pending&limit=100`),
          "pending deliveries"
        )
        pending.push(...page.deliveries)
      }
      if (pending.length === 0 && receiver.inFlight() === 0) break
      if (Date.now() > drainDeadline) break
      await sleep(1_000)
    }
    const drainMs = Date.now() - drainStarted
    for (const d of pending.slice(0, 20)) {
      violate(
        `delivery ${d.id} of ${d.webhook_id} still pending ${Math.round((Date.now() - lastKill) / 1000)} s after the last kill (attempt ${d.attempt}, next_attempt_at ${d.next_attempt_at}, last_error ${d.last_error})`
      )
    }
    await sleep(500)
    // every webhook's event feed, for the sequence check
    const feeds = new Map<string, Array<{ sequence: number; body: string }>>()
    for (const id of webhookIds) {
      const events: Array<{ sequence: number; body: string }> = []
      for (let after = 0; ; ) {
        const page = must(await call(url(), key, "GET", `/v2/webhooks/${id}/events?after=${after}&limit=100`), "feed")
        for (const e of page.events) events.push({ sequence: e.sequence, body: JSON.stringify(e.body) })
        if (page.next_cursor === null) break
        after = Number(page.next_cursor)
      }
      feeds.set(id, events)
    }
    await topology.stop()

    // ---- the store and the receiver's log ------------------------------------------------------------
    const db: Inspector = pgSchema !== undefined ? await pgSchema.inspector() : await embeddedInspector(dataDir)
    const tickFigures =
      cluster === undefined
        ? undefined
        : (
            await db.query<{ ticks: number; missed: number }>(
              "SELECT (SELECT count(*)::int FROM ticks) AS ticks, (SELECT coalesce(sum(missed), 0)::int FROM slice_ticks) AS missed"
            )
          )[0]!
    const deliveries = await db.query<{
      id: string
      webhook_id: string
      event_id: string
      payload: string
      status: string
      attempt: number
      test: boolean
    }>(`SELECT id, webhook_id, event_id, payload, status, attempt, test FROM deliveries`)
    const audit = await db.query<{
      seq: number | string
      webhook_id: string
      tx: number | string
      old_set: Array<string>
      new_set: Array<string>
      old_seq: number | string
      new_seq: number | string
      old_status: string
      new_status: string
      old_armed: number | string
      new_armed: number | string
    }>(`SELECT * FROM audit_states ORDER BY seq`)
    const deliveryTx = new Map(
      (await db.query<{ delivery_id: string; tx: number | string }>(`SELECT * FROM audit_deliveries`)).map(
        (r) => [r.delivery_id, String(r.tx)] as const
      )
    )
    await db.close()

    // 1. every fire delivered at least once, signed, with the stored body; nothing foreign received
    const fires = deliveries.filter((d) => !d.test)
    const byEventId = new Map(deliveries.map((d) => [d.event_id, d] as const))
    if (byEventId.size !== deliveries.length) violate("two delivery rows share an event id")
    const postsById = new Map<string, Array<(typeof receiver.posts)[number]>>()
    for (const p of receiver.posts) {
      const list = postsById.get(p.eventId) ?? []
      list.push(p)
      postsById.set(p.eventId, list)
      const d = byEventId.get(p.eventId)
      if (d === undefined) violate(`received ${p.eventId}, which is not in the store`)
      else if (d.payload !== p.body) violate(`received ${p.eventId} with a body other than the stored one`)
      if (!p.verified) violate(`received ${p.eventId} with a signature that does not verify`)
    }
    let undelivered = 0
    for (const d of fires) {
      const ok = (postsById.get(d.event_id) ?? []).some((p) => p.status === 200 && p.verified && p.body === d.payload)
      if (d.status !== "delivered" || !ok) {
        undelivered++
        violate(`fire ${d.id} (${d.event_id}) of ${d.webhook_id}: status ${d.status}, received ok ${ok}`)
      }
    }

    // 2. each fire is one state write's transition; no ticker fired while already in the stored set
    const writes = new Map<string, (typeof audit)[number]>()
    for (const a of audit) {
      const k = `${a.webhook_id}/${a.tx}`
      if (writes.has(k)) violate(`two state writes of ${a.webhook_id} in one transaction`)
      writes.set(k, a)
    }
    const firesOfWrite = new Map<string, number>()
    let duplicateTransitions = 0
    let transitions = 0
    const fireSeq = new Map<string, number>()
    for (const d of fires) {
      // firing options: entries are not the set's additions (pending, cooldown) and exits fire too
      if (optionIds.has(d.webhook_id)) continue
      const tx = deliveryTx.get(d.id)
      const write = tx === undefined ? undefined : writes.get(`${d.webhook_id}/${tx}`)
      const event = JSON.parse(d.payload)
      const tickers: Array<string> = event.data.matches.map((m: any) => String(m.ticker))
      if (write === undefined) {
        violate(`fire ${d.id} of ${d.webhook_id} was not written with a state change`)
        continue
      }
      fireSeq.set(d.event_id, Number(write.seq))
      const k = `${d.webhook_id}/${tx}`
      firesOfWrite.set(k, (firesOfWrite.get(k) ?? 0) + 1)
      const old = new Set(write.old_set)
      const added = write.new_set.filter((t) => !old.has(t))
      transitions += event.data.match_count
      const again = tickers.filter((t) => old.has(t))
      if (again.length > 0) {
        duplicateTransitions += again.length
        violate(`fire ${d.id} of ${d.webhook_id} repeats ${again.slice(0, 5)}, already in its stored match set`)
      }
      if (
        event.data.match_count !== added.length ||
        tickers.some((t) => !added.includes(t)) ||
        (!event.data.truncated && tickers.length !== added.length)
      ) {
        violate(
          `fire ${d.id} of ${d.webhook_id} lists ${tickers.length} (match_count ${event.data.match_count}) but its write added ${added.length}`
        )
      }
    }
    let stateWrites = 0
    for (const a of audit) {
      const evaluator =
        a.old_status === "active" &&
        a.new_status === "active" &&
        String(a.old_armed) === String(a.new_armed) &&
        Number(a.new_seq) === Number(a.old_seq) + 1
      if (!evaluator) continue
      stateWrites++
      if (optionIds.has(a.webhook_id)) continue
      const old = new Set(a.old_set)
      const added = a.new_set.filter((t) => !old.has(t))
      const n = firesOfWrite.get(`${a.webhook_id}/${a.tx}`) ?? 0
      if (added.length > 0 && n !== 1) {
        if (n > 1) duplicateTransitions += added.length
        violate(`state write ${a.seq} of ${a.webhook_id} added ${added.length} tickers and has ${n} fires`)
      }
    }
    // from the receiver's side: per webhook and ticker, consecutive event ids need a stored state without it between
    const auditByWebhook = new Map<string, Array<(typeof audit)[number]>>()
    for (const a of audit) {
      const list = auditByWebhook.get(a.webhook_id) ?? []
      list.push(a)
      auditByWebhook.set(a.webhook_id, list)
    }
    const receivedEvents = new Map<string, Array<{ id: string; seq: number; asOf: string; tickers: Array<string> }>>()
    for (const [id, posts] of postsById) {
      const d = byEventId.get(id)
      if (d === undefined || d.test || !fireSeq.has(id)) continue
      const event = JSON.parse(posts[0]!.body)
      const list = receivedEvents.get(d.webhook_id) ?? []
      list.push({
        id,
        seq: fireSeq.get(id)!,
        asOf: event.data.as_of,
        tickers: event.data.matches.map((m: any) => String(m.ticker))
      })
      receivedEvents.set(d.webhook_id, list)
    }
    for (const [webhookId, events] of receivedEvents) {
      events.sort((a, b) => a.seq - b.seq)
      const asOfs = new Set<string>()
      const lastFire = new Map<string, number>()
      const history = auditByWebhook.get(webhookId) ?? []
      for (const e of events) {
        if (asOfs.has(e.asOf)) {
          duplicateTransitions++
          violate(`${webhookId} has two event ids for as_of ${e.asOf}`)
        }
        asOfs.add(e.asOf)
        for (const t of e.tickers) {
          const previous = lastFire.get(t)
          if (previous !== undefined) {
            const left = history.some(
              (a) => Number(a.seq) > previous && Number(a.seq) < e.seq && !a.new_set.includes(t)
            )
            if (!left) {
              duplicateTransitions++
              violate(`${webhookId} fired ${t} under two event ids without it leaving the match set between`)
            }
          }
          lastFire.set(t, e.seq)
        }
      }
    }

    // 5. per webhook, the sequences the receiver got are 1..n, one event id each, and the feed holds
    // the same events with the same bodies
    let sequenceGaps = 0
    let optionEvents = 0
    const receivedByWebhook = new Map<string, Map<number, { id: string; body: string }>>()
    for (const [id, posts] of postsById) {
      const d = byEventId.get(id)
      if (d === undefined || d.test) continue
      const event = JSON.parse(posts[0]!.body)
      const sequence = Number(event.data.sequence)
      const seen = receivedByWebhook.get(d.webhook_id) ?? new Map<number, { id: string; body: string }>()
      const before = seen.get(sequence)
      if (before !== undefined && before.id !== id) {
        sequenceGaps++
        violate(`${d.webhook_id} sent sequence ${sequence} under two event ids`)
      }
      seen.set(sequence, { id, body: posts[0]!.body })
      receivedByWebhook.set(d.webhook_id, seen)
      if (optionIds.has(d.webhook_id)) optionEvents++
    }
    for (const id of webhookIds) {
      const seen = receivedByWebhook.get(id) ?? new Map<number, { id: string; body: string }>()
      const feed = feeds.get(id) ?? []
      const sequences = [...seen.keys()].sort((a, b) => a - b)
      if (sequences.some((q, i) => q !== i + 1)) {
        sequenceGaps++
        violate(`${id}: the receiver got sequences ${sequences.slice(0, 10).join(",")}…, not 1..${sequences.length}`)
      }
      if (feed.length !== seen.size || feed.some((e, i) => e.sequence !== i + 1)) {
        sequenceGaps++
        violate(`${id}: the feed holds ${feed.length} events, the receiver got ${seen.size}`)
      }
      for (const e of feed) {
        const got = seen.get(e.sequence)
        if (got !== undefined && JSON.stringify(JSON.parse(got.body)) !== e.body) {
          sequenceGaps++
          violate(`${id}: the feed's event ${e.sequence} differs from the body delivered`)
        }
      }
    }

    const redelivered = [...postsById.values()].filter((l) => l.length > 1).length
    const checks = [
      {
        name: "every fire delivered at least once (signed, stored body)",
        passed: undelivered === 0 && !violations.some((v) => v.startsWith("received")),
        detail: `${fires.length - undelivered}/${fires.length} fires delivered`
      },
      {
        name: "no transition fired under two event ids",
        passed: duplicateTransitions === 0 && !violations.some((v) => /state write|not written|lists/.test(v)),
        detail: `${duplicateTransitions} duplicate transitions over ${transitions} transitions in ${fires.length} fires`
      },
      {
        name: "no delivery left pending past its schedule",
        passed: pending.length === 0,
        detail: `${pending.length} pending after the drain`
      },
      {
        name: "stored match sets equal a recomputation",
        passed: mismatched === 0 && final?.status === 200,
        detail: `${recomputed - mismatched}/${recomputed} active webhooks equal`
      },
      {
        name: "sequences gap-free at the receiver and in the feed (every webhook)",
        passed: sequenceGaps === 0,
        detail: `${receivedByWebhook.size} webhooks with events, ${optionEvents} events of ${optionIds.size} with firing options`
      },
      ...(cluster === undefined ? [] : clusterChecks(runnerKills, options.failoverBoundsMs ?? FIGURES))
    ]
    return {
      store: options.store,
      webhooks: webhookIds.length,
      kills: options.kills,
      killsDuringRefresh,
      killsWithDeliveriesInFlight: killsWithDeliveries,
      restartMs: { median: median(restartTimes), max: Math.max(0, ...restartTimes) },
      refreshes,
      refreshesFailed,
      universeEdits,
      toggles,
      stateWrites,
      fires: fires.length,
      transitions,
      posts: receiver.posts.length,
      distinctIds: postsById.size,
      redeliveredIds: redelivered,
      injected503: receiver.posts.filter((p) => p.status === 503).length,
      maxAttempt: Math.max(0, ...deliveries.map((d) => Number(d.attempt))),
      duplicateTransitions,
      drainMs,
      recomputed,
      ...(cluster === undefined || tickFigures === undefined
        ? {}
        : { cluster: { runners, kills: runnerKills, ticks: tickFigures.ticks, ticksMissed: tickFigures.missed } }),
      checks,
      violations
    }
  } finally {
    await topology.destroy()
    await receiver.close()
    if (!options.keep) {
      await pgSchema?.drop().catch(() => {})
      rmSync(dataDir, { recursive: true, force: true })
    } else log(`kept: ${pgSchema?.schema ?? ""} ${dataDir}`)
  }
}

const within = (xs: ReadonlyArray<number>, bound: number) => xs.every((x) => Number.isFinite(x) && x <= bound)
const range = (xs: ReadonlyArray<number>) =>
  xs.length === 0 ? "none" : `${Math.min(...xs)}–${Math.max(...xs)} ms (median ${median(xs)})`

/** Issue 15, item 5: the failover figures the cluster proof holds the runners to. */
const FIGURES = { sigkill: 15_000, sigterm: 5_000 }

const clusterChecks = (
  kills: ReadonlyArray<RunnerKill>,
  bounds: { readonly sigkill: number; readonly sigterm: number }
) => {
  const killed = kills.filter((k) => k.signal === "SIGKILL")
  const termed = kills.filter((k) => k.signal === "SIGTERM")
  return [
    {
      name: `after a runner's SIGKILL every slice evaluates a new tick within ${bounds.sigkill / 1000} s`,
      passed: within(
        killed.map((k) => k.failoverMs),
        bounds.sigkill
      ),
      detail: `${killed.length} SIGKILLs: ${range(killed.map((k) => k.failoverMs))}`
    },
    {
      name: `a runner's SIGTERM hands its slices over within ${bounds.sigterm / 1000} s, no tick missed`,
      passed:
        within(
          termed.map((k) => k.handoverMs),
          bounds.sigterm
        ) && termed.every((k) => k.ticksMissed === 0),
      detail: `${termed.length} SIGTERMs: handover ${range(termed.map((k) => k.handoverMs))}, slice-ticks missed ${termed.map((k) => k.ticksMissed).join(", ") || "none"}`
    },
    {
      name: "a restarted runner takes its share back",
      passed: kills.every((k) => Number.isFinite(k.takeBackMs) && k.takenBack > 0),
      detail: `slices held ${range(kills.map((k) => k.takeBackMs))} after joining the cluster, ${kills.map((k) => k.takenBack).join(", ")} slices`
    }
  ]
}

export const formatReport = (r: CrashReport): string =>
  [
    `store ${r.store}: ${r.webhooks} webhooks, ${r.kills} SIGKILLs (${r.killsDuringRefresh} during a refresh's evaluation, ${r.killsWithDeliveriesInFlight} with deliveries in flight), restart to ready median ${r.restartMs.median} ms (max ${r.restartMs.max})`,
    `driver: ${r.refreshes} refreshes answered (${r.refreshesFailed} 503), ${r.universeEdits} universe edits, ${r.toggles} disable/enable`,
    `evaluator state writes ${r.stateWrites}; fires (delivery rows) ${r.fires} carrying ${r.transitions} transitions`,
    `receiver: ${r.posts} POSTs, ${r.distinctIds} distinct webhook-ids, ${r.redeliveredIds} ids received more than once (same id), ${r.injected503} answered 503 on purpose; highest attempt ${r.maxAttempt}`,
    `duplicate transitions (two event ids): ${r.duplicateTransitions}; drain after the last refresh ${(r.drainMs / 1000).toFixed(1)} s; recomputed ${r.recomputed} match sets`,
    ...(r.cluster === undefined
      ? []
      : [
          `cluster: ${r.cluster.runners} runners and an API process; ${r.cluster.ticks} ticks, ${r.cluster.ticksMissed} slice-ticks missed in all (ticks issued while a killed runner's slices had no holder)`,
          ...r.cluster.kills.map(
            (k, i) =>
              `  ${i + 1}. ${k.signal} (${k.mode}${k.singleton ? ", ran the singleton" : ""}): handover ${k.handoverMs} ms, new tick everywhere ${k.failoverMs} ms, missed ${k.ticksMissed}, restart ${k.restartMs} ms, share back ${k.takeBackMs} ms after joining (${k.takenBack} slices)`
          )
        ]),
    ...r.checks.map((c) => `${c.passed ? "PASS" : "FAIL"}  ${c.name}: ${c.detail}`),
    ...(r.violations.length === 0 ? [] : ["violations:", ...r.violations.slice(0, 50).map((v) => `  - ${v}`)])
  ].join("\n")
