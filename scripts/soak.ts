/**
 * Soak (issue 7, proof 6): the real service process for `--minutes` (default
 * 10) under mixed API traffic plus 10,000 active webhooks evaluated on a 2 s
 * refresh, with a local receiver taking the deliveries.
 *
 * Setup: a fresh PostgreSQL database (default; `CREATE DATABASE`, dropped
 * after; base URL from DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test) or, with `--backend=pglite`, the
 * embedded store in a fresh DATA_DIR; the service started as `npm start`
 * does (`node --enable-source-maps build/main.js` after its build, REFRESH_INTERVAL=2s,
 * WEBHOOK_ALLOW_INSECURE_TARGETS=true); `--accounts` enterprise accounts
 * made through the admin API, their rate limit raised there so the load is
 * never 429'd, two universes each; then the webhooks created through the
 * public API from many parallel requests (timed): 60% ticker subscriptions,
 * 15% raw `q` scoped to a universe, 15% signal subscriptions scoped to a
 * universe, 10% whole-market `q`; 5% of them `in_app` (notifications), the
 * rest POSTing to the receiver.
 *
 * Load: `--clients` clients (one account each) send `--rate` requests per
 * second in all, each paced at a steady interval (one request in flight per
 * client), drawn from a fixed mix: live and as-of scans (POST and GET, own
 * universes and saved rules too), tickers list/bulk/get/history, signals
 * catalog/matches/history (1d and 1h), universes and rules CRUD, webhooks
 * list/get/deliveries, notifications, account. Every response is expected to
 * be 2xx; others are counted by status.
 *
 * Measured: per window (1 minute in a 10-minute run) requests, p50/p99/max
 * latency, 5xx, the service's resident memory (VmRSS from
 * /proc/<pid>/status, sampled every `--sample` seconds) and the load
 * average; deliveries received; ticks evaluated (/metrics). Warm-up = the
 * first `--warmup` minutes (default 2, or a quarter of a shorter run): the
 * reference RSS is the mean of the samples in the first window after it, the
 * final RSS the mean over the last window.
 *
 * Exits non-zero unless: RSS growth ≤ 10%, no 5xx (and no transport error
 * or timeout), p99 of the last window ≤ 1.5 × p99 of the first window after
 * warm-up.
 *
 *   npm run proof:soak                                  # 10 minutes on PostgreSQL
 *   npm run proof:soak -- --minutes=2 --backend=pglite  # a short run on the embedded store
 *
 * Options: --minutes --warmup --webhooks --accounts --clients --rate
 * --create-concurrency --sample --backend. The server's log goes to a file
 * whose path is printed.
 */
import type { ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import pg from "pg"
import { Pool } from "undici"
import { conditionMaker, NUMERIC_COLUMNS } from "../bench/support/conditions.js"
import { isAvailableAt, SIGNALS } from "../src/market/catalog.js"
import { startServer } from "../test/support/server.js"

// ---- options -----------------------------------------------------------------------------------

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, "").split("=")
    return [k!, v ?? "true"] as const
  })
)
const num = (name: string, fallback: number) => {
  const v = args.get(name)
  if (v === undefined) return fallback
  const n = Number(v)
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got ${v}`)
  return n
}
const MINUTES = num("minutes", 10)
const WARMUP_MIN = num("warmup", Math.min(2, MINUTES / 4))
const WINDOW_MIN = Math.min(1, MINUTES / 4)
const N_WEBHOOKS = Math.round(num("webhooks", 10_000))
const ACCOUNTS = Math.round(num("accounts", 10))
const CLIENTS = Math.round(num("clients", 4))
const RATE = num("rate", 40)
const CREATE_CONCURRENCY = Math.round(num("create-concurrency", 8))
const SAMPLE_S = num("sample", 5)
const BACKEND = args.get("backend") ?? "postgres"
if (BACKEND !== "postgres" && BACKEND !== "pglite") throw new Error("--backend is postgres or pglite")
if (WARMUP_MIN + WINDOW_MIN > MINUTES) throw new Error("--warmup leaves no window to measure")
const BASE_DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const ADMIN_TOKEN = `soak-${randomBytes(8).toString("hex")}`
const REQUEST_TIMEOUT_MS = 30_000

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")
console.log(
  `soak: ${MINUTES} min (warm-up ${WARMUP_MIN} min, windows of ${WINDOW_MIN} min), ${N_WEBHOOKS} webhooks over ${ACCOUNTS} accounts, ${CLIENTS} clients at ${RATE} req/s in all, ${BACKEND}; node ${process.version}, load average ${load()}`
)

// ---- helpers -----------------------------------------------------------------------------------

let seed = 7
const rand = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}
const pick = <A>(xs: ReadonlyArray<A>) => xs[Math.floor(rand() * xs.length)]!
const condition = conditionMaker(rand)
const quantile = (xs: ReadonlyArray<number>, q: number) => {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!
}
const ms = (x: number) => (Number.isNaN(x) ? "-" : `${x.toFixed(x < 10 ? 1 : 0)} ms`)
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`
const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
const sleep = (msec: number) => new Promise((r) => setTimeout(r, msec))
const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10)
/** a day within the service's daily history (HISTORY_DAYS=260 trading days ≈ a year) */
const pastDay = () => isoDay(Date.now() - (1 + Math.floor(rand() * 330)) * 86_400_000)

// ---- the database ----------------------------------------------------------------------------

let dropDatabase: (() => Promise<void>) | undefined
const freshDatabase = async (): Promise<string> => {
  const name = `vigil_soak_${randomBytes(5).toString("hex")}`
  const admin = new pg.Client({ connectionString: BASE_DATABASE_URL })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  dropDatabase = async () => {
    dropDatabase = undefined
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  }
  const u = new URL(BASE_DATABASE_URL)
  u.pathname = `/${name}`
  return u.toString()
}

// ---- the receiver ------------------------------------------------------------------------------

const received = { posts: 0, ids: new Set<string>(), times: [] as Array<number> }
let soakStart = 0
const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
  const id = req.headers["webhook-id"]
  req.resume()
  req.on("end", () => {
    received.posts++
    if (typeof id === "string") received.ids.add(id)
    received.times.push(performance.now())
    res.writeHead(204).end()
  })
})
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r))
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`

// ---- the service -------------------------------------------------------------------------------

const dataDir = mkdtempSync(join(tmpdir(), "vigil-soak-"))
const logPath = join(tmpdir(), `vigil-soak-${Date.now()}.log`)
const log = createWriteStream(logPath)
let server: ChildProcess | undefined
const logCounts = { error: 0, warn: 0 }
let exitedEarly: number | null | undefined

const cleanup = async () => {
  if (server !== undefined && server.exitCode === null && server.signalCode === null) {
    const s = server
    await new Promise<void>((r) => {
      const timer = setTimeout(() => {
        s.kill("SIGKILL")
        r()
      }, 15_000)
      s.once("exit", () => {
        clearTimeout(timer)
        r()
      })
      s.kill("SIGTERM")
    })
  }
  receiver.close()
  log.end()
  rmSync(dataDir, { recursive: true, force: true })
  if (dropDatabase) await dropDatabase().catch((e) => console.error(`could not drop the soak database: ${e}`))
}
process.on("SIGINT", () => {
  console.error("interrupted; cleaning up")
  void cleanup().finally(() => process.exit(130))
})

const startService = async (databaseUrl: string | undefined) => {
  const started = performance.now()
  const onOutput = (d: Buffer) => {
    log.write(d)
    for (const line of d.toString().split("\n")) {
      if (/"logLevel":"(ERROR|FATAL)"/.test(line)) logCounts.error++
      else if (/"logLevel":"WARN/.test(line)) logCounts.warn++
    }
  }
  const svc = await startServer(
    {
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      REFRESH_INTERVAL: "2s",
      SIGNAL_FLAG_HISTORY: "eager",
      WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
      ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl })
    },
    600_000,
    { onOutput, keepOutput: 100_000 }
  )
  server = svc.process
  svc.process.on("exit", (code: number | null) => {
    exitedEarly = code
  })
  while (performance.now() - started < 600_000) {
    if (exitedEarly !== undefined)
      throw new Error(`the service exited with ${exitedEarly}:\n${svc.logs().slice(-4000)}`)
    if ((await fetch(`${svc.url}/readyz`).catch(() => undefined))?.status === 200) {
      return { url: svc.url, pid: svc.process.pid!, readyMs: performance.now() - started }
    }
    await sleep(200)
  }
  throw new Error(`the service was not ready in 10 minutes:\n${svc.logs().slice(-4000)}`)
}

const rssKb = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN)
  } catch {
    return Number.NaN
  }
}

// ---- HTTP --------------------------------------------------------------------------------------

interface Answer {
  readonly status: number
  readonly body: any
}
let pool!: Pool
const call = async (key: string, method: string, path: string, body?: unknown, parse = false): Promise<Answer> => {
  const res = await pool.request({
    method: method as "GET",
    path,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { "content-type": "application/json" })
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS
  })
  if (parse || res.statusCode >= 300) {
    const text = await res.body.text()
    let parsed: unknown = text
    try {
      parsed = JSON.parse(text)
    } catch {}
    return { status: res.statusCode, body: parsed }
  }
  await res.body.dump()
  return { status: res.statusCode, body: undefined }
}
const adminCall = (method: string, path: string, body?: unknown) => call(ADMIN_TOKEN, method, path, body, true)
const must = (r: Answer, what: string, status = 200) => {
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`)
  return r.body
}

const metrics = async () => {
  const r = await pool.request({ method: "GET", path: "/metrics" })
  const text = await r.body.text()
  const value = (name: string) => {
    let sum = 0
    for (const line of text.split("\n")) {
      if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.split(" ").at(-1))
    }
    return sum
  }
  return {
    refreshes: value("market_refreshes_total"),
    refreshSeconds: value("market_refresh_duration_seconds_sum"),
    refreshCount: value("market_refresh_duration_seconds_count"),
    ticks: value("webhook_evaluation_duration_seconds_count"),
    tickSeconds: value("webhook_evaluation_duration_seconds_sum"),
    evaluationFailures: value("webhook_evaluation_failures_total"),
    fires: value("webhook_fires_total"),
    attempts: value("webhook_delivery_attempts_total"),
    actors: value("webhook_actors_alive"),
    restarts: value("webhook_actor_restarts_total")
  }
}

// ---- main --------------------------------------------------------------------------------------

interface Sample {
  readonly t: number
  readonly status: number
  readonly latency: number
  readonly op: string
}
interface RssSample {
  readonly t: number
  readonly kb: number
  readonly load: number
}

const main = async () => {
  const databaseUrl = BACKEND === "postgres" ? await freshDatabase() : undefined
  const svc = await startService(databaseUrl)
  console.log(
    `service ready in ${(svc.readyMs / 1000).toFixed(1)} s (pid ${svc.pid}, ${svc.url}, rss ${mb(rssKb(svc.pid))}); log: ${logPath}`
  )
  // idle connections are dropped well before the server's 5 s keep-alive timeout (no reuse race)
  pool = new Pool(svc.url, {
    connections: CLIENTS + CREATE_CONCURRENCY + 4,
    keepAliveTimeout: 1_000,
    keepAliveMaxTimeout: 1_000
  })

  // accounts: enterprise, rate limit raised so the load is never 429'd
  const accounts: Array<{ id: string; key: string; universes: Array<string> }> = []
  for (let a = 0; a < ACCOUNTS; a++) {
    const created = must(await adminCall("POST", "/admin/accounts", { plan: "enterprise" }), "create account", 201)
    must(
      await adminCall("PATCH", `/admin/accounts/${created.account_id}`, {
        plan: "enterprise",
        rate_limit_per_minute: 10_000_000
      }),
      "raise the rate limit"
    )
    accounts.push({ id: created.account_id, key: created.api_key, universes: [] })
  }
  const anyKey = accounts[0]!.key
  const tickers: Array<string> = []
  let cursor: string | null = null
  do {
    const page: any = must(
      await call(anyKey, "GET", `/v2/tickers?limit=1000${cursor ? `&cursor=${cursor}` : ""}`, undefined, true),
      "list tickers"
    )
    for (const row of page.results) tickers.push(row.ticker)
    cursor = page.next_cursor
  } while (cursor !== null)
  const top100: Array<string> = must(
    await call(anyKey, "GET", "/v2/universes/top_100", undefined, true),
    "top_100"
  ).tickers
  for (const acc of accounts) {
    for (let u = 0; u < 2; u++) {
      const set = new Set<string>()
      const size = 20 + Math.floor(rand() * 180)
      while (set.size < size) set.add(pick(tickers))
      const doc = must(
        await call(acc.key, "POST", "/v2/universes", { id: `soak_${u}`, name: `soak ${u}`, tickers: [...set] }, true),
        "create universe",
        201
      )
      acc.universes.push(doc.id)
    }
  }
  console.log(`setup: ${ACCOUNTS} enterprise accounts, ${tickers.length} tickers, ${ACCOUNTS * 2} universes`)

  // the webhooks, through the API, from parallel requests
  const numericSignals = SIGNALS.filter((c) => c.type === "numeric").map((c) => c.name)
  const flagSignals = SIGNALS.filter((c) => c.type === "boolean").map((c) => c.name)
  const webhookIds: Array<Array<string>> = accounts.map(() => [])
  const createStatuses = new Map<number, number>()
  let nextWebhook = 0
  const scopeOf = (acc: (typeof accounts)[number]) => {
    const r = rand()
    return r < 0.4 ? "top_100" : r < 0.6 ? "top_10" : pick(acc.universes)
  }
  let createRetries = 0
  /** a client as the spec asks: 503 and 429 retried after their Retry-After (at most 5 times) */
  const withRetry = async (send: () => Promise<Answer>) => {
    for (let attempt = 0; ; attempt++) {
      const res = await send()
      if ((res.status !== 503 && res.status !== 429) || attempt >= 5) return res
      createRetries++
      await sleep(1000 * Number(res.body?.error?.retry_after ?? 1))
    }
  }
  const createOne = async (k: number) => {
    const acc = accounts[k % ACCOUNTS]!
    const delivery =
      rand() < 0.05
        ? {}
        : { target_url: `${receiverUrl}/hook/${acc.id}`, ...(rand() < 0.3 ? { fields: "rsi_14" } : {}) }
    const r = rand()
    let request: readonly [string, Record<string, unknown>]
    if (r < 0.6) {
      request = [`/v2/tickers/${encodeURIComponent(pick(tickers))}/subscribe`, { condition: condition(), ...delivery }]
    } else if (r < 0.75) {
      request = ["/v2/webhooks", { q: condition(), universe: scopeOf(acc), ...delivery }]
    } else if (r < 0.9) {
      const boolean = rand() < 0.5
      const signal = boolean ? pick(flagSignals) : pick(numericSignals)
      request = [
        `/v2/signals/${signal}/subscribe`,
        {
          ...(boolean ? {} : { condition: `>${(rand() * 100).toFixed(1)}` }),
          universe: scopeOf(acc),
          ...delivery
        }
      ]
    } else {
      const tail =
        rand() < 0.5
          ? `${pick(NUMERIC_COLUMNS)} > ${(80 + rand() * 8).toFixed(2)}`
          : `${pick(NUMERIC_COLUMNS)} < ${(-8 + rand() * 8).toFixed(2)}`
      request = ["/v2/webhooks", { q: `${tail} AND (${condition()})`, ...delivery }]
    }
    const res = await withRetry(() => call(acc.key, "POST", request[0], request[1], true))
    createStatuses.set(res.status, (createStatuses.get(res.status) ?? 0) + 1)
    if (res.status === 200 || res.status === 201) webhookIds[k % ACCOUNTS]!.push(res.body.id)
    else if ((createStatuses.get(res.status) ?? 0) <= 3)
      console.log(`  webhook create: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`)
  }
  const createStarted = performance.now()
  await Promise.all(
    Array.from({ length: CREATE_CONCURRENCY }, async () => {
      while (nextWebhook < N_WEBHOOKS) await createOne(nextWebhook++)
    })
  )
  const createMs = performance.now() - createStarted
  const created = webhookIds.reduce((n, ids) => n + ids.length, 0)
  console.log(
    `webhooks: ${created} of ${N_WEBHOOKS} created through the API in ${(createMs / 1000).toFixed(1)} s (${(created / (createMs / 1000)).toFixed(0)}/s, ${CREATE_CONCURRENCY} parallel requests; final statuses ${[...createStatuses].map(([s, n]) => `${s}×${n}`).join(", ")}, ${createRetries} retries after 503/429); rss ${mb(rssKb(svc.pid))}, load average ${load()}`
  )

  // ---- the soak ----
  const samples: Array<Sample> = []
  const rss: Array<RssSample> = []
  const transportErrors: Array<string> = []
  soakStart = performance.now()
  const deliveriesBefore = received.posts
  const endAt = soakStart + MINUTES * 60_000
  const since = () => performance.now() - soakStart
  const metricsAtStart = await metrics()
  let metricsAtWarm: Awaited<ReturnType<typeof metrics>> | undefined
  const counters: Array<{ t: number } & Awaited<ReturnType<typeof metrics>>> = [{ t: 0, ...metricsAtStart }]
  /** the counters as last sampled at or before `t` */
  const countersAt = (t: number) => counters.filter((c) => c.t <= t).at(-1)!

  const sampler = (async () => {
    while (performance.now() < endAt) {
      rss.push({ t: since(), kb: rssKb(svc.pid), load: loadavg()[0]! })
      const t = since()
      const m = await metrics().catch(() => undefined)
      if (m !== undefined) counters.push({ t, ...m })
      if (metricsAtWarm === undefined && t >= WARMUP_MIN * 60_000) metricsAtWarm = m
      await sleep(SAMPLE_S * 1000)
    }
  })()

  const signalHistory = () => {
    const hourly = rand() < 0.3
    const cols = SIGNALS.filter((c) => isAvailableAt(c, hourly ? "1h" : "1d")).map((c) => c.name)
    return hourly
      ? `/v2/signals/${pick(cols)}/${pick(top100)}/history/1h?limit=100`
      : `/v2/signals/${pick(cols)}/${pick(tickers)}/history/1d?limit=100`
  }

  const client = async (c: number) => {
    const acc = accounts[c % ACCOUNTS]!
    const ids = webhookIds[c % ACCOUNTS]!
    const rules: Array<string> = []
    const universes: Array<string> = []
    let webhookCursor: string | null = null
    let ruleSeq = 0
    let universeSeq = 0
    const scan = (extra: Record<string, unknown> = {}) => ({
      q: condition(),
      limit: 50,
      ...(rand() < 0.5 ? { order: pick(NUMERIC_COLUMNS), dir: rand() < 0.5 ? "asc" : "desc" } : {}),
      ...(rand() < 0.3 ? { fields: "rsi_14,market_cap" } : {}),
      ...(rand() < 0.3 ? { universe: pick(["top_100", ...acc.universes]) } : {}),
      ...extra
    })
    type Op = readonly [string, number, () => readonly [string, string, unknown?, boolean?]]
    const ops: ReadonlyArray<Op> = [
      ["scan live", 10, () => ["POST", "/v2/scan", scan()]],
      ["scan live GET", 3, () => ["GET", `/v2/scan?q=${encodeURIComponent(condition())}&limit=20`]],
      ["scan as-of", 6, () => ["POST", "/v2/scan", scan({ asof: pastDay() })]],
      ["tickers list", 3, () => ["GET", `/v2/tickers?limit=100&min_market_cap=${Math.floor(rand() * 1e9)}`]],
      ["tickers search", 2, () => ["GET", `/v2/tickers?search=${pick(tickers).slice(0, 2).toLowerCase()}`]],
      ["tickers bulk", 2, () => ["GET", `/v2/tickers?tickers=${Array.from({ length: 20 }, () => pick(tickers))}`]],
      ["ticker get", 8, () => ["GET", `/v2/tickers/${encodeURIComponent(pick(tickers))}`]],
      [
        "ticker history",
        5,
        () => ["GET", `/v2/tickers/${encodeURIComponent(pick(tickers))}/history?asof=${pastDay()}`]
      ],
      ["signals catalog", 3, () => ["GET", "/v2/signals"]],
      [
        "signal matches",
        6,
        () =>
          rand() < 0.5
            ? ["GET", `/v2/signals/${pick(flagSignals)}?limit=100`]
            : [
                "GET",
                `/v2/signals/${pick(numericSignals)}?condition=${encodeURIComponent(`>${(rand() * 100).toFixed(1)}`)}${rand() < 0.3 ? "&universe=top_100" : ""}`
              ]
      ],
      ["signal matches as-of", 2, () => ["GET", `/v2/signals/${pick(flagSignals)}?asof=${pastDay()}`]],
      ["signal history", 5, () => ["GET", signalHistory()]],
      ["universes list", 2, () => ["GET", "/v2/universes"]],
      ["universes system", 1, () => ["GET", "/v2/universes/system"]],
      ["universe get", 3, () => ["GET", `/v2/universes/${pick([...acc.universes, ...universes, "top_10"])}`]],
      [
        "universe create",
        1,
        () => [
          "POST",
          "/v2/universes",
          {
            id: `c${c}_${universeSeq++}`,
            name: "soak",
            // distinct: a universe with a ticker twice is a 400 (by design), not what the soak measures
            tickers: [...new Set(Array.from({ length: 10 + Math.floor(rand() * 40) }, () => pick(tickers)))]
          },
          true
        ]
      ],
      [
        "universe patch",
        2,
        () =>
          universes.length === 0
            ? ["GET", "/v2/universes/top_10"]
            : ["PATCH", `/v2/universes/${pick(universes)}`, { add: [pick(tickers)], remove: [pick(tickers)] }]
      ],
      [
        "universe delete",
        1,
        () =>
          universes.length < 5
            ? ["GET", "/v2/universes"]
            : ["DELETE", `/v2/universes/${universes.splice(Math.floor(rand() * universes.length), 1)[0]}`]
      ],
      ["rules list", 2, () => ["GET", "/v2/rules"]],
      [
        "rule create",
        1,
        () => ["POST", "/v2/rules", { name: `rule ${ruleSeq++}`, q: condition(), order: pick(NUMERIC_COLUMNS) }, true]
      ],
      ["rule get", 2, () => (rules.length === 0 ? ["GET", "/v2/rules"] : ["GET", `/v2/rules/${pick(rules)}`])],
      [
        "rule patch",
        1,
        () => (rules.length === 0 ? ["GET", "/v2/rules"] : ["PATCH", `/v2/rules/${pick(rules)}`, { q: condition() }])
      ],
      [
        "rule delete",
        1,
        () =>
          rules.length < 5
            ? ["GET", "/v2/rules"]
            : ["DELETE", `/v2/rules/${rules.splice(Math.floor(rand() * rules.length), 1)[0]}`]
      ],
      [
        "scan rule",
        1,
        () => (rules.length === 0 ? ["GET", "/v2/rules"] : ["GET", `/v2/scan?rule=${pick(rules)}&limit=20`])
      ],
      [
        "webhooks list",
        4,
        () => [
          "GET",
          `/v2/webhooks?limit=50${webhookCursor === null ? "" : `&cursor=${webhookCursor}`}`,
          undefined,
          true
        ]
      ],
      ["webhook get", 6, () => (ids.length === 0 ? ["GET", "/v2/webhooks"] : ["GET", `/v2/webhooks/${pick(ids)}`])],
      [
        "webhook deliveries",
        5,
        () => (ids.length === 0 ? ["GET", "/v2/webhooks"] : ["GET", `/v2/webhooks/${pick(ids)}/deliveries?limit=20`])
      ],
      ["notifications", 3, () => ["GET", "/v2/notifications?limit=50"]],
      ["account", 1, () => ["GET", "/v2/account"]]
    ]
    const totalWeight = ops.reduce((n, o) => n + o[1], 0)
    const draw = () => {
      let x = rand() * totalWeight
      for (const o of ops) if ((x -= o[1]) < 0) return o
      return ops[0]!
    }
    const interval = (1000 * CLIENTS) / RATE
    let next = performance.now() + rand() * interval
    while (true) {
      const wait = next - performance.now()
      if (wait > 0) await sleep(wait)
      if (performance.now() >= endAt) return
      // one request in flight per client; a late client does not burst to catch up
      next = Math.max(next + interval, performance.now())
      const [name, , make] = draw()
      const [method, path, body, parse] = make()
      const t0 = performance.now()
      try {
        const res = await call(acc.key, method, path, body, parse === true)
        samples.push({ t: t0 - soakStart, status: res.status, latency: performance.now() - t0, op: name })
        if (res.status >= 300) {
          if (samples.filter((s) => s.status === res.status && s.op === name).length <= 2)
            console.log(
              `  ${name}: ${method} ${path.slice(0, 160)} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`
            )
          continue
        }
        if (name === "rule create") rules.push(res.body.id)
        else if (name === "universe create") universes.push(res.body.id)
        else if (name === "webhooks list") webhookCursor = res.body.next_cursor
      } catch (e) {
        samples.push({ t: t0 - soakStart, status: 0, latency: performance.now() - t0, op: name })
        if (transportErrors.length < 20)
          transportErrors.push(`${name} ${method} ${path.slice(0, 120)} after ${ms(performance.now() - t0)}: ${e}`)
      }
    }
  }

  console.log(`\nsoak running for ${MINUTES} min …`)
  const progress = setInterval(() => {
    const m = since() / 60_000
    const recent = samples.filter((s) => s.t >= since() - 60_000)
    console.log(
      `  ${m.toFixed(1)} min: ${samples.length} requests, last minute p50 ${ms(
        quantile(
          recent.map((s) => s.latency),
          0.5
        )
      )} p99 ${ms(
        quantile(
          recent.map((s) => s.latency),
          0.99
        )
      )}, rss ${mb(rss.at(-1)?.kb ?? Number.NaN)}, load ${load()}`
    )
  }, 60_000)
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)))
  clearInterval(progress)
  await sampler
  const elapsedMs = since()
  const metricsAtEnd = await metrics()
  const rssEnd = rssKb(svc.pid)

  // ---- report ----
  const windowMs = WINDOW_MIN * 60_000
  const warmMs = WARMUP_MIN * 60_000
  const nWindows = Math.round((MINUTES * 60_000) / windowMs)
  const windowLabel = (w: number) =>
    `${((w * windowMs) / 60_000).toFixed(WINDOW_MIN < 1 ? 1 : 0)}–${(((w + 1) * windowMs) / 60_000).toFixed(WINDOW_MIN < 1 ? 1 : 0)}`
  const inWindow = <A extends { t: number }>(xs: ReadonlyArray<A>, w: number) =>
    xs.filter((x) => x.t >= w * windowMs && x.t < (w + 1) * windowMs)
  console.log(
    `\nper window (${WINDOW_MIN} min; warm-up = the first ${WARMUP_MIN} min):\n  minutes    requests  req/s   p50       p99       max       5xx  non-2xx  rss (mean)  load  deliveries  ticks  tick mean`
  )
  for (let w = 0; w < nWindows; w++) {
    const s = inWindow(samples, w)
    const lat = s.map((x) => x.latency)
    const r = inWindow(rss, w)
    const c0 = countersAt(w * windowMs)
    const c1 = countersAt((w + 1) * windowMs)
    const d = received.times.filter((t) => t - soakStart >= w * windowMs && t - soakStart < (w + 1) * windowMs).length
    console.log(
      `  ${windowLabel(w).padEnd(9)}  ${String(s.length).padStart(8)}  ${(s.length / (windowMs / 1000)).toFixed(1).padStart(5)}  ${ms(quantile(lat, 0.5)).padStart(8)}  ${ms(quantile(lat, 0.99)).padStart(8)}  ${ms(Math.max(...lat)).padStart(8)}  ${String(s.filter((x) => x.status >= 500).length).padStart(3)}  ${String(s.filter((x) => x.status < 200 || x.status >= 300).length).padStart(7)}  ${mb(mean(r.map((x) => x.kb))).padStart(10)}  ${(r.length ? mean(r.map((x) => x.load)) : Number.NaN).toFixed(2).padStart(4)}  ${String(d).padStart(10)}  ${String(c1.ticks - c0.ticks).padStart(5)}  ${ms(((c1.tickSeconds - c0.tickSeconds) / (c1.ticks - c0.ticks)) * 1000).padStart(9)}`
    )
  }

  const histogram = new Map<number, number>()
  for (const s of samples) histogram.set(s.status, (histogram.get(s.status) ?? 0) + 1)
  const fiveXx = samples.filter((s) => s.status >= 500).length
  console.log(
    `\nrequests: ${samples.length} in ${(elapsedMs / 1000).toFixed(0)} s (${(samples.length / (elapsedMs / 1000)).toFixed(1)}/s); status histogram: ${[
      ...histogram
    ]
      .sort((a, b) => a[0] - b[0])
      .map(([s, n]) => `${s === 0 ? "transport error" : s}×${n}`)
      .join(", ")}; 5xx: ${fiveXx}`
  )
  for (const e of transportErrors) console.log(`  transport error: ${e}`)
  console.log("per operation (after warm-up):")
  const steady = samples.filter((s) => s.t >= warmMs)
  for (const op of [...new Set(samples.map((s) => s.op))]) {
    const lat = steady.filter((s) => s.op === op).map((s) => s.latency)
    console.log(
      `  ${op.padEnd(22)} ${String(lat.length).padStart(6)}  p50 ${ms(quantile(lat, 0.5))}, p99 ${ms(quantile(lat, 0.99))}`
    )
  }

  const firstW = Math.round(warmMs / windowMs)
  const lastW = nWindows - 1
  const rssRef = mean(inWindow(rss, firstW).map((x) => x.kb))
  const rssLast = mean(inWindow(rss, lastW).map((x) => x.kb))
  const rssGrowth = (rssLast - rssRef) / rssRef
  const after = rss.filter((x) => x.t >= warmMs).map((x) => x.kb)
  const p99First = quantile(
    inWindow(samples, firstW).map((s) => s.latency),
    0.99
  )
  const p99Last = quantile(
    inWindow(samples, lastW).map((s) => s.latency),
    0.99
  )
  const p99Ratio = p99Last / p99First
  const deliveries = received.posts - deliveriesBefore
  const ticks = metricsAtEnd.ticks - metricsAtStart.ticks
  const ticksAfterWarm = metricsAtEnd.ticks - (metricsAtWarm?.ticks ?? metricsAtStart.ticks)
  const tickMeanMs =
    ((metricsAtEnd.tickSeconds - (metricsAtWarm?.tickSeconds ?? metricsAtStart.tickSeconds)) / ticksAfterWarm) * 1000
  console.log(
    `\nresident memory: ${mb(rssRef)} after warm-up (mean of minute ${windowLabel(firstW)}), ${mb(rssLast)} at the end (mean of minute ${windowLabel(lastW)}), growth ${(rssGrowth * 100).toFixed(1)}%; min/max after warm-up ${mb(Math.min(...after))}/${mb(Math.max(...after))}; last sample ${mb(rssEnd)}`
  )
  console.log(
    `p99: ${ms(p99First)} in the first window after warm-up (${windowLabel(firstW)}), ${ms(p99Last)} in the last (${windowLabel(lastW)}): ratio ${p99Ratio.toFixed(2)}`
  )
  console.log(
    `deliveries received: ${deliveries} POSTs during the soak (${received.posts} in all, ${received.ids.size} distinct webhook-ids); delivery attempts ${metricsAtEnd.attempts}, fires ${metricsAtEnd.fires}`
  )
  console.log(
    `ticks evaluated: ${ticks} during the soak (${metricsAtEnd.ticks} since start; ${metricsAtEnd.refreshes} market refreshes; ${metricsAtEnd.evaluationFailures} failed ticks; mean tick after warm-up ${ms(tickMeanMs)}, mean market refresh ${ms(((metricsAtEnd.refreshSeconds - (metricsAtWarm?.refreshSeconds ?? 0)) / (metricsAtEnd.refreshCount - (metricsAtWarm?.refreshCount ?? 0))) * 1000)}); actors alive ${metricsAtEnd.actors}, actor restarts ${metricsAtEnd.restarts}`
  )
  console.log(
    `service log: ${logCounts.error} error and ${logCounts.warn} warning lines (${logPath}); load average at the end ${load()}`
  )

  const goals: Array<readonly [string, boolean, string]> = [
    ["RSS growth after warm-up ≤ 10%", rssGrowth <= 0.1, `${(rssGrowth * 100).toFixed(1)}%`],
    [
      "no 5xx (and no transport error)",
      fiveXx === 0 && !histogram.has(0),
      `${fiveXx} 5xx, ${histogram.get(0) ?? 0} transport errors`
    ],
    ["last-window p99 ≤ 1.5 × first window after warm-up", p99Ratio <= 1.5, `× ${p99Ratio.toFixed(2)}`]
  ]
  console.log("\ngoals:")
  for (const [what, met, detail] of goals) console.log(`  ${met ? "met   " : "MISSED"}  ${what}: ${detail}`)
  return goals.every((g) => g[1])
}

let ok = false
try {
  ok = await main()
} catch (e) {
  console.error(e)
} finally {
  await pool?.close().catch(() => {})
  await cleanup()
}
process.exit(ok ? 0 : 1)
