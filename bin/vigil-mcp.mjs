#!/usr/bin/env node
// vigil-mcp: Vigil's MCP server over stdio (src/mcp/stdio.ts), for desktop MCP clients.
// VIGIL_API_KEY (required), VIGIL_BASE_URL (default http://127.0.0.1:8080), MCP_TOOLS (all | read).
import { register } from "tsx/esm/api"

register()
await import("../src/mcp/stdio.ts")
