/** A dry-run's answer drawn for a person: what the rule would have sent, to whom most, and what followed. */
import type { DryRun } from "./subscriptionsApi"
import { Time } from "./time"

const percent = (x: number | null) => (x === null ? "—" : `${x >= 0 ? "+" : ""}${(x * 100).toFixed(2)}%`)
const share = (x: number | null) => (x === null ? "—" : `${Math.round(x * 100)}%`)

export const DryRunResult = ({ run, detailed = false }: { readonly run: DryRun; readonly detailed?: boolean }) => (
  <div role="status" className="preview">
    <p>
      From {run.from.slice(0, 10)} to {run.to.slice(0, 10)} ({run.evaluations} evaluations) it would have sent{" "}
      <strong>{run.event_count}</strong> alert{run.event_count === 1 ? "" : "s"}
      {run.per_ticker.length === 0
        ? "."
        : `, most for ${run.per_ticker
            .slice(0, 5)
            .map((t) => `${t.ticker} (${t.fires})`)
            .join(", ")}.`}
    </p>
    <p className="muted">
      Mean return after a fire: 1 day {percent(run.forward_returns["1d"].mean)}, 5 days{" "}
      {percent(run.forward_returns["5d"].mean)}, 20 days {percent(run.forward_returns["20d"].mean)}.
    </p>
    {detailed && run.events.length > 0 ? (
      <>
        <table className="data compact" aria-label="Forward returns">
          <thead>
            <tr>
              <th scope="col">After</th>
              <th scope="col">Signals</th>
              <th scope="col">Mean</th>
              <th scope="col">Median</th>
              <th scope="col">Up</th>
            </tr>
          </thead>
          <tbody>
            {(["1d", "5d", "20d"] as const).map((h) => (
              <tr key={h}>
                <th scope="row">{h}</th>
                <td className="num">{run.forward_returns[h].n}</td>
                <td className="num">{percent(run.forward_returns[h].mean)}</td>
                <td className="num">{percent(run.forward_returns[h].median)}</td>
                <td className="num">{share(run.forward_returns[h].hit_rate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <details>
          <summary>
            The {run.events.length === run.event_count ? "" : `first ${run.events.length} `}events
            {run.truncated ? " (more were cut)" : ""}
          </summary>
          <ol className="events" aria-label="Dry-run events">
            {run.events.map((e) => (
              <li key={e.sequence}>
                <Time iso={e.at} />{" "}
                <span className={e.type === "webhook.fired" ? "fired" : "cleared"}>
                  {e.type === "webhook.fired" ? "fired" : "cleared"}
                </span>{" "}
                {e.tickers.slice(0, 20).join(", ")}
                {e.tickers.length > 20 ? ` and ${e.tickers.length - 20} more` : ""}
              </li>
            ))}
          </ol>
        </details>
      </>
    ) : null}
  </div>
)
