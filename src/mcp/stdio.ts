/**
 * `vigil-mcp` (bin/vigil-mcp.mjs): the MCP server over stdio, talking to a running Vigil service
 * through the typed client — `VIGIL_API_KEY` (required), `VIGIL_BASE_URL` (default
 * `http://127.0.0.1:8080`), `MCP_TOOLS` (`all`, the default, or `read`). stdout carries the
 * protocol only: anything said goes to stderr.
 */
import { serveStdio } from "@modelcontextprotocol/server/stdio"
import { makeMcpServer, type ToolSet } from "./server.js"

const fail = (message: string): never => {
  process.stderr.write(`vigil-mcp: ${message}\n`)
  process.exit(2)
}

const apiKey = process.env.VIGIL_API_KEY?.trim() || fail("set VIGIL_API_KEY to an API key of your Vigil account")
const baseUrl = (process.env.VIGIL_BASE_URL?.trim() || "http://127.0.0.1:8080").replace(/\/+$/, "")
try {
  const url = new URL(baseUrl)
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http(s)")
} catch {
  fail(`VIGIL_BASE_URL must be an http(s) URL such as https://vigil.example.com (got ${baseUrl})`)
}
const tools = (process.env.MCP_TOOLS?.trim().toLowerCase() || "all") as ToolSet
if (tools !== "all" && tools !== "read") fail(`MCP_TOOLS must be all or read (got ${process.env.MCP_TOOLS})`)

serveStdio(() => makeMcpServer({ baseUrl, apiKey }, tools))
process.stderr.write(
  `vigil-mcp: serving ${tools === "read" ? "the read-only" : "all"} tools of ${baseUrl} over stdio\n`
)
