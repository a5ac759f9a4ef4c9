import { useEffect, useRef, useState } from "react"
import { type ChartBars, chartBars } from "./api"
import { drawChart, type Overlays } from "./chart"
import { Time } from "./time"

/** A ticker's page: its candlesticks with volume, daily or weekly, with moving averages to lay over them. */
export const Ticker = ({ ticker, at }: { readonly ticker: string; readonly at?: string | undefined }) => {
  const [interval, setInterval] = useState<"1d" | "1w">("1d")
  const [overlays, setOverlays] = useState<Overlays>({ sma50: true, sma200: true, ema20: false })
  const [bars, setBars] = useState<ChartBars | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const [renderMs, setRenderMs] = useState<number | undefined>(undefined)
  const [draws, setDraws] = useState(0)
  const box = useRef<HTMLDivElement>(null)

  useEffect(() => {
    setBars(undefined)
    setError(undefined)
    chartBars(ticker, interval).then(setBars, (e: unknown) => setError(e instanceof Error ? e.message : String(e)))
  }, [ticker, interval])

  useEffect(() => {
    const container = box.current
    if (bars === undefined || container === null || bars.t.length === 0) return
    let dispose: (() => void) | undefined
    let cancelled = false
    drawChart(container, bars, overlays, at).then(
      (drawn) => {
        if (cancelled) drawn.dispose()
        else {
          dispose = drawn.dispose
          setRenderMs(drawn.ms)
          setDraws((n) => n + 1)
        }
      },
      (e: unknown) => setError(e instanceof Error ? e.message : String(e))
    )
    return () => {
      cancelled = true
      dispose?.()
    }
  }, [bars, overlays, at])

  const toggle = (key: keyof Overlays) => setOverlays((o) => ({ ...o, [key]: !o[key] }))

  return (
    <section aria-labelledby="ticker-title">
      <h1 id="ticker-title">
        {ticker} {bars === undefined ? null : <span className="muted">{bars.name}</span>}
      </h1>
      <fieldset className="row controls">
        <legend className="sr-only">Chart</legend>
        <fieldset className="segmented">
          <legend className="sr-only">Interval</legend>
          {(["1d", "1w"] as const).map((i) => (
            <label key={i}>
              <input type="radio" name="interval" checked={interval === i} onChange={() => setInterval(i)} /> {i}
            </label>
          ))}
        </fieldset>
        <label>
          <input type="checkbox" checked={overlays.sma50} onChange={() => toggle("sma50")} /> SMA 50
        </label>
        <label>
          <input type="checkbox" checked={overlays.sma200} onChange={() => toggle("sma200")} /> SMA 200
        </label>
        <label>
          <input type="checkbox" checked={overlays.ema20} onChange={() => toggle("ema20")} /> EMA 20
        </label>
      </fieldset>
      {at === undefined ? null : (
        <p>
          Marked: the alert at <Time iso={at} />.
        </p>
      )}
      {error === undefined ? null : (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {bars === undefined || error !== undefined ? (
        error === undefined ? (
          <p className="muted">Loading bars…</p>
        ) : null
      ) : (
        <p className="muted">
          {bars.t.length.toLocaleString()} {bars.interval === "1d" ? "daily" : "weekly"} bars, {bars.from} to {bars.to}
          {bars.limited ? " (the plan's history window)" : ""}
        </p>
      )}
      <div
        ref={box}
        className="chart"
        role="img"
        aria-label={`${ticker} candlestick chart`}
        data-bars={bars?.t.length ?? 0}
        data-render-ms={renderMs === undefined ? undefined : renderMs.toFixed(1)}
        data-draws={draws}
      />
      <p className="muted small">
        Charts by{" "}
        <a href="https://www.tradingview.com/" rel="noreferrer">
          TradingView
        </a>{" "}
        Lightweight Charts™.
      </p>
    </section>
  )
}
