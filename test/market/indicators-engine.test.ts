/**
 * The incremental engine with the standard periods: values against numbers
 * computed independently (a separate Python implementation, and the RSI table
 * published by StockCharts), the null rules, and the preview/commit contract.
 */
import { describe, expect, it } from "vitest"
import {
  allocateColumns,
  bindColumns,
  CRYPTO_DAILY,
  checkpoint,
  commit,
  commitAll,
  commitDeferred,
  type DailyBar,
  type DailyState,
  EQUITY_DAILY,
  epochDay,
  finishCommits,
  makeState,
  NO_INPUTS,
  preview,
  previewAll,
  previewValues,
  restore,
  SC_COUNT,
  type TickerInputs,
  yearOfDay
} from "../../src/market/indicators/index.js"
import type { NumericColumn } from "../../src/market/snapshot.js"
import { syntheticBars } from "./indicators-fixtures.js"

const DAY0 = epochDay("2021-01-04")

/** The Python reference series: close = 50 + 5 sin(t/2) + 0.3 t, open = previous close + 0.1 cos t, ... */
const pythonBars = (): Array<DailyBar> =>
  Array.from({ length: 40 }, (_, t) => {
    const close = 50 + 5 * Math.sin(0.5 * t) + 0.3 * t
    const open = t === 0 ? 50 : 50 + 5 * Math.sin(0.5 * (t - 1)) + 0.3 * (t - 1) + 0.1 * Math.cos(t)
    return {
      day: DAY0 + t,
      open,
      high: Math.max(open, close) + 0.5 + 0.2 * Math.sin(t) ** 2,
      low: Math.min(open, close) - 0.4,
      close,
      volume: 1000 + 100 * (t % 7)
    }
  })

// Computed by an independent Python implementation of the textbook definitions.
const PYTHON: Record<string, number> = {
  "sma_10@9": 52.29108262417151,
  "sma_20@39": 58.057348046750064,
  "ema_10@9": 52.29108262417151,
  "ema_10@39": 59.803247193375896,
  "ema_20@39": 58.409188098427855,
  "rsi_14@14": 65.8343023310139,
  "rsi_14@39": 66.44464329206151,
  "atr_14@14": 2.6953291121624674,
  "atr_14@39": 2.6897701903444022,
  "plus_di_14@20": 30.82647545564761,
  "minus_di_14@20": 28.55000946095657,
  "adx_14@27": 20.98430310192909,
  "adx_14@39": 19.254452873536525,
  "macd_line@25": 0.8593189768460547,
  "macd_signal@33": 1.9116595429830658,
  "macd_signal@39": 1.464511558681533,
  "stoch_k@13": 83.75565314319017,
  "stoch_k@39": 93.47549246051607,
  "stoch_d@15": 90.8810974357303,
  "stoch_d@39": 78.1505918601347,
  "bb_upper@19": 61.23185924392028,
  "bb_lower@39": 49.99054807779147,
  "volatility_20d@20": 0.5448646484497873,
  "volatility_20d@39": 0.4978762847443242,
  "obv@39": 5100,
  "avg_volume_10d@10": 1240,
  "avg_volume_20d@39": 1295,
  "return_1m@39": 0.12647114510212698
}

/** Rows of every day: preview on the state before the day, then commit it. */
const rowsOf = (bars: ReadonlyArray<DailyBar>, config = EQUITY_DAILY) => {
  const st = makeState(config)
  return bars.map((bar) => {
    const row = previewValues(st, bar)
    commit(st, bar)
    return row
  })
}

describe("incremental indicators against independent values", () => {
  it("matches the Python reference at the first valid day and later", () => {
    const rows = rowsOf(pythonBars())
    for (const [key, expected] of Object.entries(PYTHON)) {
      const [name, at] = key.split("@")
      const value = rows[Number(at)][name]
      expect(typeof value, key).toBe("number")
      expect(Math.abs((value as number) - expected), key).toBeLessThan(1e-9 * Math.max(1, Math.abs(expected)))
    }
  })

  it("gives null exactly one day before each first valid day", () => {
    const rows = rowsOf(pythonBars())
    const firsts: Record<string, number> = {
      sma_10: 9,
      sma_20: 19,
      ema_10: 9,
      rsi_14: 14,
      atr_14: 14,
      plus_di_14: 14,
      adx_14: 27,
      ema_12: 11,
      ema_26: 25,
      macd_line: 25,
      macd_signal: 33,
      macd_bullish_cross: 34,
      stoch_k: 13,
      stoch_d: 15,
      williams_r_14: 13,
      bb_upper: 19,
      volatility_20d: 20,
      avg_volume_10d: 10,
      avg_volume_30d: 30,
      avg_dollar_volume_30d: 30,
      return_1w: 5,
      return_1m: 21,
      prev_close: 1,
      gap_pct: 1,
      obv: 0
    }
    for (const [name, first] of Object.entries(firsts)) {
      if (first > 0) expect(rows[first - 1][name], `${name}@${first - 1}`).toBeNull()
      expect(rows[first][name], `${name}@${first}`).not.toBeNull()
    }
    // longer windows than the history
    for (const name of ["sma_50", "sma_200", "ema_200", "high_52w", "return_1y", "volatility_60d", "golden_cross"]) {
      expect(rows[39][name], name).toBeNull()
    }
  })

  it("reproduces StockCharts' published RSI-14 table", () => {
    const closes = [
      44.3389, 44.0902, 44.1497, 43.6124, 44.3278, 44.8264, 45.0955, 45.4245, 45.8433, 46.0826, 45.8931, 46.0328,
      45.614, 46.282, 46.282, 46.0028, 46.0328, 46.4116, 46.2222, 45.6439, 46.2122, 46.2521, 45.7137, 46.4515, 45.7835,
      45.3548, 44.0288, 44.1783, 44.2181, 44.5672, 43.4205, 42.6628, 43.1314
    ]
    const published = [
      70.53, 66.32, 66.55, 69.41, 66.36, 57.97, 62.93, 63.26, 56.06, 62.38, 54.71, 50.42, 39.99, 41.46, 41.87, 45.46,
      37.3, 33.08, 37.77
    ]
    const rows = rowsOf(closes.map((c, t) => ({ day: DAY0 + t, open: c, high: c, low: c, close: c, volume: 1 })))
    expect(rows.slice(14).map((r) => Math.round((r.rsi_14 as number) * 100) / 100)).toEqual(published)
    expect(rows[13].rsi_14).toBeNull()
  })

  it("computes the day columns by hand", () => {
    const st = makeState(EQUITY_DAILY)
    commit(st, { day: DAY0, open: 98, high: 101, low: 97, close: 100, volume: 1_000 })
    const row = previewValues(st, { day: DAY0 + 1, open: 103, high: 106, low: 99, close: 104, volume: 500 })
    expect(row.prev_close).toBe(100)
    expect(row.day_change).toBe(4)
    expect(row.day_change_pct).toBeCloseTo(0.04, 15)
    expect(row.gap_pct).toBeCloseTo(0.03, 15)
    expect(row.gap_up).toBe(true)
    expect(row.gap_down).toBe(false)
    expect(row.change_from_open_pct).toBeCloseTo(1 / 103, 15)
    expect(row.day_range_pct).toBeCloseTo(0.07, 15)
    expect(row.inside_day).toBe(false)
    expect(row.day_vwap).toBeCloseTo((106 + 99 + 104) / 3, 12)
    expect(row.above_vwap).toBe(true)
    expect(row.dollar_volume).toBe(52_000)
    expect(row.obv).toBe(500)
    expect(row.consecutive_up_days).toBe(1)
    expect(row.consecutive_down_days).toBe(0)
    expect(row.return_ytd).toBeNull()
    const withVwap = previewValues(st, {
      day: DAY0 + 1,
      open: 103,
      high: 106,
      low: 99,
      close: 104,
      volume: 500,
      vwap: 105
    })
    expect(withVwap.day_vwap).toBe(105)
    expect(withVwap.pct_from_vwap).toBeCloseTo(104 / 105 - 1, 15)
    expect(withVwap.above_vwap).toBe(false)
  })

  it("counts streaks, relative volume and its alerts", () => {
    const st = makeState(EQUITY_DAILY)
    // 20 days of volume 1000, closes rising 100, 101, ...
    for (let t = 0; t < 20; t++) {
      commit(st, { day: DAY0 + t, open: 100 + t, high: 101 + t, low: 99 + t, close: 100 + t, volume: 1000 })
    }
    const up = previewValues(st, { day: DAY0 + 20, open: 119, high: 125, low: 118, close: 124, volume: 3500 })
    expect(up.consecutive_up_days).toBe(20)
    expect(up.avg_volume_10d).toBe(1000)
    expect(up.avg_volume_20d).toBe(1000)
    expect(up.relative_volume).toBe(3.5)
    expect(up.volume_ratio_20d).toBe(3.5)
    expect(up.unusual_volume).toBe(true)
    expect(up.high_volume_alert).toBe(true)
    const quiet = previewValues(st, { day: DAY0 + 20, open: 119, high: 120, low: 110, close: 111, volume: 2500 })
    expect(quiet.consecutive_up_days).toBe(0)
    expect(quiet.consecutive_down_days).toBe(1)
    expect(quiet.unusual_volume).toBe(true)
    expect(quiet.high_volume_alert).toBe(false)
    // avg_volume_30d needs 30 completed days
    expect(quiet.avg_volume_30d).toBeNull()
  })

  it("detects a golden cross on the day SMA-50 crosses above SMA-200, and a death cross", () => {
    // 230 days falling from 200 then sharply rising: SMA-50 overtakes SMA-200 on exactly one day
    const closes = [
      ...Array.from({ length: 230 }, (_, t) => 200 - t * 0.4),
      ...Array.from({ length: 120 }, (_, t) => 108 + t * 2)
    ]
    const bars = closes.map((c, t) => ({ day: DAY0 + t, open: c, high: c + 1, low: c - 1, close: c, volume: 100 }))
    const rows = rowsOf(bars)
    const sma = (n: number, t: number) => closes.slice(t - n + 1, t + 1).reduce((a, b) => a + b, 0) / n
    const crossDays = rows.flatMap((r, t) => (r.golden_cross === true ? [t] : []))
    expect(crossDays.length).toBe(1)
    const t = crossDays[0]
    expect(sma(50, t)).toBeGreaterThan(sma(200, t))
    expect(sma(50, t - 1)).toBeLessThanOrEqual(sma(200, t - 1))
    expect(rows[t].sma_50_above_sma_200).toBe(true)
    expect(rows[t - 1].sma_50_above_sma_200).toBe(false)
    expect(rows.some((r) => r.death_cross === true)).toBe(false)
    expect(rows[198].golden_cross).toBeNull()
    expect(rows[199].golden_cross).toBeNull() // first SMA-200 day: no previous SMA-200 yet
    expect(rows[200].golden_cross).toBe(false)
    const falling = rowsOf(
      bars.map((b) => ({ ...b, open: 400 - b.close, high: 401 - b.close, low: 399 - b.close, close: 400 - b.close }))
    )
    expect(falling.flatMap((r, i) => (r.death_cross === true ? [i] : []))).toEqual([t])
  })

  it("uses 365-day windows and sqrt(365) for crypto", () => {
    const bars = syntheticBars(400, DAY0, 7)
    const equity = rowsOf(bars, EQUITY_DAILY)
    const crypto = rowsOf(bars, CRYPTO_DAILY)
    expect(equity[251].high_52w).not.toBeNull()
    expect(crypto[251].high_52w).toBeNull()
    expect(crypto[363].high_52w).toBeNull()
    expect(crypto[364].high_52w).toBe(Math.max(...bars.slice(0, 365).map((b) => b.high)))
    expect(crypto[364].low_52w).toBe(Math.min(...bars.slice(0, 365).map((b) => b.low)))
    expect(crypto[399].return_1y).toBeCloseTo(bars[399].close / bars[34].close - 1, 12)
    expect(crypto[399].return_1w).toBeCloseTo(bars[399].close / bars[392].close - 1, 12)
    expect(equity[399].return_1w).toBeCloseTo(bars[399].close / bars[394].close - 1, 12)
    const ratio = (crypto[399].volatility_20d as number) / (equity[399].volatility_20d as number)
    expect(ratio).toBeCloseTo(Math.sqrt(365 / 252), 12)
  })

  it("measures YTD from the last close of the previous calendar year", () => {
    const st = makeState(EQUITY_DAILY)
    const dec30 = epochDay("2020-12-30")
    commit(st, { day: dec30, open: 10, high: 10, low: 10, close: 10, volume: 1 })
    commit(st, { day: dec30 + 1, open: 20, high: 20, low: 20, close: 20, volume: 1 })
    const jan4 = epochDay("2021-01-04")
    expect(yearOfDay(jan4)).toBe(2021)
    expect(previewValues(st, { day: jan4, open: 22, high: 22, low: 22, close: 22, volume: 1 }).return_ytd).toBeCloseTo(
      0.1,
      15
    )
    commit(st, { day: jan4, open: 22, high: 22, low: 22, close: 22, volume: 1 })
    expect(
      previewValues(st, { day: jan4 + 1, open: 25, high: 25, low: 25, close: 25, volume: 1 }).return_ytd
    ).toBeCloseTo(0.25, 15)
    // a ticker listed this year has no YTD base
    const fresh = makeState(EQUITY_DAILY)
    commit(fresh, { day: jan4, open: 22, high: 22, low: 22, close: 22, volume: 1 })
    expect(
      previewValues(fresh, { day: jan4 + 1, open: 25, high: 25, low: 25, close: 25, volume: 1 }).return_ytd
    ).toBeNull()
  })
})

describe("the preview / commit contract", () => {
  it("writes nulls as mask 0 with value 0, never NaN, for short histories", () => {
    const columns = allocateColumns(3)
    const sink = bindColumns(columns)
    const st = makeState(EQUITY_DAILY)
    columns.get("rsi_14")!.values.fill(7) // stale values must be overwritten
    for (const [row, bar] of syntheticBars(3, DAY0).entries()) {
      preview(st, bar, NO_INPUTS, sink, row)
      commit(st, bar)
    }
    for (const [name, column] of columns) {
      for (let i = 0; i < 3; i++) {
        expect(Number.isNaN(column.values[i]), name).toBe(false)
        if (column.valid[i] === 0) expect(column.values[i], `${name}[${i}]`).toBe(0)
      }
    }
    const rsi = columns.get("rsi_14") as NumericColumn
    expect([...rsi.valid]).toEqual([0, 0, 0])
    expect([...rsi.values]).toEqual([0, 0, 0])
    expect(columns.get("price")!.valid[0]).toBe(1)
    expect(columns.get("prev_close")!.valid[0]).toBe(0)
    expect(columns.get("prev_close")!.valid[1]).toBe(1)
  })

  it("writes the same values through the sink as previewValues reports", () => {
    const bars = syntheticBars(300, DAY0, 3)
    const st = commitAll(makeState(EQUITY_DAILY), bars.slice(0, 299))
    const columns = allocateColumns(5)
    preview(st, bars[299], NO_INPUTS, bindColumns(columns), 4)
    const row = previewValues(st, bars[299])
    for (const [name, column] of columns) {
      const value = row[name]
      expect(column.valid[4], name).toBe(value === null ? 0 : 1)
      expect(column.values[4], name).toBe(value === null ? 0 : Number(value))
      expect(column.valid[3], name).toBe(0)
    }
  })

  it("writes identically through packed columns and through separately allocated ones", () => {
    const bars = syntheticBars(260, DAY0, 9)
    const st = commitAll(makeState(EQUITY_DAILY), bars.slice(0, 259))
    const packed = allocateColumns(2)
    const separate = new Map(
      [...packed].map(([name, c]) => [
        name,
        c.kind === "numeric"
          ? { kind: "numeric" as const, values: new Float64Array(2), valid: new Uint8Array(2) }
          : { kind: "boolean" as const, values: new Uint8Array(2), valid: new Uint8Array(2) }
      ])
    )
    expect(bindColumns(packed).packed).not.toBeNull()
    expect(bindColumns(separate).packed).toBeNull()
    preview(st, bars[259], NO_INPUTS, bindColumns(packed), 1)
    preview(st, bars[259], NO_INPUTS, bindColumns(separate), 1)
    for (const [name, column] of packed) {
      expect([...column.values], name).toEqual([...separate.get(name)!.values])
      expect([...column.valid], name).toEqual([...separate.get(name)!.valid])
    }
    expect(() => bindColumns(new Map([["rsi_14", separate.get("golden_cross")!]]))).toThrow(TypeError)
  })

  it("previews a whole snapshot in one call, leaving rows without state or bar null", () => {
    const bars = syntheticBars(30, DAY0, 13)
    const a = commitAll(makeState(EQUITY_DAILY), bars.slice(0, 29))
    const b = commitAll(makeState(EQUITY_DAILY), bars.slice(0, 20))
    const columns = allocateColumns(4)
    previewAll([a, undefined, b, a], [bars[29], bars[29], bars[20], undefined], [], bindColumns(columns))
    const price = columns.get("price")!
    expect([...price.valid]).toEqual([1, 0, 1, 0])
    expect([...price.values]).toEqual([bars[29].close, 0, bars[20].close, 0])
    expect(columns.get("sma_20")!.values[0]).toBeCloseTo(previewValues(a, bars[29]).sma_20 as number, 12)
  })

  it("does not mutate the committed state in preview", () => {
    const bars = syntheticBars(260, DAY0, 5)
    const st = commitAll(makeState(EQUITY_DAILY), bars.slice(0, 259))
    const before = JSON.stringify(checkpoint(st))
    const sink = bindColumns(allocateColumns(1))
    for (let i = 0; i < 5; i++)
      preview(st, { ...bars[259], close: bars[259].close * (1 + i / 100) }, NO_INPUTS, sink, 0)
    expect(JSON.stringify(checkpoint(st))).toBe(before)
  })

  it("rejects out-of-order days and malformed bars without changing the state", () => {
    const st = makeState(EQUITY_DAILY)
    commit(st, { day: DAY0, open: 1, high: 1, low: 1, close: 1, volume: 1 })
    const before = JSON.stringify(checkpoint(st))
    expect(() => commit(st, { day: DAY0, open: 1, high: 1, low: 1, close: 1, volume: 1 })).toThrow(RangeError)
    expect(() => commit(st, { day: DAY0 + 1, open: 1, high: 1, low: 1, close: Number.NaN, volume: 1 })).toThrow(
      RangeError
    )
    expect(() => commit(st, { day: DAY0 + 1, open: 1, high: 1, low: 0, close: 1, volume: 1 })).toThrow(RangeError)
    expect(() => commit(st, { day: DAY0 + 1.5, open: 1, high: 1, low: 1, close: 1, volume: 1 })).toThrow(RangeError)
    expect(JSON.stringify(checkpoint(st))).toBe(before)
    expect(() => makeState({ ...EQUITY_DAILY, yearDays: 100 })).toThrow(RangeError)
  })

  it("fills every computed column on a long history with full inputs", () => {
    const bars = syntheticBars(300, epochDay("2020-06-01"), 11)
    const st = commitAll(makeState(EQUITY_DAILY), bars.slice(0, 299))
    const row = previewValues(st, bars[299], {
      sharesOutstanding: 1e9,
      eps: 5,
      forwardEps: 6,
      bookValuePerShare: 20,
      salesPerShare: 30,
      dividendPerShare: 1,
      beta: 1.1,
      sharesShort: 2e7,
      institutionalOwnership: 0.6,
      insiderOwnership: 0.05,
      analystTargetPrice: 150,
      earningsDay: bars[299].day + 2,
      newsVolume: 3,
      newsSentiment: 0.1
    })
    const missing = Object.entries(row).filter(([, v]) => v === null)
    expect(missing).toEqual([])
  })
})

describe("a full-size snapshot", () => {
  // speed is measured by bench/indicators.ts, not asserted here
  it("previews every column of 13,047 restored tickers, updated in place as a feed would, into one snapshot", () => {
    const tickers = 13_047
    const history = 300
    const distinct = 64
    const start = epochDay("2020-01-01")
    const histories = Array.from({ length: distinct }, (_, i) => syntheticBars(history + 1, start, i + 1))
    const checkpoints = histories.map((bars) => checkpoint(commitAll(makeState(EQUITY_DAILY), bars.slice(0, history))))
    const states: Array<DailyState> = Array.from({ length: tickers }, (_, i) => restore(checkpoints[i % distinct]))
    const today: Array<DailyBar> = states.map((_, i) => histories[i % distinct][history])
    const inputs: Array<TickerInputs> = states.map((_, i) => ({
      ...NO_INPUTS,
      sharesOutstanding: 1e6 * (1 + (i % 5000)),
      eps: (i % 7) - 2,
      earningsDay: start + history + (i % 10)
    }))
    const partial = today.map((b) => ({ ...b }))
    const columns = allocateColumns(tickers)
    const sink = bindColumns(columns)
    for (let tick = 0; tick < 3; tick++) {
      for (let i = 0; i < tickers; i++) {
        const bar = partial[i]
        bar.close = today[i].close * (1 + ((tick + i) % 11) / 1000)
        bar.high = Math.max(bar.high, bar.close)
        bar.low = Math.min(bar.low, bar.close)
        bar.volume = today[i].volume * (0.5 + tick / 40)
      }
      previewAll(states, partial, inputs, sink)
    }
    expect(columns.get("rsi_14")!.valid.every((v) => v === 1)).toBe(true)
    expect(columns.get("market_cap")!.valid.every((v) => v === 1)).toBe(true)
    expect(columns.get("high_52w")!.valid.every((v) => v === 1)).toBe(true)
    // rows of the same history and tick agree with a single preview
    const i = 12_345
    expect(columns.get("sma_50")!.values[i]).toBe(previewValues(states[i], partial[i], inputs[i]).sma_50)
  })
})

describe("deferred commits (the market's load)", () => {
  const sameBits = (a: Float64Array, b: Float64Array) => {
    expect(a.length).toBe(b.length)
    for (let k = 0; k < a.length; k++) if (!Object.is(a[k], b[k])) expect([k, a[k]]).toEqual([k, b[k]])
  }

  it.each([
    ["equity", EQUITY_DAILY],
    ["crypto", CRYPTO_DAILY]
  ] as const)(
    "leave the %s state bit for bit as commit does, the recursive scalars current after every bar",
    (_, config) => {
      const bars = syntheticBars(700, DAY0, 7)
      const eager = makeState(config)
      const deferred = makeState(config)
      for (const bar of bars) {
        commit(eager, bar)
        commitDeferred(deferred, bar)
        sameBits(deferred.hot.subarray(0, SC_COUNT), eager.hot.subarray(0, SC_COUNT))
      }
      finishCommits(deferred)
      sameBits(deferred.hot, eager.hot)
      expect(deferred.count).toBe(eager.count)
      const today = { ...bars[bars.length - 1], day: bars[bars.length - 1].day + 1 }
      expect(previewValues(deferred, today)).toEqual(previewValues(eager, today))
    }
  )

  it("leaves a state with no bars as it was", () => {
    const st = makeState(EQUITY_DAILY)
    const before = st.hot.slice()
    finishCommits(st)
    sameBits(st.hot, before)
  })

  it("yearOfDay agrees with the calendar in any order of days", () => {
    const calendar = (day: number) => new Date(day * 86_400_000).getUTCFullYear()
    for (let day = -50_000; day < 50_000; day++) {
      if (yearOfDay(day) !== calendar(day)) expect([day, yearOfDay(day)]).toEqual([day, calendar(day)])
    }
    let s = 1
    for (let k = 0; k < 20_000; k++) {
      s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0
      const day = (s % 200_000) - 100_000
      if (yearOfDay(day) !== calendar(day)) expect(yearOfDay(day)).toBe(calendar(day))
    }
  })
})
