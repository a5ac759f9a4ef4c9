/**
 * The candlestick chart (TradingView's lightweight-charts 5, Apache-2.0; its attribution logo is
 * kept as its licence asks), loaded the first time a chart is drawn: the initial page stays small.
 * Minute and hourly bars show their times in the viewer's zone; the account's alerts are arrows on
 * the bar that holds their data time (`barAt`).
 */
import { type ChartBars, type ChartMarker, intradayInterval } from "./tickerApi"

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

const DAY_SECONDS = 86_400

/** the last index whose bar starts at or before `x` (epoch seconds); -1 before the first */
const lastAtOrBefore = (t: ReadonlyArray<number>, x: number): number => {
  let lo = 0
  let hi = t.length - 1
  let found = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (t[mid]! <= x) {
      found = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  return found
}

/** the end (epoch seconds) of the Monday–Sunday week holding `t` (epoch day 4 was a Monday) */
const weekEnd = (t: number): number => {
  const day = Math.floor(t / DAY_SECONDS)
  return (day - ((((day - 4) % 7) + 7) % 7) + 7) * DAY_SECONDS
}

/**
 * The bar holding instant `ms` (epoch ms): the last bar starting at or before it (a weekly bar,
 * dated by a day of its week: the first whose week ends after it); a time after the last bar
 * marks the last bar (a daily chart's bars are the completed sessions); -1 before the first bar.
 */
export const barAt = (bars: ChartBars, ms: number): number => {
  const x = ms / 1000
  const n = bars.t.length
  if (n === 0 || !Number.isFinite(x)) return -1
  if (bars.interval === "1w") {
    if (x < weekEnd(bars.t[0]!) - 7 * DAY_SECONDS) return -1
    let lo = 0
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (weekEnd(bars.t[mid]!) > x) hi = mid
      else lo = mid + 1
    }
    return lo
  }
  return lastAtOrBefore(bars.t, x)
}

const pad = (n: number) => String(n).padStart(2, "0")

/**
 * Draws `bars` into `container` (replacing what was there), with the account's alerts (`markers`,
 * those before the first bar left out) and an alert's time (`at`) marked; answers how long the
 * drawing took (ms), how many markers it drew, and a disposer.
 */
export const drawChart = async (
  container: HTMLElement,
  bars: ChartBars,
  overlays: Overlays,
  markers: ReadonlyArray<ChartMarker>,
  /** an alert's time (ISO), marked on the bar that holds it */
  at: string | undefined,
  /** the theme the chart is drawn in */
  dark: boolean
): Promise<{ readonly ms: number; readonly markers: number; readonly dispose: () => void }> => {
  const lw = await import("lightweight-charts")
  const started = performance.now()
  container.replaceChildren()
  const fg = dark ? "#e6e9ec" : "#14171a"
  const grid = dark ? "#2a323b" : "#eef1f4"
  const intraday = intradayInterval(bars.interval)
  // minutes and hours in the viewer's zone (the library shows the UTC of its timestamps)
  const local = (t: import("lightweight-charts").Time) => new Date((t as number) * 1000)
  const tickMark = (t: import("lightweight-charts").Time, type: import("lightweight-charts").TickMarkType) => {
    const d = local(t)
    switch (type) {
      case lw.TickMarkType.Year:
        return String(d.getFullYear())
      case lw.TickMarkType.Month:
        return d.toLocaleDateString(undefined, { month: "short" })
      case lw.TickMarkType.DayOfMonth:
        return d.toLocaleDateString(undefined, { month: "short", day: "numeric" })
      default:
        return `${pad(d.getHours())}:${pad(d.getMinutes())}`
    }
  }
  const chart = lw.createChart(container, {
    autoSize: true,
    layout: { background: { color: "transparent" }, textColor: fg, attributionLogo: true },
    grid: { vertLines: { color: grid }, horzLines: { color: grid } },
    // twenty years of daily bars fit the width when asked to (the default keeps half a pixel a bar)
    timeScale: {
      borderVisible: false,
      minBarSpacing: 0.05,
      timeVisible: intraday,
      secondsVisible: false,
      ...(intraday ? { tickMarkFormatter: tickMark } : {})
    },
    ...(intraday
      ? {
          localization: {
            timeFormatter: (t: import("lightweight-charts").Time) =>
              local(t).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })
          }
        }
      : {}),
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
  const marks: Array<import("lightweight-charts").SeriesMarker<import("lightweight-charts").Time>> = []
  for (const m of markers) {
    const i = barAt(bars, Date.parse(m.time))
    if (i < 0) continue
    marks.push(
      m.kind === "fired"
        ? { time: time(i), position: "belowBar", shape: "arrowUp", color: "#1a7f37", text: "fired" }
        : { time: time(i), position: "aboveBar", shape: "arrowDown", color: "#cf222e", text: "cleared" }
    )
  }
  if (at !== undefined) {
    const i = barAt(bars, Date.parse(at))
    if (i >= 0) marks.push({ time: time(i), position: "aboveBar", shape: "arrowDown", color: "#1f6feb", text: "alert" })
  }
  if (marks.length > 0)
    lw.createSeriesMarkers(
      candles,
      marks.sort((a, b) => (a.time as number) - (b.time as number))
    )
  chart.timeScale().fitContent()
  // drawn: the next frame has painted the canvas
  await new Promise((resolve) => requestAnimationFrame(() => resolve(undefined)))
  return { ms: performance.now() - started, markers: marks.length, dispose: () => chart.remove() }
}
