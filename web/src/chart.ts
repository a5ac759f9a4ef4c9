/**
 * The candlestick chart (TradingView's lightweight-charts 5, Apache-2.0; its attribution logo is
 * kept as its licence asks), loaded the first time a chart is drawn: the initial page stays small.
 */
import type { ChartBars } from "./api"

export interface Overlays {
  readonly sma50: boolean
  readonly sma200: boolean
  readonly ema20: boolean
}

const sma = (closes: ReadonlyArray<number>, n: number): Array<number | undefined> => {
  const out: Array<number | undefined> = new Array(closes.length)
  let sum = 0
  for (let i = 0; i < closes.length; i++) {
    sum += closes[i]!
    if (i >= n) sum -= closes[i - n]!
    out[i] = i >= n - 1 ? sum / n : undefined
  }
  return out
}

const ema = (closes: ReadonlyArray<number>, n: number): Array<number | undefined> => {
  const k = 2 / (n + 1)
  const out: Array<number | undefined> = new Array(closes.length)
  let value: number | undefined
  for (let i = 0; i < closes.length; i++) {
    value = value === undefined ? closes[i]! : closes[i]! * k + value * (1 - k)
    out[i] = i >= n - 1 ? value : undefined
  }
  return out
}

const dark = () => window.matchMedia?.("(prefers-color-scheme: dark)").matches === true

/** Draws `bars` into `container` (replacing what was there); answers how long the drawing took (ms) and a disposer. */
export const drawChart = async (
  container: HTMLElement,
  bars: ChartBars,
  overlays: Overlays,
  /** an alert's time (ISO), marked on the bar of its day */
  at?: string
): Promise<{ readonly ms: number; readonly dispose: () => void }> => {
  const lw = await import("lightweight-charts")
  const started = performance.now()
  container.replaceChildren()
  const fg = dark() ? "#e6e9ec" : "#14171a"
  const grid = dark() ? "#2a323b" : "#eef1f4"
  const chart = lw.createChart(container, {
    autoSize: true,
    layout: { background: { color: "transparent" }, textColor: fg, attributionLogo: true },
    grid: { vertLines: { color: grid }, horzLines: { color: grid } },
    // twenty years of daily bars fit the width when asked to (the default keeps half a pixel a bar)
    timeScale: { borderVisible: false, minBarSpacing: 0.05 },
    rightPriceScale: { borderVisible: false }
  })
  const time = (i: number) => bars.t[i] as import("lightweight-charts").UTCTimestamp
  const candles = chart.addSeries(lw.CandlestickSeries, {
    upColor: "#1a7f37",
    downColor: "#cf222e",
    wickUpColor: "#1a7f37",
    wickDownColor: "#cf222e",
    borderVisible: false
  })
  candles.setData(
    bars.t.map((_, i) => ({ time: time(i), open: bars.o[i]!, high: bars.h[i]!, low: bars.l[i]!, close: bars.c[i]! }))
  )
  const volume = chart.addSeries(lw.HistogramSeries, { priceScaleId: "volume", priceFormat: { type: "volume" } })
  volume.priceScale().applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } })
  volume.setData(
    bars.t.map((_, i) => ({
      time: time(i),
      value: bars.v[i]!,
      color: bars.c[i]! >= bars.o[i]! ? "rgba(26,127,55,0.35)" : "rgba(207,34,46,0.35)"
    }))
  )
  const line = (values: Array<number | undefined>, color: string) => {
    const series = chart.addSeries(lw.LineSeries, {
      color,
      lineWidth: 1,
      priceLineVisible: false,
      lastValueVisible: false
    })
    series.setData(values.flatMap((value, i) => (value === undefined ? [] : [{ time: time(i), value }])))
  }
  if (overlays.sma50) line(sma(bars.c, 50), "#1f6feb")
  if (overlays.sma200) line(sma(bars.c, 200), "#bf8700")
  if (overlays.ema20) line(ema(bars.c, 20), "#8250df")
  if (at !== undefined) {
    // the last bar on or before the alert's day
    const day = Math.floor(Date.parse(at) / 86_400_000) * 86_400
    let i = bars.t.length - 1
    while (i > 0 && bars.t[i]! > day) i--
    if (i >= 0 && Number.isFinite(day)) {
      lw.createSeriesMarkers(candles, [
        { time: time(i), position: "aboveBar", shape: "arrowDown", color: "#1f6feb", text: "alert" }
      ])
    }
  }
  chart.timeScale().fitContent()
  // drawn: the next frame has painted the canvas
  await new Promise((resolve) => requestAnimationFrame(() => resolve(undefined)))
  return { ms: performance.now() - started, dispose: () => chart.remove() }
}
