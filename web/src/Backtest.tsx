/**
 * A screen's backtest (issue 18, item 3): rebalanced every day, week or month over a period, held
 * for a number of sessions, against a benchmark — the growth of 1 for both drawn, the summary beside.
 */
import { type FormEvent, useEffect, useRef, useState } from "react"
import type { Session } from "./api"
import { ErrorNote } from "./errors"
import { drawLines } from "./lineChart"
import { type Backtest as BacktestAnswer, backtest, cumulative } from "./screenerApi"
import { useDark } from "./theme"

const percent = (x: number | null | undefined) =>
  x === null || x === undefined ? "—" : `${x >= 0 ? "+" : ""}${(x * 100).toFixed(2)}%`
const isoDay = (msAgo: number) => new Date(Date.now() - msAgo).toISOString().slice(0, 10)

export const Backtest = ({
  session,
  q,
  universe,
  order,
  dir
}: {
  readonly session: Session
  readonly q: string
  readonly universe: string | undefined
  readonly order: string | undefined
  readonly dir: "asc" | "desc" | undefined
}) => {
  const [from, setFrom] = useState(isoDay(2 * 365 * 86_400_000))
  const [to, setTo] = useState(isoDay(30 * 86_400_000))
  const [every, setEvery] = useState<"1d" | "1w" | "1mo">("1w")
  const [hold, setHold] = useState("5d")
  const [benchmark, setBenchmark] = useState("SPY")
  const [top, setTop] = useState("")
  const [answer, setAnswer] = useState<BacktestAnswer | undefined>(undefined)
  const [error, setError] = useState<unknown>(undefined)
  const [busy, setBusy] = useState(false)
  const box = useRef<HTMLDivElement>(null)
  const dark = useDark()

  useEffect(() => {
    const container = box.current
    if (answer === undefined || container === null || answer.periods.length === 0) return
    let dispose: (() => void) | undefined
    let cancelled = false
    drawLines(
      container,
      [
        { name: "Screen", color: "#1f6feb", points: cumulative(answer.periods, (p) => p.return) },
        {
          name: answer.query.benchmark,
          color: "#bf8700",
          points: cumulative(answer.periods, (p) => p.benchmark_return)
        }
      ],
      dark
    ).then(
      (drawn) => {
        if (cancelled) drawn.dispose()
        else dispose = drawn.dispose
      },
      (e: unknown) => setError(e)
    )
    return () => {
      cancelled = true
      dispose?.()
    }
  }, [answer, dark])

  const submit = (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    const limit = Number(top)
    backtest(session, {
      q,
      from,
      to,
      every,
      hold: hold.trim(),
      ...(universe === undefined ? {} : { universe }),
      ...(benchmark.trim() === "" ? {} : { benchmark: benchmark.trim().toUpperCase() }),
      ...(top.trim() !== "" && Number.isInteger(limit) ? { limit } : {}),
      ...(order === undefined ? {} : { order }),
      ...(dir === undefined ? {} : { dir })
    })
      .then(setAnswer, (e: unknown) => {
        setAnswer(undefined)
        setError(e)
      })
      .finally(() => setBusy(false))
  }

  const s = answer?.summary
  return (
    <section aria-labelledby="backtest-title" className="panel">
      <h2 id="backtest-title">Backtest this screen</h2>
      <p className="muted small">
        On each rebalance day the screen's matches (or its first N in the table's order) are bought at the close in
        equal weights and sold at the close after the holding period; the benchmark is held alike.
      </p>
      <form onSubmit={submit} className="row">
        <label>
          From
          <input type="date" value={from} onChange={(e) => setFrom(e.target.value)} required />
        </label>
        <label>
          To
          <input type="date" value={to} onChange={(e) => setTo(e.target.value)} required />
        </label>
        <label>
          Rebalance
          <select value={every} onChange={(e) => setEvery(e.target.value as "1d" | "1w" | "1mo")}>
            <option value="1d">Daily</option>
            <option value="1w">Weekly</option>
            <option value="1mo">Monthly</option>
          </select>
        </label>
        <label>
          Hold
          <input value={hold} onChange={(e) => setHold(e.target.value)} size={5} placeholder="5d" />
        </label>
        <label>
          Top N
          <input value={top} onChange={(e) => setTop(e.target.value)} size={5} placeholder="all" inputMode="numeric" />
        </label>
        <label>
          Benchmark
          <input value={benchmark} onChange={(e) => setBenchmark(e.target.value)} size={6} />
        </label>
        <button type="submit" disabled={busy}>
          Backtest
        </button>
      </form>
      <ErrorNote error={error} q={q} />
      {answer === undefined || s === undefined ? null : (
        <>
          <p role="status">
            {s.periods} periods ({s.invested_periods} invested, {Math.round(s.mean_count ?? 0)} tickers on average): the
            screen <strong>{percent(s.cumulative_return)}</strong>, {answer.query.benchmark}{" "}
            <strong>{percent(s.benchmark_cumulative_return)}</strong>.
          </p>
          <div
            ref={box}
            className="chart backtest-chart"
            role="img"
            aria-label={`Growth of 1: the screen against ${answer.query.benchmark}`}
            data-points={answer.periods.length + 1}
          />
          <table className="data compact" aria-label="Backtest summary">
            <tbody>
              <tr>
                <th scope="row">Mean return a period</th>
                <td className="num">{percent(s.mean_return)}</td>
                <td className="num muted">{percent(s.benchmark_mean_return)}</td>
              </tr>
              <tr>
                <th scope="row">Excess a period</th>
                <td className="num">{percent(s.excess_return)}</td>
                <td />
              </tr>
              <tr>
                <th scope="row">Periods up</th>
                <td className="num">{s.hit_rate === null ? "—" : `${Math.round(s.hit_rate * 100)}%`}</td>
                <td />
              </tr>
              <tr>
                <th scope="row">Max drawdown</th>
                <td className="num">{percent(s.max_drawdown === null ? null : -s.max_drawdown)}</td>
                <td />
              </tr>
            </tbody>
          </table>
          {answer._meta.dropped_periods > 0 ? (
            <p className="muted small">
              {answer._meta.dropped_periods} period{answer._meta.dropped_periods === 1 ? "" : "s"} left out: their exit
              lies past the data ({answer._meta.data_end}).
            </p>
          ) : null}
        </>
      )}
    </section>
  )
}
