/**
 * `/mcp` (issue 19): the SDK's own client over streamable HTTP against the service in process —
 * tools listed with the API's schemas, scan / get_ticker / explain_scan / dry_run / subscribe then
 * get_webhook called, a malformed `q` answered as a tool error with its position and suggestion,
 * a wrong key refused, a Free account's subscribe refused for its tier, the rate limit's headers
 * on the answers, and `MCP_TOOLS=read` offering only the tools that change nothing.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { describe, expect, it } from "vitest"
import { TOOLS } from "../../src/mcp/tools.js"
import { admin } from "../support/server.js"
import { serveForSuite } from "../support/suiteServer.js"

const connect = async (url: string, key: string) => {
  const client = new Client({ name: "vigil-test", version: "1.0.0" })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } }
    })
  )
  return client
}

const keyOf = async (server: { readonly url: string }, plan: string) =>
  (await admin(server as never, "POST", "/admin/accounts", { plan })).body.api_key as string

describe("/mcp over streamable HTTP", () => {
  const server = serveForSuite()

  it("lists every tool with the API's own input schema, and the resources", async () => {
    const client = await connect(server.url, await keyOf(server, "pro"))
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => t.name).sort())
    expect(tools).toHaveLength(32)
    const scan = tools.find((t) => t.name === "scan")!
    expect(scan.description).toMatch(/WHERE-style/)
    expect(scan.inputSchema).toMatchObject({
      type: "object",
      properties: { q: { type: "string" }, limit: { type: "number" }, asof: { type: "string" } }
    })
    const deliveries = tools.find((t) => t.name === "list_deliveries")!
    expect(deliveries.inputSchema).toMatchObject({ required: ["id"], properties: { limit: { type: "integer" } } })
    expect(scan.annotations?.readOnlyHint).toBe(true)
    expect(tools.find((t) => t.name === "subscribe")!.annotations?.readOnlyHint).toBe(false)

    const { resources } = await client.listResources()
    expect(resources.map((r) => r.uri).sort()).toEqual(["vigil://catalog", "vigil://docs/query-language"])
    const catalog = await client.readResource({ uri: "vigil://catalog" })
    const body = JSON.parse((catalog.contents[0] as { text: string }).text)
    expect(body.columns.find((c: any) => c.name === "rsi_14").group).toBe("momentum")
    const grammar = await client.readResource({ uri: "vigil://docs/query-language" })
    expect((grammar.contents[0] as { text: string }).text).toMatch(/^# The `q` language/)
    await client.close()
  })

  it("screens, reads a ticker, explains, dry-runs and subscribes through the tools", async () => {
    const key = await keyOf(server, "pro")
    const client = await connect(server.url, key)
    const scan = await client.callTool({ name: "scan", arguments: { q: "price > 10 AND rsi_14 < 40", limit: 5 } })
    expect(scan.isError).toBeFalsy()
    const found = scan.structuredContent as any
    expect(found.count).toBe(5)
    expect(found.results).toHaveLength(5)
    for (const row of found.results) expect(row.price).toBeGreaterThan(10)
    expect((scan.content as any)[0].text).toMatch(/^5 of \d+ matching tickers as of /)
    // the same screen through /v2 answers the same rows
    const direct = await fetch(`${server.url}/v2/scan`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ q: "price > 10 AND rsi_14 < 40", limit: 5 })
    })
    expect(((await direct.json()) as any).results.map((r: any) => r.ticker)).toEqual(
      found.results.map((r: any) => r.ticker)
    )

    const row = await client.callTool({ name: "get_ticker", arguments: { ticker: "aapl" } })
    expect(row.isError).toBeFalsy()
    expect(JSON.stringify(row.structuredContent)).toContain('"AAPL"')

    const explained = await client.callTool({
      name: "explain_scan",
      arguments: { q: "price > 10 AND rsi_14 < 40", ticker: "AAPL" }
    })
    expect(explained.isError).toBeFalsy()
    expect(JSON.stringify(explained.structuredContent)).toMatch(/rsi_14 < 40/)

    const backtest = await client.callTool({
      name: "backtest",
      arguments: {
        q: "rsi_14 < 35 AND price > 5",
        from: "2025-06-02",
        to: "2026-06-01",
        every: "1mo",
        hold: "5d",
        limit: 20
      }
    })
    expect(backtest.isError).toBeFalsy()
    expect((backtest.structuredContent as any).summary.periods).toBeGreaterThanOrEqual(11)
    expect((backtest.content as any)[0].text).toMatch(/^\d+ periods: screen [+-]\d+\.\d\d%, SPY [+-]\d+\.\d\d%$/)

    const dry = await client.callTool({
      name: "dry_run",
      arguments: { q: "ticker = 'MSFT' AND price > 0", from: "2026-09-01" }
    })
    expect(dry.isError).toBeFalsy()
    expect((dry.structuredContent as any).event_count).toBeGreaterThanOrEqual(1)

    const sub = await client.callTool({
      name: "subscribe",
      arguments: { q: "ticker = 'MSFT' AND price > 0", name: "agent watch", cooldown: "1h" }
    })
    expect(sub.isError).toBeFalsy()
    const id = (sub.structuredContent as any).id
    expect(id).toMatch(/^wh_/)
    const got = await client.callTool({ name: "get_webhook", arguments: { id } })
    expect(got.structuredContent).toMatchObject({ id, name: "agent watch", channel: "in_app", cooldown: "1h" })
    await client.close()
  })

  it("answers a malformed q as a tool error with its position and suggestion, bad arguments as an error", async () => {
    const client = await connect(server.url, await keyOf(server, "pro"))
    const bad = await client.callTool({ name: "scan", arguments: { q: "pric > 10" } })
    expect(bad.isError).toBe(true)
    const error = (bad.structuredContent as any).error
    expect(error).toMatchObject({ code: "invalid_query", errors: [{ pos: 0, suggestion: "price" }] })
    expect((bad.content as any)[0].text).toMatch(/^invalid_query: .*\n- at 0: .*did you mean/s)
    // arguments the schema refuses never reach the API
    const wrong = await client.callTool({ name: "scan", arguments: { q: 42 } as any })
    expect(wrong.isError).toBe(true)
    expect(JSON.stringify(wrong.content)).toMatch(/q/)
    await client.close()
  })

  it("refuses a wrong key, gives a Free account's subscribe the tier error, and counts each MCP request once, with the rate limit's headers", async () => {
    const refused = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: "Bearer vigil_test_nope",
        "content-type": "application/json",
        accept: "application/json, text/event-stream"
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
    })
    expect(refused.status).toBe(401)
    expect(((await refused.json()) as any).error.code).toBe("unauthenticated")
    await expect(connect(server.url, "vigil_test_nope")).rejects.toThrow()

    const free = await connect(server.url, await keyOf(server, "free"))
    const sub = await free.callTool({ name: "subscribe", arguments: { q: "price > 0" } })
    expect(sub.isError).toBe(true)
    expect((sub.structuredContent as any).error.code).toBe("webhook_tier_required")
    await free.close()

    // the answer to a tool call carries the rate limit's headers of the API call it made, and a request id
    const seen: Array<Headers> = []
    const client = new Client({ name: "vigil-test", version: "1.0.0" })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${await keyOf(server, "pro")}` } },
        fetch: async (url, init) => {
          const res = await fetch(url, init)
          seen.push(res.headers)
          return res
        }
      })
    )
    const status = await client.callTool({ name: "market_status", arguments: {} })
    expect((status.content as any)[0].text).toMatch(/^equities (open|closed), crypto (open|closed); data as of /)
    const last = seen[seen.length - 1]!
    expect(last.get("x-request-id")).toMatch(/^req_/)
    expect(Number(last.get("x-ratelimit-limit"))).toBeGreaterThan(0)
    expect(Number(last.get("x-ratelimit-remaining"))).toBeLessThan(Number(last.get("x-ratelimit-limit")))
    // one MCP request is one request against the limit: the tool's own /v2 call is not counted again
    await client.callTool({ name: "scan", arguments: { q: "price > 1", limit: 1 } })
    const next = seen[seen.length - 1]!
    expect(Number(next.get("x-ratelimit-remaining"))).toBe(Number(last.get("x-ratelimit-remaining")) - 1)
    await client.close()

    // the mark of an internal call is a secret of the process: a forged one is counted as any request
    const own = await keyOf(server, "pro")
    const remaining = async (headers: Record<string, string>) =>
      Number(
        (
          await fetch(`${server.url}/v2/account`, { headers: { authorization: `Bearer ${own}`, ...headers } })
        ).headers.get("x-ratelimit-remaining")
      )
    const before = await remaining({})
    expect(await remaining({ "x-vigil-internal-call": "x".repeat(43) })).toBe(before - 1)
    expect(await remaining({ "x-vigil-internal-call": "" })).toBe(before - 2)
  })
})

describe("/mcp with MCP_TOOLS=read", () => {
  const server = serveForSuite({ MCP_TOOLS: "read" })

  it("offers only the tools that change nothing", async () => {
    const client = await connect(server.url, await keyOf(server, "pro"))
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(
      TOOLS.filter((t) => t.readOnly)
        .map((t) => t.name)
        .sort()
    )
    expect(tools.map((t) => t.name)).not.toContain("subscribe")
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true)
    await client.close()
  })
})

describe("docs/mcp.md", () => {
  it("lists every tool with the endpoint it calls and whether it is read-only", async () => {
    const { readFileSync } = await import("node:fs")
    const { VigilApi } = await import("../../src/client.js")
    const doc = readFileSync(new URL("../../docs/mcp.md", import.meta.url), "utf8")
    for (const t of TOOLS) {
      const endpoint = (VigilApi.groups as any)[t.group].endpoints[t.endpoint]
      const path = endpoint.path.replace(/:(\w+)/g, "{$1}")
      expect(doc).toContain(`| \`${t.name}\` | \`${endpoint.method} ${path}\` | ${t.readOnly ? "yes" : "no"} |`)
    }
  })
})
