import { useEffect, useMemo, useRef, useState } from "react"
import { barAt, drawChart, type Overlays } from "./chart"
import { useDark } from "./theme"
import {
  type ChartBars,
  type ChartInterval,
  type ChartMarker,
  chartBars,
  chartMarkers,
  type GroupedValues,
  groupedValues,
  INTERVALS,
  intradayInterval,
  tickerCoverage
} from "./tickerApi"
import { Time } from "./time"

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e))

const BAR_NAMES: Record<ChartInterval, string> = { "1m": "minute", "1h": "hourly", "1d": "daily", "1w": "weekly" }

/** the alerts listed under the chart (the newest) */
const LISTED = 50

/**
 * A ticker's page: its candlesticks with volume (minutes, hours, days or weeks) with moving averages
 * to lay over them, where the account's subscriptions fired or cleared for it, and its row's values
 * grouped, each with its description.
 */
export const Ticker = ({ ticker, at }: { readonly ticker: string; readonly at?: string | undefined }) => {
  const [interval, setInterval] = useState<ChartInterval>("1d")
  const dark = useDark()
  const [overlays, setOverlays] = useState<Overlays>({ sma50: true, sma200: true, ema20: false })
  const [bars, setBars] = useState<ChartBars | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const [renderMs, setRenderMs] = useState<number | undefined>(undefined)
  const [draws, setDraws] = useState(0)
  const [markers, setMarkers] = useState<ReadonlyArray<ChartMarker> | undefined>(undefined)
  const [markersError, setMarkersError] = useState<string | undefined>(undefined)
  const [drawnMarkers, setDrawnMarkers] = useState(0)
  /** whether the ticker has minute bars (undefined: not known) */
  const [minuteBars, setMinuteBars] = useState<boolean | undefined>(undefined)
  const box = useRef<HTMLDivElement>(null)

  useEffect(() => {
    setMarkers(undefined)
    setMarkersError(undefined)
    setMinuteBars(undefined)
    chartMarkers(ticker).then(
      (answer) => setMarkers(answer.markers),
      (e: unknown) => {
        setMarkers([])
        setMarkersError(messageOf(e))
      }
    )
    tickerCoverage(ticker).then(
      (coverage) => setMinuteBars(coverage.minute_from !== null),
      () => setMinuteBars(undefined)
    )
  }, [ticker])

  // a ticker without minute bars charts days
  useEffect(() => {
    if (minuteBars === false && intradayInterval(interval)) setInterval("1d")
  }, [minuteBars, interval])

  useEffect(() => {
    setBars(undefined)
    setError(undefined)
    chartBars(ticker, interval).then(setBars, (e: unknown) => setError(messageOf(e)))
  }, [ticker, interval])

  useEffect(() => {
    const container = box.current
    // drawn once the markers are known too: one drawing, not one before them and one after
    if (bars === undefined || markers === undefined || container === null || bars.t.length === 0) return
    let dispose: (() => void) | undefined
    let cancelled = false
    drawChart(container, bars, overlays, markers, at, dark).then(
      (drawn) => {
        if (cancelled) drawn.dispose()
        else {
          dispose = drawn.dispose
          setRenderMs(drawn.ms)
          setDrawnMarkers(drawn.markers)
          setDraws((n) => n + 1)
        }
      },
      (e: unknown) => setError(messageOf(e))
    )
    return () => {
      cancelled = true
      dispose?.()
    }
  }, [bars, overlays, markers, at, dark])

  /** the alerts on the bars shown (those before the first bar are not), newest first */
  const onChart = useMemo(
    () =>
      bars === undefined || markers === undefined ? [] : markers.filter((m) => barAt(bars, Date.parse(m.time)) >= 0),
    [bars, markers]
  )

  const toggle = (key: keyof Overlays) => setOverlays((o) => ({ ...o, [key]: !o[key] }))

  return (
    <section aria-labelledby="ticker-title" className="ticker-page">
      <h1 id="ticker-title">
        {ticker} {bars === undefined ? null : <span className="muted">{bars.name}</span>}
      </h1>
      <fieldset className="row controls">
        <legend className="sr-only">Chart</legend>
        <fieldset className="segmented">
          <legend className="sr-only">Interval</legend>
          {INTERVALS.map((i) => (
            <label key={i}>
              <input
                type="radio"
                name="interval"
                checked={interval === i}
                disabled={minuteBars === false && intradayInterval(i)}
                onChange={() => setInterval(i)}
              />{" "}
              {i}
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
      {minuteBars === false ? (
        <p className="muted small">Minute and hourly bars are kept for the 200 most traded tickers only.</p>
      ) : null}
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
        <BarsSummary bars={bars} />
      )}
      <div
        ref={box}
        className="chart"
        role="img"
        aria-label={`${ticker} candlestick chart`}
        data-bars={bars?.t.length ?? 0}
        data-markers={drawnMarkers}
        data-render-ms={renderMs === undefined ? undefined : renderMs.toFixed(1)}
        data-draws={draws}
      />
      <p className="muted small">
        Charts by{" "}
        <a href="https://www.tradingview.com/" rel="noreferrer">
          TradingView
        </a>{" "}
        Lightweight Charts™. Arrows: <span className="ticker-fired">▲ fired</span>,{" "}
        <span className="ticker-cleared">▼ cleared</span> — your subscriptions' alerts for {ticker}.
      </p>
      <Alerts ticker={ticker} markers={markers} onChart={onChart} error={markersError} />
      <Values ticker={ticker} />
    </section>
  )
}

const BarsSummary = ({ bars }: { readonly bars: ChartBars }) =>
  intradayInterval(bars.interval) ? (
    <p className="muted">
      {bars.t.length.toLocaleString()} {BAR_NAMES[bars.interval]} bars
      {bars.from === null || bars.to === null ? null : (
        <>
          , <Time iso={bars.from} /> to <Time iso={bars.to} />
        </>
      )}
      {bars.limited ? " (the plan's history window)" : ""}
    </p>
  ) : (
    <p className="muted">
      {bars.t.length.toLocaleString()} {BAR_NAMES[bars.interval]} bars, {bars.from} to {bars.to}
      {bars.limited ? " (the plan's history window)" : ""}
    </p>
  )

/** Where the account's subscriptions fired or cleared for the ticker, on the bars shown. */
const Alerts = ({
  ticker,
  markers,
  onChart,
  error
}: {
  readonly ticker: string
  readonly markers: ReadonlyArray<ChartMarker> | undefined
  readonly onChart: ReadonlyArray<ChartMarker>
  readonly error: string | undefined
}) => {
  const before = (markers?.length ?? 0) - onChart.length
  return (
    <section aria-labelledby="ticker-alerts-title" className="ticker-alerts">
      <h2 id="ticker-alerts-title">Alerts on this chart</h2>
      {error !== undefined ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : markers === undefined ? (
        <p className="muted">Loading alerts…</p>
      ) : onChart.length === 0 ? (
        <p className="muted">
          None of your subscriptions fired or cleared for {ticker} over these bars
          {before > 0 ? ` (${before} before the first bar shown)` : ""}.
        </p>
      ) : (
        <>
          <ol aria-labelledby="ticker-alerts-title" className="ticker-alert-list">
            {onChart.slice(0, LISTED).map((m) => (
              <li key={`${m.webhook_id}-${m.time}-${m.kind}`}>
                <Time iso={m.time} />{" "}
                <span className={m.kind === "fired" ? "ticker-fired" : "ticker-cleared"}>
                  {m.kind === "fired" ? "▲ fired" : "▼ cleared"}
                </span>{" "}
                <span className="ticker-alert-name">{m.webhook_name}</span>
              </li>
            ))}
          </ol>
          <p className="muted small">
            {onChart.length > LISTED ? `The newest ${LISTED} of ${onChart.length}. ` : ""}
            {before > 0 ? `${before} more before the first bar shown.` : ""}
          </p>
        </>
      )}
    </section>
  )
}

/** The ticker's live row, grouped (price, volume, trend, …), each value with its description. */
const Values = ({ ticker }: { readonly ticker: string }) => {
  const [values, setValues] = useState<GroupedValues | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  useEffect(() => {
    setValues(undefined)
    setError(undefined)
    groupedValues(ticker).then(setValues, (e: unknown) => setError(messageOf(e)))
  }, [ticker])
  return (
    <section aria-labelledby="ticker-values-title" className="ticker-values">
      <h2 id="ticker-values-title">Values</h2>
      {error !== undefined ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : values === undefined ? (
        <p className="muted">Loading values…</p>
      ) : (
        <>
          <p className="muted small">
            {ticker}'s row as of <Time iso={values.asOf} />.
          </p>
          {values.groups.map(({ group, values: rows }) => (
            <section key={group} aria-labelledby={`ticker-group-${group}`} className="ticker-group">
              <h3 id={`ticker-group-${group}`}>{group}</h3>
              <dl>
                {rows.map((v) => (
                  <div key={v.name} className="ticker-value-row">
                    <dt>
                      <code>{v.name}</code>
                    </dt>
                    <dd>
                      <span className="ticker-value">{v.text}</span>
                      {v.description === "" ? null : <span className="ticker-desc">{v.description}</span>}
                    </dd>
                  </div>
                ))}
              </dl>
            </section>
          ))}
        </>
      )}
    </section>
  )
}
