/**
 * `vigil-mcp` (issue 19): the stdio server as a desktop client runs it — a child process
 * (bin/vigil-mcp.mjs) talking to the service through the typed client — driven by the SDK's own
 * stdio client: tools listed, scan and a malformed q, subscribe then get_webhook, a wrong key's
 * calls refused, and the binary refusing to start without a key.
 */
import { spawnSync } from "node:child_process"
import { resolve } from "node:path"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { describe, expect, it } from "vitest"
import { TOOLS } from "../../src/mcp/tools.js"
import { admin } from "../support/server.js"
import { serveForSuite } from "../support/suiteServer.js"

const BIN = resolve(import.meta.dirname, "../../bin/vigil-mcp.mjs")

const connect = async (env: Record<string, string>) => {
  const client = new Client({ name: "vigil-test", version: "1.0.0" })
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN],
      env: { PATH: process.env.PATH ?? "", ...env },
      stderr: "pipe"
    })
  )
  return client
}

describe("vigil-mcp over stdio", () => {
  const server = serveForSuite()

  it("serves the tools of a running service with the key it is given", async () => {
    const key = (await admin(server, "POST", "/admin/accounts", { plan: "pro" })).body.api_key
    const client = await connect({ VIGIL_API_KEY: key, VIGIL_BASE_URL: server.url })
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => t.name).sort())

    const scan = await client.callTool({ name: "scan", arguments: { q: "rsi_14 < 30", limit: 3 } })
    expect(scan.isError).toBeFalsy()
    expect((scan.structuredContent as any).results.length).toBeLessThanOrEqual(3)
    const bad = await client.callTool({ name: "scan", arguments: { q: "rsi_14 <" } })
    expect(bad.isError).toBe(true)
    expect((bad.structuredContent as any).error).toMatchObject({
      code: "invalid_query",
      errors: [{ pos: expect.any(Number) }]
    })

    const row = await client.callTool({ name: "get_ticker", arguments: { ticker: "NVDA" } })
    expect(JSON.stringify(row.structuredContent)).toContain('"NVDA"')
    const explained = await client.callTool({ name: "explain_scan", arguments: { q: "price > 0", ticker: "NVDA" } })
    expect(explained.isError).toBeFalsy()
    const dry = await client.callTool({
      name: "dry_run",
      arguments: { q: "ticker = 'NVDA' AND price > 0", from: "2026-10-01" }
    })
    expect((dry.structuredContent as any).event_count).toBeGreaterThanOrEqual(1)

    const sub = await client.callTool({ name: "subscribe", arguments: { q: "ticker = 'NVDA' AND price > 0" } })
    expect(sub.isError).toBeFalsy()
    const id = (sub.structuredContent as any).id
    const got = await client.callTool({ name: "get_webhook", arguments: { id } })
    expect((got.structuredContent as any).q).toBe("ticker = 'NVDA' AND price > 0")
    await client.close()
  }, 60_000)

  it("answers a wrong key's calls with the API's 401, a Free account's subscribe with its tier error, and will not start without a key", async () => {
    const client = await connect({ VIGIL_API_KEY: "vigil_test_nope", VIGIL_BASE_URL: server.url, MCP_TOOLS: "read" })
    const { tools } = await client.listTools()
    expect(tools.some((t) => t.name === "subscribe")).toBe(false)
    const scan = await client.callTool({ name: "scan", arguments: { q: "price > 1" } })
    expect(scan.isError).toBe(true)
    expect((scan.structuredContent as any).error.code).toBe("unauthenticated")
    await client.close()

    const freeKey = (await admin(server, "POST", "/admin/accounts", { plan: "free" })).body.api_key
    const free = await connect({ VIGIL_API_KEY: freeKey, VIGIL_BASE_URL: server.url })
    const refused = await free.callTool({ name: "subscribe", arguments: { q: "price > 0" } })
    expect((refused.structuredContent as any).error.code).toBe("webhook_tier_required")
    await free.close()

    const bare = spawnSync(process.execPath, [BIN], { env: { PATH: process.env.PATH ?? "" }, encoding: "utf8" })
    expect(bare.status).toBe(2)
    expect(bare.stderr).toMatch(/set VIGIL_API_KEY/)
  }, 60_000)
})
