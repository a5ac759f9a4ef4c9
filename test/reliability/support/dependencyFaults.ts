/**
 * The dependency-fault proof (issue 7, item 2), shared by `npm run
 * proof:faults` (scripts/dependency-faults.ts) and the CI-sized test
 * (test/reliability/dependencies.test.ts).
 *
 * One service process runs on a private PostgreSQL and a private Redis
 * (support/private.ts), with a local receiver, while a load of API requests
 * (4 clients in a loop over account, webhooks, scan and universes) goes on:
 *
 * 1. PostgreSQL stopped for `pgOutageMs`. Before the cut, fires are queued
 *    and their first POST answered 503, so their retries fall due during the
 *    outage. Checked: every API answer during the outage is a success or a
 *    503 `service_unavailable` with `Retry-After` (a database-backed endpoint
 *    answers 503), p99 latency under 2 s and no request hanging (10 s client
 *    deadline); `/healthz` stays 200; no delivery attempt is made or burned
 *    during the outage; once PostgreSQL is back — same process, no restart —
 *    the API answers 200 again, every queued delivery is delivered (on its
 *    second attempt: the outage did not use up the schedule), a refresh is
 *    evaluated and a new fire is delivered.
 * 2. Redis stopped for `redisOutageMs` (connections refused), then frozen
 *    with SIGSTOP for `redisFreezeMs` (connections accepted, nothing
 *    answered). Checked: requests are still answered, with rate-limit headers,
 *    within the bounded time when Redis is stopped (p99 under 2 s over the
 *    healthy p99), without hanging and mostly without waiting when it is
 *    frozen (median under 1 s over the healthy median), the
 *    `ratelimit_redis_fallback_total` counter in /metrics counts them; once
 *    Redis is back, limiting is shared again: a fresh Free key (60/min) gets
 *    exactly 60 admissions and then 429, decided in Redis (its hash counts
 *    60) without any fallback.
 */
import type { MarketChoice } from "../../support/sampleTickers.js"
import { admin, type RunningServer, startServer, waitReady } from "../../support/server.js"
import { type PrivatePostgres, type PrivateRedis, privatePostgres, privateRedis } from "./private.js"
import { type Receiver, startReceiver } from "./receiver.js"

export interface FaultOptions {
  readonly pgOutageMs: number
  readonly redisOutageMs: number
  readonly redisFreezeMs: number
  /** where a proxy points when no private cluster can be made */
  readonly fallbackDatabaseUrl?: string
  /** the service's market: the seed's tickers ("all", `npm run proof:faults`) or the suites' sample (server.ts) */
  readonly market?: MarketChoice
  readonly log?: (line: string) => void
}

export interface Sample {
  readonly path: string
  readonly status: number
  readonly code: string | undefined
  readonly retryAfter: string | null
  readonly rateLimited: boolean
  readonly ms: number
}

export interface Check {
  readonly name: string
  readonly passed: boolean
  readonly detail: string
}

export interface FaultReport {
  readonly postgres: string
  readonly pg: {
    readonly requests: number
    readonly statuses: Record<string, number>
    readonly healthyP50: number
    readonly healthyP99: number
    readonly p50: number
    readonly p99: number
    readonly max: number
    readonly hung: number
    readonly readyz: Record<string, number>
    readonly postsDuringOutage: number
    readonly recoveryMs: number
    readonly deliveredAfterMs: number
  }
  readonly redis: {
    readonly requests: number
    readonly statuses: Record<string, number>
    readonly p50: number
    readonly p99: number
    readonly max: number
    readonly frozenP99: number
    readonly frozenMax: number
    readonly fallbacks: number
    readonly resumedAfterMs: number
  }
  readonly checks: ReadonlyArray<Check>
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.floor(q * s.length))]!
}
const tally = (xs: ReadonlyArray<string | number>) => {
  const out: Record<string, number> = {}
  for (const x of xs) out[String(x)] = (out[String(x)] ?? 0) + 1
  return out
}

const request = async (url: string, key: string, method: string, path: string, body?: unknown) => {
  const t0 = performance.now()
  try {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" })
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000)
    })
    const text = await res.text()
    let parsed: any
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = undefined
    }
    return {
      path,
      status: res.status,
      code: parsed?.error?.code as string | undefined,
      retryAfter: res.headers.get("retry-after"),
      rateLimited: res.headers.has("x-ratelimit-limit"),
      ms: performance.now() - t0,
      body: parsed
    }
  } catch (e) {
    const timedOut = (e as Error).name === "TimeoutError"
    return {
      path,
      status: timedOut ? -1 : 0,
      code: timedOut ? "hung" : "connection_error",
      retryAfter: null,
      rateLimited: false,
      ms: performance.now() - t0,
      body: undefined
    }
  }
}

const LOAD: ReadonlyArray<readonly [string, string, unknown?]> = [
  ["GET", "/v2/account"],
  ["GET", "/v2/webhooks?limit=5"],
  ["POST", "/v2/scan", { q: "price > 100", limit: 5 }],
  ["GET", "/v2/universes"]
]

/** Runs 4 clients over LOAD until `until()`; the samples. */
const load = async (url: string, key: string, until: () => boolean) => {
  const samples: Array<Sample> = []
  await Promise.all(
    [0, 1, 2, 3].map(async (c) => {
      for (let i = c; !until(); i++) {
        const [method, path, body] = LOAD[i % LOAD.length]!
        const r = await request(url, key, method, path, body)
        samples.push({
          path: r.path,
          status: r.status,
          code: r.code,
          retryAfter: r.retryAfter,
          rateLimited: r.rateLimited,
          ms: r.ms
        })
        await sleep(20)
      }
    })
  )
  return samples
}

const fallbackCount = async (url: string) => {
  const text = await (await fetch(`${url}/metrics`)).text()
  const m = /^ratelimit_redis_fallback_total(?:\{[^}]*\})? (\d+(?:\.\d+)?)/m.exec(text)
  return m === null ? 0 : Number(m[1])
}

export const runDependencyFaults = async (options: FaultOptions): Promise<FaultReport> => {
  const log = options.log ?? (() => {})
  const checks: Array<Check> = []
  const check = (name: string, passed: boolean, detail: string) => {
    checks.push({ name, passed, detail })
    log(`${passed ? "PASS" : "FAIL"}  ${name}: ${detail}`)
  }
  let pg: PrivatePostgres | undefined
  let redis: PrivateRedis | undefined
  let server: RunningServer | undefined
  let receiver: Receiver | undefined
  try {
    pg = await privatePostgres(options.fallbackDatabaseUrl)
    log(`PostgreSQL: ${pg.kind}${pg.why === undefined ? "" : ` (${pg.why})`}`)
    redis = await privateRedis()
    // /retry/*: the first POST of each event answered 503; /held/*: answered only after the cut
    receiver = await startReceiver({ failFirst: 1, hold: (path) => path.startsWith("/held/") })
    server = await startServer(
      {
        DATABASE_URL: pg.url,
        REDIS_URL: redis.url,
        REFRESH_INTERVAL: "2s",
        HISTORY_DAYS: "30",
        WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
        WEBHOOK_RETRY_SCHEDULE: "6s,2s,2s,2s,2s"
      },
      300_000,
      { market: options.market ?? "all" }
    )
    await waitReady(server, 300_000)
    const url = server.url
    const pid = server.process.pid
    const account = (await admin(server, "POST", "/admin/accounts", { plan: "pro" })).body
    const key = account.api_key as string

    // ---- 1. PostgreSQL ------------------------------------------------------------------------------
    // the same load, healthy, for comparison (the machine may be busy). Measured before the fires are
    // queued: their retries fall due 6 s after the first attempts, which must still be ahead at the cut
    // (measured here, a slow machine's 3 s of load plus the stop let them fall due before it)
    const healthyFrom = Date.now()
    const healthy = await load(url, key, () => Date.now() - healthyFrom >= 3_000)
    const healthyLat = healthy.map((s) => s.ms)
    log(
      `healthy: ${healthy.length} requests, p50 ${quantile(healthyLat, 0.5).toFixed(0)} ms, p99 ${quantile(healthyLat, 0.99).toFixed(0)} ms`
    )
    const subscribe = async (ticker: string, path: string) => {
      const r = await request(url, key, "POST", `/v2/tickers/${ticker}/subscribe`, {
        condition: "price > 0",
        target_url: `${receiver!.url}${path}`
      })
      if (r.status !== 200) throw new Error(`subscribe: ${r.status} ${JSON.stringify(r.body)}`)
      receiver!.secrets.set(r.body.id, r.body.signing_secret)
      return r.body.id as string
    }
    /** retried: their retries fall due during the outage */
    const hooks: Array<string> = []
    for (const t of ["AAPL", "MSFT", "NVDA", "AMZN", "GOOGL"]) hooks.push(await subscribe(t, `/retry/${t}`))
    /** in flight at the cut: answered 200 once PostgreSQL is down, so the result waits to be recorded */
    const heldHooks: Array<string> = []
    for (const t of ["JPM", "XOM", "WMT"]) heldHooks.push(await subscribe(t, `/held/${t}`))
    const refreshed = await admin(server, "POST", "/admin/refresh")
    if (refreshed.status !== 200) throw new Error(`refresh: ${refreshed.status}`)
    // every fire's first POST answered 503 and recorded: the retries fall due during the outage
    const firstAttemptsRecorded = async () => {
      for (const id of hooks) {
        const r = await request(url, key, "GET", `/v2/webhooks/${id}/deliveries`)
        const d = r.body?.deliveries?.[0]
        if (d !== undefined && d.attempt > 1)
          throw new Error("a retry was sent before the cut: the machine is too slow")
        if (d === undefined || d.attempt !== 1 || d.last_status_code !== 503) return false
      }
      return true
    }
    for (let deadline = Date.now() + 20_000; !(await firstAttemptsRecorded()) || receiver.held() < 3; ) {
      if (Date.now() > deadline) throw new Error("the first attempts were not recorded (or held) in time")
      await sleep(50)
    }
    // counted from here: the retries fall due 6 s after the first attempts, and PostgreSQL is cut now
    const postsBefore = receiver.posts.length
    await pg.stop()
    const cutAt = Date.now()
    receiver.release()
    log(`PostgreSQL stopped for ${options.pgOutageMs} ms`)
    const readyz: Array<number> = []
    const healthz: Array<number> = []
    const probes = (async () => {
      while (Date.now() - cutAt < options.pgOutageMs) {
        readyz.push((await fetch(`${url}/readyz`).catch(() => undefined))?.status ?? 0)
        healthz.push((await fetch(`${url}/healthz`).catch(() => undefined))?.status ?? 0)
        await sleep(250)
      }
    })()
    const outage = await load(url, key, () => Date.now() - cutAt >= options.pgOutageMs)
    await probes
    // the admin API reads the same database: the same 503 (not a 500), while it is still down
    const adminOutage = await Promise.all([
      admin(server, "POST", "/admin/accounts", { plan: "pro" }),
      admin(server, "POST", `/admin/accounts/${account.account_id}/keys`, {})
    ])
    const postsDuringOutage = receiver.posts.length - postsBefore
    await pg.start()
    const backAt = Date.now()
    log("PostgreSQL started again")

    const lat = outage.map((s) => s.ms)
    const hung = outage.filter((s) => s.status === -1).length
    const bad = outage.filter(
      (s) =>
        !(
          (s.status >= 200 && s.status < 300) ||
          (s.status === 503 && s.code === "service_unavailable" && s.retryAfter !== null)
        )
    )
    check(
      "PostgreSQL down: every answer a success or 503 service_unavailable with Retry-After",
      bad.length === 0 && outage.length > 0,
      `${outage.length} requests: ${JSON.stringify(tally(outage.map((s) => `${s.status}${s.code === undefined ? "" : ` ${s.code}`}`)))}${bad.length > 0 ? `; unexpected e.g. ${JSON.stringify(bad[0])}` : ""}`
    )
    check(
      "PostgreSQL down: the admin API answers 503 service_unavailable with Retry-After, as /v2 does",
      adminOutage.every(
        (r) =>
          r.status === 503 && r.body?.error?.code === "service_unavailable" && r.headers.get("retry-after") !== null
      ),
      adminOutage.map((r) => `${r.status} ${JSON.stringify(r.body).slice(0, 200)}`).join("; ")
    )
    check(
      "PostgreSQL down: database-backed endpoints answer 503",
      outage.some((s) => s.path.startsWith("/v2/webhooks") && s.status === 503) &&
        outage.every((s) => !s.path.startsWith("/v2/webhooks") || s.status === 503),
      `GET /v2/webhooks: ${JSON.stringify(tally(outage.filter((s) => s.path.startsWith("/v2/webhooks")).map((s) => s.status)))}`
    )
    check(
      "PostgreSQL down: answers are quick, none hangs",
      quantile(lat, 0.99) < 2_000 + quantile(healthyLat, 0.99) && hung === 0,
      `p50 ${quantile(lat, 0.5).toFixed(0)} ms, p99 ${quantile(lat, 0.99).toFixed(0)} ms, max ${Math.max(...lat).toFixed(0)} ms, ${hung} over 10 s (healthy p99 ${quantile(healthyLat, 0.99).toFixed(0)} ms)`
    )
    check(
      "PostgreSQL down: /healthz 200 (the process stays up)",
      healthz.every((s) => s === 200),
      `/healthz ${JSON.stringify(tally(healthz))}, /readyz ${JSON.stringify(tally(readyz))}`
    )
    check(
      "PostgreSQL down: deliveries pause",
      postsDuringOutage === 0,
      `${postsDuringOutage} POSTs during the outage (5 retries were due in it)`
    )

    // recovery, by itself
    let recoveryMs = -1
    for (let deadline = Date.now() + 30_000; Date.now() < deadline; ) {
      const r = await request(url, key, "GET", "/v2/webhooks?limit=5")
      if (r.status === 200) {
        recoveryMs = Date.now() - backAt
        break
      }
      await sleep(50)
    }
    check("PostgreSQL back: the API answers 200 again without a restart", recoveryMs >= 0, `after ${recoveryMs} ms`)
    const delivered = async () => {
      for (const id of [...hooks, ...heldHooks]) {
        const r = await request(url, key, "GET", `/v2/webhooks/${id}/deliveries`)
        const d = r.body?.deliveries?.[0]
        if (d === undefined || d.status !== "delivered") return false
      }
      return true
    }
    let deliveredAfterMs = -1
    for (let deadline = Date.now() + 30_000; Date.now() < deadline; ) {
      if (await delivered()) {
        deliveredAfterMs = Date.now() - backAt
        break
      }
      await sleep(100)
    }
    const attempts: Array<number> = []
    for (const id of hooks) {
      const r = await request(url, key, "GET", `/v2/webhooks/${id}/deliveries`)
      attempts.push(r.body?.deliveries?.[0]?.attempt ?? -1)
    }
    const heldAttempts: Array<number> = []
    for (const id of heldHooks) {
      const r = await request(url, key, "GET", `/v2/webhooks/${id}/deliveries`)
      heldAttempts.push(r.body?.deliveries?.[0]?.attempt ?? -1)
    }
    const heldPosts = heldHooks.map((id) => receiver!.posts.filter((p) => p.webhookId === id).length)
    check(
      "PostgreSQL back: every queued delivery is delivered, the outage used up no attempt",
      deliveredAfterMs >= 0 && attempts.every((a) => a === 2),
      `delivered ${deliveredAfterMs} ms after PostgreSQL returned; attempts ${attempts.join(",")}`
    )
    check(
      "PostgreSQL back: attempts answered during the outage are recorded, not sent again",
      heldAttempts.every((a) => a === 1) && heldPosts.every((n) => n === 1),
      `attempts ${heldAttempts.join(",")}; POSTs per event ${heldPosts.join(",")}`
    )
    const again = await admin(server, "POST", "/admin/refresh")
    const late = await request(url, key, "POST", "/v2/tickers/META/subscribe", {
      condition: "price > 0",
      target_url: `${receiver.url}/META`
    })
    receiver.secrets.set(late.body?.id, late.body?.signing_secret)
    const again2 = await admin(server, "POST", "/admin/refresh")
    let lateDelivered = false
    for (let deadline = Date.now() + 20_000; Date.now() < deadline && !lateDelivered; await sleep(100)) {
      lateDelivered = receiver.posts.some((p) => p.webhookId === late.body?.id && p.status === 200 && p.verified)
    }
    check(
      "PostgreSQL back: refreshes are evaluated and new fires delivered",
      again.status === 200 && again2.status === 200 && lateDelivered && server.process.pid === pid,
      `refresh ${again.status}/${again2.status}, new webhook delivered ${lateDelivered}, same process ${server.process.pid === pid}`
    )

    // ---- 2. Redis -----------------------------------------------------------------------------------------
    const fallbacksBefore = await fallbackCount(url)
    await redis.stop()
    const redisCut = Date.now()
    log(`Redis stopped for ${options.redisOutageMs} ms`)
    const down = await load(url, key, () => Date.now() - redisCut >= options.redisOutageMs)
    await redis.start()
    // frozen: accepts connections, answers nothing (reconnect first, so the client is connected)
    await sleep(2_500)
    redis.freeze()
    const frozenAt = Date.now()
    log(`Redis frozen (SIGSTOP) for ${options.redisFreezeMs} ms`)
    const frozen = await load(url, key, () => Date.now() - frozenAt >= options.redisFreezeMs)
    redis.thaw()
    const thawedAt = Date.now()
    const fallbacks = (await fallbackCount(url)) - fallbacksBefore
    const all = [...down, ...frozen]
    const okRedis = all.filter((s) => s.status >= 200 && s.status < 300 && s.rateLimited)
    const downLat = down.map((s) => s.ms)
    const frozenLat = frozen.map((s) => s.ms)
    check(
      "Redis down or frozen: requests answered as usual, with rate-limit headers",
      okRedis.length === all.length && all.length > 0,
      `${all.length} requests: ${JSON.stringify(tally(all.map((s) => s.status)))}`
    )
    check(
      "Redis stopped: within the bounded time",
      quantile(downLat, 0.99) < 2_000 + quantile(healthyLat, 0.99) && !down.some((s) => s.status === -1),
      `p50 ${quantile(downLat, 0.5).toFixed(0)} ms, p99 ${quantile(downLat, 0.99).toFixed(0)} ms, max ${Math.max(...downLat).toFixed(0)} ms`
    )
    check(
      "Redis frozen: no request hangs, and after the first timeout most do not wait for Redis",
      !frozen.some((s) => s.status === -1) && quantile(frozenLat, 0.5) < 1_000 + quantile(healthyLat, 0.5),
      `p50 ${quantile(frozenLat, 0.5).toFixed(0)} ms, p99 ${quantile(frozenLat, 0.99).toFixed(0)} ms, max ${Math.max(...frozenLat).toFixed(0)} ms`
    )
    check(
      "Redis down or frozen: ratelimit_redis_fallback_total counts the fallbacks",
      fallbacks >= all.length,
      `+${fallbacks} for ${all.length} requests`
    )

    // shared limiting resumes: a fresh Free key is decided in Redis again
    const { Redis: IORedis } = await import("ioredis")
    const client = new IORedis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 })
    await client.connect()
    const free = (await admin(server, "POST", "/admin/accounts", { plan: "free" })).body
    const hash = `vigil:rl:key:${free.key_id}`
    let resumedAfterMs = -1
    for (let deadline = Date.now() + 15_000; Date.now() < deadline; ) {
      await request(url, free.api_key, "GET", "/v2/account")
      if ((await client.exists(hash)) === 1) {
        resumedAfterMs = Date.now() - thawedAt
        break
      }
      await sleep(100)
    }
    await client.del(hash)
    await sleep(1_200) // past the cooldown of a fallback decided meanwhile
    const beforeBurst = await fallbackCount(url)
    const burst: Array<number> = []
    for (let i = 0; i < 62; i++) burst.push((await request(url, free.api_key, "GET", "/v2/account")).status)
    const counted = Number((await client.hget(hash, "n")) ?? 0)
    const burstFallbacks = (await fallbackCount(url)) - beforeBurst
    await client.quit()
    const admitted = burst.filter((s) => s === 200).length
    check(
      "Redis back: shared limiting resumes (Free key: 60 admitted then 429, counted in Redis, no fallback)",
      resumedAfterMs >= 0 &&
        admitted === 60 &&
        burst.slice(60).every((s) => s === 429) &&
        counted === 60 &&
        burstFallbacks === 0,
      `decided in Redis again ${resumedAfterMs} ms after it answered again; burst ${admitted} × 200, then ${burst.slice(60).join(",")}; Redis counts ${counted}; ${burstFallbacks} fallbacks`
    )
    return {
      postgres: pg.kind === "cluster" ? "private cluster" : `proxy (${pg.why})`,
      pg: {
        requests: outage.length,
        statuses: tally(outage.map((s) => s.status)),
        healthyP50: quantile(healthyLat, 0.5),
        healthyP99: quantile(healthyLat, 0.99),
        p50: quantile(lat, 0.5),
        p99: quantile(lat, 0.99),
        max: Math.max(...lat),
        hung,
        readyz: tally(readyz),
        postsDuringOutage,
        recoveryMs,
        deliveredAfterMs
      },
      redis: {
        requests: all.length,
        statuses: tally(all.map((s) => s.status)),
        p50: quantile(downLat, 0.5),
        p99: quantile(downLat, 0.99),
        max: Math.max(...downLat),
        frozenP99: quantile(frozenLat, 0.99),
        frozenMax: Math.max(...frozenLat),
        fallbacks,
        resumedAfterMs
      },
      checks
    }
  } finally {
    await server?.stop()
    await receiver?.close()
    await redis?.close().catch(() => {})
    await pg?.close().catch(() => {})
  }
}
