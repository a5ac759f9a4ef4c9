/**
 * Where the service's log lines go: standard output, as JSON lines
 * (`Logger.jsonLogger`), written in batches. A `console.log` per request line
 * cost ~15% of a small request's CPU (a synchronous write each when stdout is
 * a file), and a write per event-loop turn still a tenth or more of a cached
 * read's (bench:api, ticker read: 36–47% of bare with a write per turn,
 * 48.5–48.9% with one per 10 ms). Lines still queued when the process exits
 * are written on `exit`; a SIGKILL loses at most the last 10 ms of lines.
 */
import { HashMap, Logger } from "effect"

/** Lines wait at most this long before they are written. */
const FLUSH_AFTER_MS = 10

let queued: Array<string> = []
let scheduled = false
let write = (text: string): void => {
  process.stdout.write(text)
}

/**
 * Sends the lines elsewhere from now on (lines still queued go there too): a test running the
 * service in its own process reads them as a test of a child process reads its output.
 */
export const setLogDestination = (destination: (text: string) => void): void => {
  write = destination
}

const flush = () => {
  scheduled = false
  if (queued.length === 0) return
  const text = queued.join("")
  queued = []
  write(text)
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

/** Effect's JSON logger writing to the batched sink. */
export const jsonLines = Logger.map(Logger.jsonLogger, (line) => writeLogLine(line))

/** The JSON logger on the batched sink, in place of Effect's default logger. */
export const jsonLinesLogger = Logger.replace(Logger.defaultLogger, jsonLines)

/**
 * Builds, for a fixed list of annotation keys, the line `Logger.jsonLogger` writes for an info
 * message with those annotations (strings and numbers), no cause, no span, no fiber — the same
 * bytes (test/observability/logSink.test.ts), made with a few string concatenations. The hot
 * lane writes one per request, and through the logger (an Effect `HashMap` of the annotations,
 * then `JSON.stringify` with a replacer) it cost ~10% of a cached read's CPU. Annotations appear
 * in the order Effect's `HashMap` iterates them, as the logger writes them.
 */
export const infoLineFormat = (keys: ReadonlyArray<string>) => {
  const order = [...HashMap.keys(HashMap.fromIterable(keys.map((k) => [k, 0] as const)))]
  const positions = order.map((k) => keys.indexOf(k))
  const names = order.map((k) => `${JSON.stringify(k)}:`)
  return (message: string, values: ReadonlyArray<string | number>, date: Date): string => {
    let annotations = ""
    for (let i = 0; i < names.length; i++) {
      annotations += `${i === 0 ? "" : ","}${names[i]}${JSON.stringify(values[positions[i]!])}`
    }
    return `{"message":${JSON.stringify(message)},"logLevel":"INFO","timestamp":"${date.toISOString()}","annotations":{${annotations}},"spans":{},"fiberId":""}`
  }
}
