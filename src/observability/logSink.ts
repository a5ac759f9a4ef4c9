/**
 * Where the service's log lines go: standard output, as JSON lines
 * (`Logger.jsonLogger`), written in batches. A `console.log` per request line
 * cost ~15% of a small request's CPU (a synchronous write each when stdout is
 * a file), and a write per event-loop turn still a tenth or more of a cached
 * read's (bench:api, ticker read: 36–47% of bare with a write per turn,
 * 48.5–48.9% with one per 10 ms). Lines still queued when the process exits
 * are written on `exit`; a SIGKILL loses at most the last 10 ms of lines.
 */
import { Logger } from "effect"

/** Lines wait at most this long before they are written. */
const FLUSH_AFTER_MS = 10

let queued: Array<string> = []
let scheduled = false

const flush = () => {
  scheduled = false
  if (queued.length === 0) return
  const text = queued.join("")
  queued = []
  process.stdout.write(text)
}

let exitHooked = false

/** Queues one line (without its newline) for standard output. */
export const writeLogLine = (line: string): void => {
  queued.push(`${line}\n`)
  if (!scheduled) {
    scheduled = true
    setTimeout(flush, FLUSH_AFTER_MS)
  }
  if (!exitHooked) {
    exitHooked = true
    process.once("exit", flush)
  }
}

/** The JSON logger on the batched sink, in place of Effect's default logger. */
export const jsonLinesLogger = Logger.replace(
  Logger.defaultLogger,
  Logger.map(Logger.jsonLogger, (line) => writeLogLine(line))
)
