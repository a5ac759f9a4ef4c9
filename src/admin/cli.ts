/**
 * The operator CLI: `npm run admin -- <command>`. It drives the admin API of a
 * running service (VIGIL_URL, default http://127.0.0.1:$PORT) with ADMIN_TOKEN.
 */
import { createReadStream, statSync } from "node:fs"

const usage = `usage: npm run admin -- <command> [options]

commands:
  create-account --plan <none|free|hobby|pro|scale|enterprise>
  update-account <account_id> --plan <plan> [--rate-limit <per minute>]
  create-key <account_id> [--mode test|live]
  revoke-key <key_id>
  refresh
  import <file> [--ticker T]   daily bars from CSV (long format, or a per-ticker file with --ticker)

environment:
  ADMIN_TOKEN   the service's admin token (required)
  VIGIL_URL     the service's base URL (default http://127.0.0.1:\${PORT:-8080})`

const fail = (message: string): never => {
  process.stderr.write(`${message}\n`)
  process.exit(2)
}

const parseArgs = (argv: ReadonlyArray<string>) => {
  const positional: Array<string> = []
  const flags: Record<string, string> = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg.startsWith("--")) {
      const value = argv[i + 1]
      if (value === undefined || value.startsWith("--")) fail(`missing value for ${arg}\n\n${usage}`)
      flags[arg.slice(2)] = value
      i++
    } else positional.push(arg)
  }
  return { positional, flags }
}

const call = async (method: string, path: string, body?: unknown) => {
  const token = process.env.ADMIN_TOKEN ?? fail(`ADMIN_TOKEN is not set\n\n${usage}`)
  const base = process.env.VIGIL_URL ?? `http://127.0.0.1:${process.env.PORT ?? "8080"}`
  let res: Response
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
  } catch (error) {
    return fail(`cannot reach the service at ${base}: ${(error as Error).message}`)
  }
  const text = await res.text()
  if (!res.ok) {
    let message = text
    try {
      const parsed = JSON.parse(text)
      message = `${parsed.error?.code}: ${parsed.error?.message}`
    } catch {}
    return fail(`${method} ${path} failed with ${res.status}: ${message}`)
  }
  process.stdout.write(`${JSON.stringify(JSON.parse(text), null, 2)}\n`)
}

/** Streams a CSV file to POST /admin/import with a progress bar on stderr. */
const importFile = async (file: string, ticker: string | undefined) => {
  const token = process.env.ADMIN_TOKEN ?? fail(`ADMIN_TOKEN is not set\n\n${usage}`)
  const base = process.env.VIGIL_URL ?? `http://127.0.0.1:${process.env.PORT ?? "8080"}`
  let size: number
  try {
    size = statSync(file).size
  } catch {
    return fail(`cannot read ${file}`)
  }
  let sent = 0
  const progress = (final = false) => {
    const pct = size === 0 ? 100 : Math.floor((sent / size) * 100)
    const bar = "#".repeat(Math.floor(pct / 4)).padEnd(25, ".")
    process.stderr.write(
      `\r[${bar}] ${pct}% ${(sent / 1e6).toFixed(1)}/${(size / 1e6).toFixed(1)} MB${final ? "\n" : ""}`
    )
  }
  const stream = createReadStream(file)
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      stream.on("data", (chunk) => {
        const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk
        sent += bytes.length
        progress()
        controller.enqueue(new Uint8Array(bytes))
      })
      stream.on("end", () => {
        progress(true)
        process.stderr.write("storing bars and recomputing indicators…\n")
        controller.close()
      })
      stream.on("error", (e) => controller.error(e))
    }
  })
  const query = ticker === undefined ? "" : `?ticker=${encodeURIComponent(ticker)}`
  let res: Response
  try {
    res = await fetch(`${base}/admin/import${query}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "text/csv" },
      body,
      duplex: "half"
    } as RequestInit)
  } catch {
    process.stderr.write(`\nno service at ${base}; importing straight into the database (applied at the next start)\n`)
    const { offlineImport } = await import("./offlineImport.js")
    const { Effect } = await import("effect")
    const result = await Effect.runPromise(Effect.either(offlineImport(file, ticker)))
    if (result._tag === "Left") return fail(`import failed: ${(result.left as Error).message}`)
    process.stdout.write(`${JSON.stringify(result.right, null, 2)}\n`)
    return
  }
  const text = await res.text()
  if (!res.ok) {
    let message = text
    try {
      const parsed = JSON.parse(text)
      message = parsed.error?.message ?? text
    } catch {}
    return fail(`import failed (${res.status}): ${message}`)
  }
  process.stdout.write(`${JSON.stringify(JSON.parse(text), null, 2)}\n`)
}

const main = async () => {
  const [command, ...rest] = process.argv.slice(2)
  const { positional, flags } = parseArgs(rest)
  switch (command) {
    case "create-account":
      return call("POST", "/admin/accounts", { plan: flags.plan ?? fail(`--plan is required\n\n${usage}`) })
    case "update-account": {
      const id = positional[0] ?? fail(`an account id is required\n\n${usage}`)
      const body: Record<string, unknown> = { plan: flags.plan ?? fail(`--plan is required\n\n${usage}`) }
      if (flags["rate-limit"] !== undefined) body.rate_limit_per_minute = Number(flags["rate-limit"])
      return call("PATCH", `/admin/accounts/${encodeURIComponent(id)}`, body)
    }
    case "create-key": {
      const id = positional[0] ?? fail(`an account id is required\n\n${usage}`)
      return call("POST", `/admin/accounts/${encodeURIComponent(id)}/keys`, flags.mode ? { mode: flags.mode } : {})
    }
    case "revoke-key": {
      const id = positional[0] ?? fail(`a key id is required\n\n${usage}`)
      return call("DELETE", `/admin/keys/${encodeURIComponent(id)}`)
    }
    case "refresh":
      return call("POST", "/admin/refresh")
    case "import": {
      const file = positional[0] ?? fail(`a file is required\n\n${usage}`)
      return importFile(file, flags.ticker)
    }
    case undefined:
    case "help":
    case "--help":
      process.stdout.write(`${usage}\n`)
      return
    default:
      return fail(`unknown command ${command}\n\n${usage}`)
  }
}

void main()
