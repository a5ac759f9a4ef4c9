import { useState } from "react"
import { createWebhook, type DryRun, dryRun, type Session } from "./api"

const percent = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(2)}%`)

/** Subscribing to a screen: its dry-run over the last 90 days first, then the in-app subscription. */
export const Subscribe = ({
  session,
  q,
  universe
}: {
  readonly session: Session
  readonly q: string
  readonly universe: string | undefined
}) => {
  const [name, setName] = useState(q.slice(0, 80))
  const [preview, setPreview] = useState<DryRun | undefined>(undefined)
  const [created, setCreated] = useState<string | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)

  const run = async (work: () => Promise<void>) => {
    setBusy(true)
    setError(undefined)
    try {
      await work()
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    } finally {
      setBusy(false)
    }
  }
  const from = new Date(Date.now() - 90 * 86_400_000).toISOString().slice(0, 10)

  return (
    <section aria-labelledby="subscribe-title" className="panel">
      <h2 id="subscribe-title">Subscribe to this screen</h2>
      <p className="muted">
        An in-app subscription: tickers that newly match arrive in your inbox, evaluated on every refresh. See first
        what it would have sent.
      </p>
      <div className="row">
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
        </label>
        <button
          type="button"
          disabled={busy}
          onClick={() => run(async () => setPreview(await dryRun(session, q, universe, from)))}
        >
          Preview
        </button>
        <button
          type="button"
          disabled={busy || preview === undefined || created !== undefined}
          onClick={() =>
            run(async () => {
              const w = await createWebhook(session, q, name.trim() === "" ? q.slice(0, 80) : name.trim(), universe)
              setCreated(w.name)
            })
          }
        >
          Create subscription
        </button>
      </div>
      {preview === undefined ? null : (
        <div role="status" className="preview">
          <p>
            From {preview.from.slice(0, 10)} to {preview.to.slice(0, 10)} ({preview.evaluations} evaluations) it would
            have sent <strong>{preview.event_count}</strong> alert{preview.event_count === 1 ? "" : "s"}
            {preview.per_ticker.length === 0
              ? "."
              : `, most for ${preview.per_ticker
                  .slice(0, 5)
                  .map((t) => `${t.ticker} (${t.fires})`)
                  .join(", ")}.`}
          </p>
          <p className="muted">
            Mean return after a fire: 1 day {percent(preview.forward_returns["1d"].mean)}, 5 days{" "}
            {percent(preview.forward_returns["5d"].mean)}, 20 days {percent(preview.forward_returns["20d"].mean)}.
          </p>
        </div>
      )}
      {created === undefined ? null : (
        <p role="status">
          Subscribed: {created}. <a href="#/subscriptions">See your subscriptions</a>.
        </p>
      )}
      {error === undefined ? null : (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </section>
  )
}
