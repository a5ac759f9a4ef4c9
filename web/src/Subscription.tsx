/**
 * One subscription (`#/subscriptions/<id>`): its settings, what to do with it (enable or disable,
 * test, snooze, rotate the signing secret, edit, delete), its delivery log with manual retries,
 * its event feed, and explain: why a ticker is or is not inside, the evaluated tree drawn.
 */
import { type FormEvent, useCallback, useEffect, useState } from "react"
import { useActions } from "./actions"
import type { Session } from "./api"
import { ExplainTreeView } from "./ExplainTree"
import { ErrorNote, messageOf } from "./errors"
import {
  type DeliveryRecord,
  deleteWebhook,
  type Explained,
  explainWebhook,
  getWebhook,
  listDeliveries,
  listEvents,
  retryDelivery,
  rotateSecret,
  snoozeWebhook,
  testWebhook,
  unsnoozeWebhook,
  type Webhook,
  type WebhookEvent,
  webhookAction
} from "./subscriptionsApi"
import { Time } from "./time"

export const seconds = (s: number) => new Date(s * 1000).toISOString()

const SNOOZES = [
  { label: "1 hour", ms: 3_600_000 },
  { label: "4 hours", ms: 4 * 3_600_000 },
  { label: "1 day", ms: 86_400_000 },
  { label: "1 week", ms: 7 * 86_400_000 }
] as const

export const isSnoozed = (w: Webhook) => w.snoozed_until !== null && w.snoozed_until * 1000 > Date.now()

export const Subscription = ({ session, id }: { readonly session: Session; readonly id: string }) => {
  const [hook, setHook] = useState<Webhook | undefined>(undefined)
  const [secret, setSecret] = useState<{ readonly value: string; readonly oldUntil: number } | undefined>(undefined)
  const [snoozeFor, setSnoozeFor] = useState<number>(SNOOZES[0].ms)
  const [deliveriesVersion, setDeliveriesVersion] = useState(0)

  const [loadError, setLoadError] = useState<unknown>(undefined)
  const load = useCallback(() => {
    getWebhook(id).then(setHook, setLoadError)
  }, [id])
  useEffect(load, [load])
  const { act, error, setError, notice } = useActions(() => {
    load()
    setDeliveriesVersion((n) => n + 1)
  })

  if (hook === undefined) {
    return loadError === undefined ? <p className="muted">Loading…</p> : <ErrorNote error={loadError} />
  }
  const snoozed = isSnoozed(hook)
  return (
    <section aria-labelledby="sub-title">
      <p>
        <a href="#/subscriptions">← Subscriptions</a>
      </p>
      <h1 id="sub-title">{hook.name}</h1>
      {notice === undefined ? null : <p role="status">{notice}</p>}
      <ErrorNote error={error} />
      {secret === undefined ? null : (
        <div className="panel once" role="status">
          <label>
            New signing secret
            <input readOnly value={secret.value} onFocus={(e) => e.target.select()} />
          </label>
          <p className="muted small">
            Shown only now: copy it to your receiver. Deliveries carry a signature by the previous secret too until{" "}
            <Time iso={seconds(secret.oldUntil)} />.
          </p>
        </div>
      )}
      <dl className="settings">
        <dt>Query</dt>
        <dd>
          <code>{hook.q}</code>
        </dd>
        <dt>Universe</dt>
        <dd>{hook.universe_id ?? "whole market"}</dd>
        <dt>Channel</dt>
        <dd>
          {hook.channel}
          {hook.target_url === null ? "" : ` → ${hook.target_url}`}
          {hook.channel === "chat" ? (hook.channel_config_present ? " (chat URL stored)" : " (no chat URL)") : ""}
        </dd>
        <dt>Cadence</dt>
        <dd>{hook.cadence}</dd>
        <dt>Fires on</dt>
        <dd>
          {hook.fire_on}
          {hook.pending_for === "0s" ? "" : `, pending for ${hook.pending_for}`}
          {hook.cooldown === "0s" ? "" : `, cooldown ${hook.cooldown}`}
          {hook.repeat_interval === null ? "" : `, repeated every ${hook.repeat_interval}`}
        </dd>
        {hook.clear_q === null ? null : (
          <>
            <dt>Clears when</dt>
            <dd>
              <code>{hook.clear_q}</code>
            </dd>
          </>
        )}
        {hook.fields.length === 0 ? null : (
          <>
            <dt>Extra fields</dt>
            <dd>{hook.fields.join(", ")}</dd>
          </>
        )}
        <dt>Status</dt>
        <dd>
          {hook.status}
          {hook.disabled_reason === null ? "" : ` (${hook.disabled_reason})`}
          {snoozed ? (
            <>
              , snoozed until <Time iso={seconds(hook.snoozed_until!)} />
            </>
          ) : null}
        </dd>
        <dt>Matches now</dt>
        <dd>
          {hook.last_match_set.length === 0
            ? "none"
            : `${hook.last_match_set.length}: ${hook.last_match_set.slice(0, 12).join(", ")}${hook.last_match_set.length > 12 ? "…" : ""}`}
        </dd>
        <dt>Last evaluated</dt>
        <dd>{hook.last_evaluated_at === null ? "not yet" : <Time iso={seconds(hook.last_evaluated_at)} />}</dd>
        <dt>Last fired</dt>
        <dd>{hook.last_fired === null ? "never" : <Time iso={seconds(hook.last_fired)} />}</dd>
      </dl>
      <div className="row actions">
        <a className="button" href={`#/subscriptions/${encodeURIComponent(hook.id)}/edit`}>
          Edit
        </a>
        {hook.status === "active" ? (
          <button type="button" onClick={act(() => webhookAction(session, hook.id, "disable"), "Disabled.")}>
            Disable
          </button>
        ) : (
          <button type="button" onClick={act(() => webhookAction(session, hook.id, "enable"), "Enabled.")}>
            Enable
          </button>
        )}
        <button type="button" onClick={act(() => testWebhook(session, hook.id), "Test sent: see the delivery log.")}>
          Send test
        </button>
        <label>
          Snooze for
          <select value={snoozeFor} onChange={(e) => setSnoozeFor(Number(e.target.value))}>
            {SNOOZES.map((s) => (
              <option key={s.ms} value={s.ms}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          onClick={act(
            () => snoozeWebhook(session, hook.id, new Date(Date.now() + snoozeFor)),
            "Snoozed: events are kept in the feed, not delivered."
          )}
        >
          Snooze
        </button>
        {snoozed ? (
          <button type="button" onClick={act(() => unsnoozeWebhook(session, hook.id), "Snooze ended.")}>
            End snooze
          </button>
        ) : null}
        {hook.channel === "webhook" ? (
          <button
            type="button"
            onClick={() => {
              if (!window.confirm("Issue a new signing secret? The current one keeps signing for 24 hours.")) return
              setError(undefined)
              rotateSecret(session, hook.id).then(
                (r) => {
                  setSecret({ value: r.signing_secret, oldUntil: r.previous_secret_expires_at })
                  setHook(r.webhook)
                },
                (e: unknown) => setError(e)
              )
            }}
          >
            Rotate secret
          </button>
        ) : null}
        <button
          type="button"
          className="danger"
          onClick={() => {
            if (!window.confirm(`Delete the subscription ${hook.name}?`)) return
            deleteWebhook(session, hook.id).then(
              () => {
                window.location.hash = "#/subscriptions"
              },
              (e: unknown) => setError(e)
            )
          }}
        >
          Delete
        </button>
      </div>
      <Deliveries session={session} hook={hook} version={deliveriesVersion} />
      <Events hook={hook} />
      <Explain hook={hook} />
    </section>
  )
}

const DELIVERY_STATUS: Record<DeliveryRecord["status"], string> = {
  pending: "pending",
  delivered: "delivered",
  permanent_failure: "failed"
}

const Deliveries = ({
  session,
  hook,
  version
}: {
  readonly session: Session
  readonly hook: Webhook
  readonly version: number
}) => {
  const [pages, setPages] = useState<ReadonlyArray<string | undefined>>([undefined])
  const [rows, setRows] = useState<ReadonlyArray<DeliveryRecord> | undefined>(undefined)
  const [next, setNext] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(undefined)
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const cursor = pages[pages.length - 1]

  const load = useCallback(() => {
    listDeliveries(hook.id, cursor).then(
      (r) => {
        setRows(r.deliveries)
        setNext(r.next_cursor)
      },
      (e: unknown) => setError(e)
    )
  }, [hook.id, cursor])
  // biome-ignore lint/correctness/useExhaustiveDependencies: reloaded when the page acts (version)
  useEffect(load, [load, version])

  const retry = (d: DeliveryRecord) => {
    setError(undefined)
    retryDelivery(session, hook.id, d.id).then(
      () => {
        setNotice(`Delivery ${d.id} sent again.`)
        load()
      },
      (e: unknown) => setError(e)
    )
  }

  return (
    <section aria-labelledby="deliveries-title" className="panel">
      <h2 id="deliveries-title">Delivery log</h2>
      {notice === undefined ? null : <p role="status">{notice}</p>}
      <ErrorNote error={error} />
      <button type="button" onClick={load} className="small">
        Reload deliveries
      </button>
      {rows === undefined ? (
        <p className="muted">Loading…</p>
      ) : rows.length === 0 ? (
        <p className="muted">No deliveries yet.</p>
      ) : (
        <div className="scroll">
          <table className="data" aria-label="Deliveries">
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempt</th>
                <th scope="col">Code</th>
                <th scope="col">Error</th>
                <th scope="col">Next attempt</th>
                <th scope="col">Retry</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id}>
                  <td>
                    <Time iso={seconds(d.created_at)} />
                  </td>
                  <td>
                    {d.event}
                    {d.test ? " (test)" : ""}
                  </td>
                  <td className={`delivery-${d.status}`}>{DELIVERY_STATUS[d.status]}</td>
                  <td className="num">{d.attempt}</td>
                  <td className="num">{d.last_status_code ?? "—"}</td>
                  <td>{d.last_error ?? "—"}</td>
                  <td>
                    {d.status === "pending" && d.next_attempt_at !== null ? (
                      <Time iso={seconds(d.next_attempt_at)} />
                    ) : (
                      "—"
                    )}
                  </td>
                  <td>
                    {d.status === "permanent_failure" ? (
                      <button type="button" onClick={() => retry(d)}>
                        Retry <span className="sr-only">{d.id}</span>
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="row">
        <button type="button" disabled={pages.length === 1} onClick={() => setPages((p) => p.slice(0, -1))}>
          Newer deliveries
        </button>
        <button type="button" disabled={next === null} onClick={() => setPages((p) => [...p, next ?? undefined])}>
          Older deliveries
        </button>
      </div>
    </section>
  )
}

const tickersOf = (e: WebhookEvent) =>
  (e.body.data?.matches ?? e.body.data?.cleared ?? []).map((row) => String(row.ticker))

const Events = ({ hook }: { readonly hook: Webhook }) => {
  const [events, setEvents] = useState<ReadonlyArray<WebhookEvent>>([])
  const [after, setAfter] = useState<number | undefined>(undefined)
  const [more, setMore] = useState(true)
  const [oldest, setOldest] = useState<number | null>(null)
  const [error, setError] = useState<unknown>(undefined)

  const loadFrom = useCallback(
    (from: number, reset: boolean) => {
      listEvents(hook.id, from).then(
        (r) => {
          setEvents((had) => (reset ? r.events : [...had, ...r.events]))
          setOldest(r.oldest_sequence)
          setMore(r.next_cursor !== null)
          setAfter(r.events.length === 0 ? from : r.events[r.events.length - 1]!.sequence)
        },
        (e: unknown) => setError(e)
      )
    },
    [hook.id]
  )
  useEffect(() => loadFrom(0, true), [loadFrom])

  return (
    <section aria-labelledby="events-title" className="panel">
      <h2 id="events-title">Event feed</h2>
      <p className="muted small">
        Every event in sequence, delivered or (while snoozed) kept here only
        {oldest === null ? "" : `; the oldest kept is #${oldest}`}.
      </p>
      <ErrorNote error={error} />
      {events.length === 0 ? (
        <p className="muted">No events yet.</p>
      ) : (
        <ol className="events" aria-label="Events">
          {events.map((e) => {
            const tickers = tickersOf(e)
            return (
              <li key={e.sequence}>
                <span className="muted">#{e.sequence}</span> <Time iso={seconds(e.created_at)} />{" "}
                <span className={e.type === "webhook.fired" ? "fired" : "cleared"}>
                  {e.type === "webhook.fired" ? "fired" : "cleared"}
                </span>
                {e.suppressed ? <span className="muted"> (snoozed: not delivered)</span> : null}{" "}
                {tickers.slice(0, 12).map((t, i) => (
                  <span key={t}>
                    {i > 0 ? ", " : ""}
                    <a href={`#/tickers/${encodeURIComponent(t)}?at=${encodeURIComponent(seconds(e.created_at))}`}>
                      {t}
                    </a>
                  </span>
                ))}
                {(e.body.data?.match_count ?? tickers.length) > 12
                  ? ` and ${(e.body.data?.match_count ?? tickers.length) - 12} more`
                  : ""}
              </li>
            )
          })}
        </ol>
      )}
      <div className="row">
        <button type="button" disabled={!more} onClick={() => loadFrom(after ?? 0, false)}>
          Later events
        </button>
        <button type="button" onClick={() => loadFrom(0, true)}>
          Reload events
        </button>
      </div>
    </section>
  )
}

const Explain = ({ hook }: { readonly hook: Webhook }) => {
  const [ticker, setTicker] = useState(hook.last_match_set[0] ?? "")
  const [answer, setAnswer] = useState<Explained | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    setError(undefined)
    explainWebhook(hook.id, ticker.trim()).then(setAnswer, (e: unknown) => {
      setAnswer(undefined)
      setError(messageOf(e))
    })
  }
  return (
    <section aria-labelledby="explain-title" className="panel">
      <h2 id="explain-title">Explain</h2>
      <form onSubmit={submit} className="row">
        <label>
          Ticker
          <input value={ticker} onChange={(e) => setTicker(e.target.value.toUpperCase())} required size={10} />
        </label>
        <button type="submit">Explain</button>
      </form>
      {error === undefined ? null : (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {answer === undefined ? null : (
        <div className="explained">
          <p>
            <strong>{answer.ticker}</strong> is <strong>{answer.state}</strong>: {answer.reason}
          </p>
          <p className="muted small">
            Evaluated on the data of <Time iso={answer.data_as_of} />
            {answer.evaluated_at === null ? "" : "."}
          </p>
          <ExplainTreeView tree={answer.tree} label={`Why ${answer.ticker}`} />
        </div>
      )}
    </section>
  )
}
