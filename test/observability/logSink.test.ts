/**
 * The direct path's request log line is built by hand (`infoLineFormat`): it must be the very line
 * Effect's JSON logger writes for the same message and annotations.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, FiberId, FiberRefs, HashMap, List, Logger, LogLevel } from "effect"
import { infoLineFormat } from "../../src/observability/logSink.js"

const KEYS = ["request_id", "method", "path", "route", "status", "duration_ms", "cache"]

const viaLogger = (values: ReadonlyArray<string | number>, date: Date) =>
  Logger.jsonLogger.log({
    fiberId: FiberId.none,
    logLevel: LogLevel.Info,
    message: ["request"],
    cause: Cause.empty,
    context: FiberRefs.empty(),
    spans: List.empty(),
    annotations: HashMap.fromIterable(KEYS.map((k, i) => [k, values[i]] as const)),
    date
  })

describe("infoLineFormat", () => {
  it("writes the bytes Effect's JSON logger writes, for any values", () => {
    const format = infoLineFormat(KEYS)
    const cases: Array<ReadonlyArray<string | number>> = [
      ["req_abc", "GET", "/v2/tickers/AAPL", "/v2/tickers/:ticker", 200, 0.123, "hit"],
      ["r", "POST", "/v2/scan", "/v2/scan", 200, 12, "hit"],
      ['quote " back \\ slash', "GET", "/v2/tickers/%E2%82%AC", "/v2/tickers/:ticker", 200, 1e-3, "hit"],
      ["ünïcode \u2028 line", "GET", "/x\n/y", "/v2/tickers/:ticker", 200, 123456.789, "hit"]
    ]
    for (const [k, values] of cases.entries()) {
      const date = new Date(Date.UTC(2026, 10, 25, 12, 0, k, 7))
      expect(format("request", values, date)).toBe(viaLogger(values, date))
    }
  })
})
