/**
 * Lines over days (a backtest's growth of 1 against its benchmark's), drawn with TradingView's
 * lightweight-charts, loaded when first needed as the candlestick chart is.
 */
export interface Line {
  readonly name: string
  readonly color: string
  readonly points: ReadonlyArray<{ readonly date: string; readonly value: number }>
}

export const drawLines = async (
  container: HTMLElement,
  lines: ReadonlyArray<Line>,
  /** the theme the chart is drawn in */
  dark: boolean
): Promise<{ readonly dispose: () => void }> => {
  const lw = await import("lightweight-charts")
  container.replaceChildren()
  const fg = dark ? "#e6e9ec" : "#14171a"
  const grid = dark ? "#2a323b" : "#eef1f4"
  const chart = lw.createChart(container, {
    autoSize: true,
    layout: { background: { color: "transparent" }, textColor: fg, attributionLogo: true },
    grid: { vertLines: { color: grid }, horzLines: { color: grid } },
    timeScale: { borderVisible: false },
    rightPriceScale: { borderVisible: false }
  })
  for (const line of lines) {
    const series = chart.addSeries(lw.LineSeries, { color: line.color, lineWidth: 2, title: line.name })
    let last = ""
    series.setData(
      line.points.flatMap((p) => {
        // one point a day, in order (the chart needs strictly ascending times)
        if (p.date <= last) return []
        last = p.date
        return [{ time: p.date as import("lightweight-charts").Time, value: p.value }]
      })
    )
  }
  chart.timeScale().fitContent()
  return { dispose: () => chart.remove() }
}
