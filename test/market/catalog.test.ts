import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { renderSignalsDoc, SIGNALS_DOC_PATH } from "../../scripts/gen-signals-doc.js"
import {
  builtinSignalEntry,
  CATALOG,
  type ColumnType,
  columnByName,
  columnGroup,
  FLAGS,
  isAvailableAt,
  MINUTE_TIER,
  SIGNALS,
  THRESHOLDS
} from "../../src/market/catalog.js"
import { COMPUTED_COLUMN_NAMES } from "../../src/market/indicators/index.js"

const SPEC_COLUMNS: ReadonlyArray<readonly [string, ColumnType]> = [
  ["ticker", "string"],
  ["name", "string"],
  ["asset_type", "string"],
  ["exchange", "string"],
  ["country", "string"],
  ["sector", "string"],
  ["industry", "string"],
  ["market_cap", "numeric"],
  ["price", "numeric"],
  ["day_change_pct", "numeric"],
  ["gap_pct", "numeric"],
  ["volume_today", "numeric"],
  ["avg_volume_10d", "numeric"],
  ["shares_outstanding", "numeric"],
  ["relative_volume", "numeric"],
  ["pe_ratio", "numeric"],
  ["eps", "numeric"],
  ["high_52w", "numeric"],
  ["low_52w", "numeric"],
  ["rsi_14", "numeric"],
  ["above_sma_50", "boolean"],
  ["above_sma_200", "boolean"],
  ["golden_cross", "boolean"],
  ["earnings_this_week", "boolean"],
  ["at_52w_high", "boolean"],
  ["gap_up", "boolean"],
  ["small_cap", "boolean"],
  ["high_volume_alert", "boolean"],
  ["volume_ratio_20d", "numeric"],
  ["macd_line", "numeric"],
  ["forward_pe", "numeric"],
  ["short_interest", "numeric"],
  ["news_volume", "numeric"],
  ["news_volume_weighted_sentiment", "numeric"],
  ["day_vwap", "numeric"],
  ["pct_from_sma_50", "numeric"],
  ["pct_from_sma_200", "numeric"],
  ["pct_from_vwap", "numeric"],
  ["pct_from_52w_high", "numeric"],
  ["pct_from_52w_low", "numeric"],
  ["range_position_52w", "numeric"]
]

const MINUTE_TIER_NAMES = [
  "price",
  "day_change_pct",
  "gap_pct",
  "volume_today",
  "day_vwap",
  "relative_volume",
  "pct_from_52w_high",
  "pct_from_52w_low",
  "range_position_52w",
  "pct_from_sma_50",
  "pct_from_sma_200",
  "pct_from_vwap"
]

const STRING_COLUMNS = ["ticker", "name", "asset_type", "exchange", "country", "sector", "industry"]

describe("column catalog", () => {
  it("holds at least the spec's 119 built-in signals, all boolean or numeric", () => {
    expect(SIGNALS.length).toBeGreaterThanOrEqual(119)
    expect(SIGNALS.length).toBe(130)
    expect(SIGNALS.every((c) => c.type === "boolean" || c.type === "numeric")).toBe(true)
    expect(FLAGS.length).toBe(37)
    expect(SIGNALS.length + STRING_COLUMNS.length).toBe(CATALOG.length)
  })

  it("has unique lowercase snake_case names usable as custom-signal-free identifiers", () => {
    const names = CATALOG.map((c) => c.name)
    expect(new Set(names).size).toBe(names.length)
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9_]{0,63}$/)
    expect(columnByName.size).toBe(CATALOG.length)
  })

  it("contains every column the spec names, with the spec's type", () => {
    for (const [name, type] of SPEC_COLUMNS) {
      expect(columnByName.get(name)?.type, name).toBe(type)
    }
  })

  it("keeps the seven identity columns as static string non-signals", () => {
    const strings = CATALOG.filter((c) => c.type === "string")
    expect(strings.map((c) => c.name)).toEqual(STRING_COLUMNS)
    for (const c of strings) {
      expect(c.signal).toBe(false)
      expect(c.source).toBe("ticker")
    }
  })

  it("marks exactly the spec's minute-tier columns", () => {
    expect(MINUTE_TIER.map((c) => c.name).sort()).toEqual([...MINUTE_TIER_NAMES].sort())
    const rsi = columnByName.get("rsi_14")!
    expect(isAvailableAt(rsi, "1m")).toBe(false)
    expect(isAvailableAt(rsi, "1h")).toBe(false)
    expect(isAvailableAt(rsi, "1d")).toBe(true)
    expect(isAvailableAt(rsi, "1w")).toBe(true)
    expect(isAvailableAt(columnByName.get("pct_from_vwap")!, "1m")).toBe(true)
  })

  it("flags the forward-only vendor fields and sources fundamentals from the ticker", () => {
    const vendor = CATALOG.filter((c) => c.vendor === true).map((c) => c.name)
    expect(vendor).toEqual(expect.arrayContaining(["forward_pe", "short_interest"]))
    for (const name of vendor) expect(columnByName.get(name)!.source).toBe("ticker")
    for (const name of ["market_cap", "pe_ratio", "eps", "shares_outstanding", "dividend_yield", "beta", "small_cap"]) {
      expect(columnByName.get(name)!.source, name).toBe("ticker")
    }
    for (const name of ["price", "rsi_14", "sma_200", "golden_cross", "news_volume"]) {
      expect(columnByName.get(name)!.source, name).toBe("state")
    }
  })

  it("covers the indicator families traders expect", () => {
    const expected = [
      ...[10, 20, 50, 100, 200].flatMap((n) => [`sma_${n}`, `ema_${n}`, `above_sma_${n}`, `pct_from_sma_${n}`]),
      ...["macd_line", "macd_signal", "macd_histogram", "atr_14", "atr_pct"],
      ...["bb_upper", "bb_lower", "bb_width", "bb_percent_b", "stoch_k", "stoch_d", "adx_14", "plus_di_14"],
      ...["minus_di_14", "obv", "return_1w", "return_1m", "return_3m", "return_6m", "return_1y", "return_ytd"],
      ...["volatility_20d", "volatility_60d", "dollar_volume", "avg_dollar_volume_30d", "death_cross"],
      ...["new_52w_high", "new_52w_low", "at_52w_low", "above_vwap", "gap_down", "unusual_volume"],
      ...["mid_cap", "large_cap", "mega_cap", "rsi_overbought", "rsi_oversold", "macd_bullish_cross"],
      ...["macd_bearish_cross", "bb_breakout_up", "bb_breakout_down", "dividend_yield", "price_to_book"],
      ...["price_to_sales", "beta"]
    ]
    for (const name of expected) expect(columnByName.has(name), name).toBe(true)
  })

  it("gives every column a real one-line description and a known unit", () => {
    const units = new Set(["USD", "fraction", "shares", "count", "ratio", "index", "days", ""])
    for (const c of CATALOG) {
      expect(c.description.length, c.name).toBeGreaterThan(10)
      expect(c.description, c.name).not.toMatch(/\n|TODO|TBD/)
      expect(units.has(c.unit), `${c.name}: ${c.unit}`).toBe(true)
      if (c.type === "boolean") expect(c.unit).toBe("")
    }
    expect(columnByName.get("gap_up")!.description).toContain(String(THRESHOLDS.gapPct))
    expect(columnByName.get("rsi_14")!.description).toMatch(/Wilder/)
  })

  it("puts every column in the group a person reads it in, each group in one run of the catalog", () => {
    expect(CATALOG.every((c) => columnGroup.has(c.name))).toBe(true)
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["ticker", "identity"],
      ["sector", "identity"],
      ["price", "price"],
      ["gap_up", "price"],
      ["high_52w", "price"],
      ["volume_today", "volume"],
      ["relative_volume", "volume"],
      ["sma_50", "trend"],
      ["golden_cross", "trend"],
      ["rsi_14", "momentum"],
      ["macd_line", "momentum"],
      ["return_1y", "momentum"],
      ["atr_14", "volatility"],
      ["bb_width", "volatility"],
      ["market_cap", "fundamentals"],
      ["pe_ratio", "fundamentals"],
      ["news_volume", "news"]
    ]
    for (const [name, group] of cases) expect([name, columnGroup.get(name)]).toEqual([name, group])
    const groups = new Set(columnGroup.values())
    expect([...groups].sort()).toEqual(
      ["fundamentals", "identity", "momentum", "news", "price", "trend", "volatility", "volume"].sort()
    )
  })

  it("lists built-ins in the GET /v2/signals shape", () => {
    expect(builtinSignalEntry(columnByName.get("golden_cross")!)).toEqual({
      name: "golden_cross",
      kind: "builtin",
      type: "boolean",
      source: "state"
    })
  })

  it("is exactly the set of columns the indicator engine computes (plus the strings)", () => {
    expect([...COMPUTED_COLUMN_NAMES].sort()).toEqual(SIGNALS.map((c) => c.name).sort())
  })

  it("has docs/signals.md equal to the text generated from the catalog", () => {
    const committed = readFileSync(SIGNALS_DOC_PATH, "utf8")
    expect(committed).toBe(renderSignalsDoc())
    for (const c of CATALOG) expect(committed).toContain(`| \`${c.name}\` |`)
  })
})
