/**
 * The request log line of a direct answer, as the API's request middleware
 * writes it (`Effect.logInfo("request")` with the same annotations, plus
 * `cache`), by the runtime's loggers and minimum level, without a fiber.
 */
import {
  Cause,
  type Clock,
  FiberId,
  FiberRef,
  FiberRefs,
  HashMap,
  HashSet,
  List,
  Logger,
  LogLevel,
  type Runtime
} from "effect"
import { infoLineFormat, jsonLines, writeLogLine } from "../../observability/logSink.js"
import { REQUEST_LOG_KEYS } from "../requestPolicy.js"

const KEYS = [...REQUEST_LOG_KEYS, "cache"] as const

/** Values in the order of the request line's keys, then whether the answer came from the cache. */
export type RequestLogValues = readonly [string, string, string, string, number, number, "hit" | "miss"]

export const makeRequestLog = (runtime: Runtime.Runtime<never>, clock: Clock.Clock) => {
  const loggers = FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentLoggers)
  const logs = !LogLevel.greaterThan(
    FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentMinimumLogLevel),
    LogLevel.Info
  )
  // with the service's logger (JSON lines on the batched sink) the line is made directly, the same
  // bytes (`infoLineFormat`); Effect's tracer logger beside it writes only into a current span, and
  // there is none. Any other logger (a test that captures logs) gets the general path
  const direct =
    HashSet.has(loggers, jsonLines) &&
    HashSet.every(loggers, (logger) => logger === jsonLines || logger === Logger.tracerLogger)
  const line = infoLineFormat(KEYS)
  return (values: RequestLogValues) => {
    if (!logs) return
    const date = new Date(clock.unsafeCurrentTimeMillis())
    if (direct) return writeLogLine(line("request", values, date))
    const options = {
      fiberId: FiberId.none,
      logLevel: LogLevel.Info,
      message: ["request"],
      cause: Cause.empty,
      context: runtime.fiberRefs,
      spans: List.empty(),
      annotations: HashMap.fromIterable(KEYS.map((k, i) => [k, values[i]] as const)),
      date
    }
    for (const logger of loggers) logger.log(options)
  }
}
