import { useState } from "react"
import type { Session } from "./api"
import { DryRunResult } from "./DryRunResult"
import { createWebhook, type DryRun, dryRun, type Rule } from "./subscriptionsApi"

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
  const rule: Rule = {
    q,
    ...(universe === undefined ? {} : { universe }),
    cadence: "realtime",
    fire_on: "enter",
    pending_for: "0s",
    clear_q: null,
    cooldown: "0s",
    repeat_interval: null
  }
  const more = new URLSearchParams({ q, ...(universe === undefined ? {} : { universe }) })

  return (
    <section aria-labelledby="subscribe-title" className="panel">
      <h2 id="subscribe-title">Subscribe to this screen</h2>
      <p className="muted">
        An in-app subscription: tickers that newly match arrive in your inbox, evaluated on every refresh. See first
        what it would have sent, or{" "}
        <a href={`#/subscriptions/new?${more.toString()}`}>choose the channel, cadence and firing options</a>.
      </p>
      <div className="row">
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={80} />
        </label>
        <button
          type="button"
          disabled={busy}
          onClick={() => run(async () => setPreview(await dryRun(session, rule, { from })))}
        >
          Preview
        </button>
        <button
          type="button"
          disabled={busy || preview === undefined || created !== undefined}
          onClick={() =>
            run(async () => {
              const label = name.trim() === "" ? q.slice(0, 80) : name.trim()
              const w = await createWebhook(session, rule, { channel: "in_app", name: label, fields: [] })
              setCreated(w.name)
            })
          }
        >
          Create subscription
        </button>
      </div>
      {preview === undefined ? null : <DryRunResult run={preview} />}
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
