/**
 * The chat channel's Slack-compatible message.
 */
import { describe, expect, it } from "@effect/vitest"
import { chatMessage, escapeSlack, formatPct, formatPrice } from "../../src/delivery/chat.js"

const row = (ticker: string, price: number | null, day_change_pct: number | null) => ({
  ticker,
  name: `${ticker} Inc.`,
  asset_type: "stock",
  price,
  day_change_pct,
  market_cap: 1e9
})

const base = { webhookName: "Momentum", q: "rsi_14 > 70", asOf: "2026-05-26T14:30:00Z", test: false }

describe("chatMessage", () => {
  it("summarizes the newly matching tickers", () => {
    const rows = [row("AAPL", 191.2, 0.0153), row("MSFT", 420, -0.002), row("BTC", 67012, 0.021)]
    expect(chatMessage({ ...base, matchCount: 3, rows })).toEqual({
      text:
        "🔔 Momentum: 3 tickers newly match `rsi_14 &gt; 70` — AAPL $191.20 (+1.53%), MSFT $420.00 (-0.20%), " +
        "BTC $67,012.00 (+2.10%)\nas of 2026-05-26T14:30:00Z"
    })
  })

  it("one ticker, missing figures, a test ping", () => {
    expect(chatMessage({ ...base, test: true, matchCount: 1, rows: [row("XYZ", null, null)] }).text).toBe(
      "🔔 Momentum (test): 1 ticker newly matches `rsi_14 &gt; 70` — XYZ\nas of 2026-05-26T14:30:00Z"
    )
    expect(chatMessage({ ...base, test: true, matchCount: 0, rows: [] }).text).toBe(
      "🔔 Momentum (test): no tickers newly match `rsi_14 &gt; 70`\nas of 2026-05-26T14:30:00Z"
    )
  })

  it("lists at most 10 tickers, then how many more (counted from match_count)", () => {
    const rows = Array.from({ length: 100 }, (_, i) => row(`T${i}`, 10 + i, 0.01))
    const { text } = chatMessage({ ...base, matchCount: 2500, rows })
    expect(text.startsWith("🔔 Momentum: 2500 tickers newly match `rsi_14 &gt; 70` — T0 $10.00 (+1.00%), ")).toBe(true)
    expect(text).toContain("T9 $19.00 (+1.00%), and 2490 more\n")
    expect(text).not.toContain("T10 ")
    expect(chatMessage({ ...base, matchCount: 12, rows: rows.slice(0, 12) }).text).toContain(", and 2 more")
  })

  it("escapes Slack control characters in the name, the query and tickers", () => {
    const { text } = chatMessage({
      ...base,
      webhookName: "<!channel> & <https://evil.example|click>",
      q: "price > 10 AND name < 'z' AND x = `y`",
      matchCount: 1,
      rows: [row("A<B>", 1, 0)]
    })
    expect(text).toBe(
      "🔔 &lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;: 1 ticker newly matches " +
        "`price &gt; 10 AND name &lt; 'z' AND x = 'y'` — A&lt;B&gt; $1.00 (0.00%)\nas of 2026-05-26T14:30:00Z"
    )
    expect(text).not.toMatch(/[<>]/)
    expect(escapeSlack("a&b<c>d")).toBe("a&amp;b&lt;c&gt;d")
  })

  it("formats prices and fractions", () => {
    expect(formatPct(0.0153)).toBe("+1.53%")
    expect(formatPct(-0.1234)).toBe("-12.34%")
    expect(formatPct(0)).toBe("0.00%")
    expect(formatPct(-0.00001)).toBe("0.00%")
    expect(formatPct(1.5)).toBe("+150.00%")
    expect(formatPrice(191.2)).toBe("$191.20")
    expect(formatPrice(1234567.891)).toBe("$1,234,567.89")
    expect(formatPrice(0.000123456)).toBe("$0.0001235")
    expect(formatPrice(0.5)).toBe("$0.5")
    expect(formatPrice(0)).toBe("$0.00")
  })
})
