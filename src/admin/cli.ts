/**
 * The operator CLI: `npm run admin -- <command>`. It drives the admin API of a
 * running service (VIGIL_URL, default http://127.0.0.1:$PORT) with ADMIN_TOKEN.
 */
import { randomBytes } from "node:crypto"
import { createReadStream, statSync } from "node:fs"
import { importPaths, isGzipFile } from "./importPaths.js"

const usage = `usage: npm run admin -- <command> [options]

commands:
  create-account --plan <none|free|hobby|pro|scale|enterprise>
  update-account <account_id> --plan <plan> [--rate-limit <per minute>]
  create-key <account_id> [--mode test|live]
  revoke-key <key_id>
  create-user --email <email> [--password <password>] [--account <account_id> | --plan <plan>]
                               a dashboard user, of an account or of a new one (default plan free);
                               without --password one is generated and printed once
  refresh
  import <file|dir|glob>... [--ticker T]
                               daily bars or splits from CSV files, .gz ones too: the long format,
                               whole-market day aggregates, a splits file (ticker,date,ratio), or a
                               per-ticker file with --ticker; a directory imports its files by name,
                               a glob ('data/*.csv.gz', '**' for any depth) its matches

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

/** files of one multipart request: few enough that the service reads them within its request timeout (30 s) */
const BATCH_FILES = 16
const BATCH_BYTES = 32 * 2 ** 20

/** The bytes of `file` as a stream, counting what was read into `sent`. */
const fileStream = (file: string, onBytes: (n: number) => void): AsyncIterable<Uint8Array> =>
  (async function* () {
    for await (const chunk of createReadStream(file)) {
      const bytes = chunk as Buffer
      onBytes(bytes.length)
      yield new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length)
    }
  })()

const asBody = (chunks: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> => {
  const it = chunks[Symbol.asyncIterator]()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await it.next()
        if (next.done) controller.close()
        else controller.enqueue(next.value)
      } catch (e) {
        controller.error(e)
      }
    }
  })
}

/** A multipart/form-data body of `files`, streamed from disk one after the other. */
const multipartBody = (files: ReadonlyArray<string>, boundary: string, onBytes: (n: number) => void) =>
  asBody(
    (async function* () {
      const encoder = new TextEncoder()
      for (const file of files) {
        const name = file.replace(/["\r\n]/g, (c) => encodeURIComponent(c))
        const type = isGzipFile(file) ? "application/gzip" : "text/csv"
        yield encoder.encode(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`
        )
        yield* fileStream(file, onBytes)
        yield encoder.encode("\r\n")
      }
      yield encoder.encode(`--${boundary}--\r\n`)
    })()
  )

/** The files in requests of at most BATCH_FILES files and BATCH_BYTES bytes (one file always fits). */
const batches = (files: ReadonlyArray<string>, sizes: ReadonlyMap<string, number>): Array<Array<string>> => {
  const out: Array<Array<string>> = []
  let current: Array<string> = []
  let bytes = 0
  for (const file of files) {
    const size = sizes.get(file) ?? 0
    if (current.length > 0 && (current.length >= BATCH_FILES || bytes + size > BATCH_BYTES)) {
      out.push(current)
      current = []
      bytes = 0
    }
    current.push(file)
    bytes += size
  }
  if (current.length > 0) out.push(current)
  return out
}

interface Report {
  readonly tickers: ReadonlyArray<string>
  readonly rows: number
  readonly from: string
  readonly to: string
  readonly files: ReadonlyArray<{ readonly file: string }>
  readonly splits: number
  readonly skipped_tickers: number
  readonly skipped: ReadonlyArray<string>
}

/** The summaries of several requests as one. */
const merge = (reports: ReadonlyArray<Report>): Report => {
  const tickers = new Set<string>()
  const skipped = new Set<string>()
  let from = ""
  let to = ""
  for (const r of reports) {
    for (const t of r.tickers) tickers.add(t)
    for (const t of r.skipped) skipped.add(t)
    if (r.from !== "" && (from === "" || r.from < from)) from = r.from
    if (r.to > to) to = r.to
  }
  return {
    tickers: [...tickers].sort(),
    rows: reports.reduce((n, r) => n + r.rows, 0),
    from,
    to,
    files: reports.flatMap((r) => r.files),
    splits: reports.reduce((n, r) => n + r.splits, 0),
    skipped_tickers: skipped.size,
    skipped: [...skipped].sort()
  }
}

/**
 * Sends the files (one file as a CSV body, gzip-encoded for a .gz; several in multipart requests
 * of up to BATCH_FILES) to POST /admin/import with a progress bar on stderr; without a service,
 * imports them straight into the database. Prints the summary of the files stored; the first bad
 * file stops the import (exit 2), the files before it staying stored.
 */
const importFiles = async (args: ReadonlyArray<string>, ticker: string | undefined) => {
  const token = process.env.ADMIN_TOKEN ?? fail(`ADMIN_TOKEN is not set\n\n${usage}`)
  const base = process.env.VIGIL_URL ?? `http://127.0.0.1:${process.env.PORT ?? "8080"}`
  let files: Array<string>
  try {
    files = importPaths(args)
  } catch (e) {
    return fail((e as Error).message)
  }
  const sizes = new Map(files.map((f) => [f, statSync(f).size]))
  const size = [...sizes.values()].reduce((a, b) => a + b, 0)
  let sent = 0
  const progress = (final = false) => {
    const pct = size === 0 ? 100 : Math.floor((sent / size) * 100)
    const bar = "#".repeat(Math.floor(pct / 4)).padEnd(25, ".")
    process.stderr.write(
      `\r[${bar}] ${pct}% ${(sent / 1e6).toFixed(1)}/${(size / 1e6).toFixed(1)} MB${final ? "\n" : ""}`
    )
  }
  const onBytes = (n: number) => {
    sent += n
    progress()
  }
  const reports: Array<Report> = []
  const print = (report: Report) => process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
  const groups = batches(files, sizes)
  for (const [k, group] of groups.entries()) {
    const single = files.length === 1
    const gzip = single && isGzipFile(group[0])
    const boundary = `vigil-${randomBytes(12).toString("hex")}`
    const query = new URLSearchParams({
      ...(ticker === undefined ? {} : { ticker }),
      ...(single ? { file: group[0] } : {})
    }).toString()
    let res: Response
    try {
      res = await fetch(`${base}/admin/import${query === "" ? "" : `?${query}`}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": single ? "text/csv" : `multipart/form-data; boundary=${boundary}`,
          ...(gzip ? { "content-encoding": "gzip" } : {})
        },
        body: single ? asBody(fileStream(group[0], onBytes)) : multipartBody(group, boundary, onBytes),
        duplex: "half"
      } as RequestInit)
    } catch (error) {
      if (k > 0) {
        print(merge(reports))
        return fail(
          `\nthe service at ${base} stopped answering: ${(error as Error).message}; the files above are stored`
        )
      }
      process.stderr.write(
        `\nno service at ${base}; importing straight into the database (applied at the next start)\n`
      )
      const { offlineImport } = await import("./offlineImport.js")
      const { Effect } = await import("effect")
      const result = await Effect.runPromise(Effect.either(offlineImport(files, ticker)))
      if (result._tag === "Left") return fail(`import failed: ${(result.left as Error).message}`)
      print(result.right.report)
      if (result.right.error !== undefined) return fail(`import failed: ${result.right.error}`)
      return
    }
    if (k === groups.length - 1) progress(true)
    const text = await res.text()
    if (!res.ok) {
      let message = text
      let stored: Report | undefined
      try {
        const parsed = JSON.parse(text)
        message = parsed.error?.message ?? text
        // a bad file after others: the error carries the summary of those stored
        stored = parsed.error?.stored
      } catch {}
      if (reports.length > 0 || (stored !== undefined && stored.files.length > 0)) {
        print(merge(stored === undefined ? reports : [...reports, stored]))
      }
      return fail(`\nimport failed (${res.status}): ${message}`)
    }
    reports.push(JSON.parse(text) as Report)
    if (groups.length > 1) {
      process.stderr.write(`\nstored ${reports.reduce((n, r) => n + r.files.length, 0)} of ${files.length} files\n`)
    }
  }
  print(merge(reports))
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
    case "create-user": {
      const body: Record<string, unknown> = { email: flags.email ?? fail(`--email is required\n\n${usage}`) }
      if (flags.password !== undefined) body.password = flags.password
      if (flags.account !== undefined) body.account_id = flags.account
      if (flags.plan !== undefined) body.plan = flags.plan
      return call("POST", "/admin/users", body)
    }
    case "refresh":
      return call("POST", "/admin/refresh")
    case "import": {
      if (positional.length === 0) fail(`a file is required\n\n${usage}`)
      return importFiles(positional, flags.ticker)
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
