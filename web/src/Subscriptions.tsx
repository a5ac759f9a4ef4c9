import { useCallback, useEffect, useState } from "react"
import { deleteWebhook, listWebhooks, type Session, snoozeWebhook, type Webhook, webhookAction } from "./api"
import { Time } from "./time"

const seconds = (s: number) => new Date(s * 1000).toISOString()

/** The account's subscriptions: status, channel, cadence, last fired, matches now, snooze; and what to do with each. */
export const Subscriptions = ({ session }: { readonly session: Session }) => {
  const [hooks, setHooks] = useState<ReadonlyArray<Webhook> | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const [notice, setNotice] = useState<string | undefined>(undefined)

  const load = useCallback(() => {
    listWebhooks().then(
      (r) => setHooks(r.webhooks),
      (e: unknown) => {
        setHooks([])
        setError(e instanceof Error ? e.message : String(e))
      }
    )
  }, [])
  useEffect(load, [load])

  const act = (work: () => Promise<unknown>, done: string) => () => {
    setError(undefined)
    setNotice(undefined)
    work().then(
      () => {
        setNotice(done)
        load()
      },
      (e: unknown) => setError(e instanceof Error ? e.message : String(e))
    )
  }

  return (
    <section aria-labelledby="subs-title">
      <h1 id="subs-title">Subscriptions</h1>
      <p className="muted">
        Conditions evaluated on every refresh; an in-app one delivers to your <a href="#/inbox">inbox</a>. Subscribe
        from the <a href="#/screener">screener</a>.
      </p>
      {notice === undefined ? null : <p role="status">{notice}</p>}
      {error === undefined ? null : (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {hooks === undefined ? (
        <p className="muted">Loading…</p>
      ) : hooks.length === 0 ? (
        <p className="muted">No subscriptions yet.</p>
      ) : (
        <table className="data">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Query</th>
              <th scope="col">Channel</th>
              <th scope="col">Cadence</th>
              <th scope="col">Status</th>
              <th scope="col">Matches now</th>
              <th scope="col">Last fired</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {hooks.map((w) => {
              const snoozed = w.snoozed_until !== null && w.snoozed_until * 1000 > Date.now()
              return (
                <tr key={w.id}>
                  <td>{w.name}</td>
                  <td>
                    <code>{w.q}</code>
                  </td>
                  <td>{w.channel}</td>
                  <td>{w.cadence}</td>
                  <td>
                    {w.status}
                    {w.disabled_reason === null ? "" : ` (${w.disabled_reason})`}
                    {snoozed ? (
                      <>
                        , snoozed until <Time iso={seconds(w.snoozed_until!)} />
                      </>
                    ) : null}
                  </td>
                  <td className="num">{w.last_match_set.length}</td>
                  <td>{w.last_fired === null ? "never" : <Time iso={seconds(w.last_fired)} />}</td>
                  <td className="actions">
                    {w.status === "active" ? (
                      <button
                        type="button"
                        onClick={act(() => webhookAction(session, w.id, "disable"), `${w.name} disabled.`)}
                      >
                        Disable <span className="sr-only">{w.name}</span>
                      </button>
                    ) : (
                      <button
                        type="button"
                        onClick={act(() => webhookAction(session, w.id, "enable"), `${w.name} enabled.`)}
                      >
                        Enable <span className="sr-only">{w.name}</span>
                      </button>
                    )}
                    <button
                      type="button"
                      onClick={act(() => webhookAction(session, w.id, "test"), `Test sent for ${w.name}.`)}
                    >
                      Test <span className="sr-only">{w.name}</span>
                    </button>
                    <button
                      type="button"
                      onClick={act(
                        () => snoozeWebhook(session, w.id, new Date(Date.now() + 3_600_000)),
                        `${w.name} snoozed for an hour.`
                      )}
                    >
                      Snooze 1 h <span className="sr-only">{w.name}</span>
                    </button>
                    <button
                      type="button"
                      className="danger"
                      onClick={() => {
                        if (window.confirm(`Delete the subscription ${w.name}?`)) {
                          act(() => deleteWebhook(session, w.id), `${w.name} deleted.`)()
                        }
                      }}
                    >
                      Delete <span className="sr-only">{w.name}</span>
                    </button>
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      )}
    </section>
  )
}
