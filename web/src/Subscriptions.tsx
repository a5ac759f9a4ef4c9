import { useCallback, useEffect, useState } from "react"
import { useActions } from "./actions"
import type { Session } from "./api"
import { ErrorNote } from "./errors"
import { isSnoozed, Subscription, seconds } from "./Subscription"
import { SubscriptionForm } from "./SubscriptionForm"
import {
  deleteWebhook,
  getWebhook,
  listWebhooks,
  snoozeWebhook,
  testWebhook,
  type Webhook,
  webhookAction
} from "./subscriptionsApi"
import { Time } from "./time"

/**
 * `#/subscriptions` (the list), `#/subscriptions/new[?q=…&universe=…]` (the form, from a screen),
 * `#/subscriptions/<id>` (one) and `#/subscriptions/<id>/edit`.
 */
export const SubscriptionsRoute = ({ session, hash }: { readonly session: Session; readonly hash: string }) => {
  const [path, query] = hash.slice("#/subscriptions".length).split("?")
  const parts = (path ?? "").split("/").filter((p) => p !== "")
  const open = (w: Webhook) => {
    window.location.hash = `#/subscriptions/${encodeURIComponent(w.id)}`
  }
  if (parts.length === 0) return <Subscriptions session={session} />
  if (parts[0] === "new") {
    const params = new URLSearchParams(query ?? "")
    return <NewSubscription session={session} q={params.get("q") ?? ""} universe={params.get("universe") ?? ""} />
  }
  const id = decodeURIComponent(parts[0]!)
  return parts[1] === "edit" ? (
    <EditSubscription session={session} id={id} onSaved={open} />
  ) : (
    <Subscription session={session} id={id} />
  )
}

/** the form; once created, a webhook's signing secret shown this once, else straight to the subscription */
const NewSubscription = ({
  session,
  q,
  universe
}: {
  readonly session: Session
  readonly q: string
  readonly universe: string
}) => {
  const [created, setCreated] = useState<Webhook | undefined>(undefined)
  const open = (w: Webhook) => {
    window.location.hash = `#/subscriptions/${encodeURIComponent(w.id)}`
  }
  return (
    <section aria-labelledby="new-sub-title">
      <h1 id="new-sub-title">New subscription</h1>
      {created?.signing_secret === undefined ? (
        <SubscriptionForm
          session={session}
          prefill={{ q, universe }}
          onSaved={(w) => (w.signing_secret === undefined ? open(w) : setCreated(w))}
        />
      ) : (
        <div className="panel once" role="status">
          <p>
            Subscribed: <strong>{created.name}</strong>. Its deliveries are signed (Standard Webhooks): verify them with
            this secret.
          </p>
          <label>
            Signing secret
            <input readOnly value={created.signing_secret} onFocus={(e) => e.target.select()} />
          </label>
          <p className="muted small">Shown only now: copy it to your receiver. You can rotate it later.</p>
          <a className="button" href={`#/subscriptions/${encodeURIComponent(created.id)}`}>
            Open {created.name}
          </a>
        </div>
      )}
    </section>
  )
}

const EditSubscription = ({
  session,
  id,
  onSaved
}: {
  readonly session: Session
  readonly id: string
  readonly onSaved: (w: Webhook) => void
}) => {
  const [hook, setHook] = useState<Webhook | undefined>(undefined)
  const [error, setError] = useState<unknown>(undefined)
  useEffect(() => {
    getWebhook(id).then(setHook, setError)
  }, [id])
  return (
    <section aria-labelledby="edit-sub-title">
      <h1 id="edit-sub-title">Edit {hook?.name ?? "subscription"}</h1>
      <ErrorNote error={error} />
      {hook === undefined ? null : <SubscriptionForm session={session} existing={hook} onSaved={onSaved} />}
    </section>
  )
}

/** The account's subscriptions: status, channel, cadence, last fired, matches now, snooze; and what to do with each. */
const Subscriptions = ({ session }: { readonly session: Session }) => {
  const [hooks, setHooks] = useState<ReadonlyArray<Webhook> | undefined>(undefined)
  const [loadError, setLoadError] = useState<unknown>(undefined)
  const load = useCallback(() => {
    listWebhooks().then(
      (r) => setHooks(r.webhooks),
      (e: unknown) => {
        setHooks([])
        setLoadError(e)
      }
    )
  }, [])
  useEffect(load, [load])
  const { act, error, notice } = useActions(load)

  return (
    <section aria-labelledby="subs-title">
      <h1 id="subs-title">Subscriptions</h1>
      <p className="muted">
        Conditions evaluated on every refresh; an in-app one delivers to your <a href="#/inbox">inbox</a>. Subscribe
        from the <a href="#/screener">screener</a>, or <a href="#/subscriptions/new">make a new subscription</a>.
      </p>
      {notice === undefined ? null : <p role="status">{notice}</p>}
      <ErrorNote error={error ?? loadError} />
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
              const snoozed = isSnoozed(w)
              return (
                <tr key={w.id}>
                  <td>
                    <a href={`#/subscriptions/${encodeURIComponent(w.id)}`}>{w.name}</a>
                  </td>
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
                    <button type="button" onClick={act(() => testWebhook(session, w.id), `Test sent for ${w.name}.`)}>
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
