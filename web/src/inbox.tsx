import { useCallback, useEffect, useState } from "react"
import { ApiError, INBOX_EVENTS, type InboxItem, listNotifications, markRead, type Session } from "./api"
import { Time } from "./time"

export interface Inbox {
  readonly items: ReadonlyArray<InboxItem> | undefined
  readonly unread: number
  readonly error: string | undefined
  readonly markOne: (id: string) => Promise<void>
  readonly markAll: () => Promise<void>
}

/** The account's in-app notifications: read once, then kept live by the server's events. */
export const useInbox = (session: Session): Inbox => {
  const [items, setItems] = useState<ReadonlyArray<InboxItem> | undefined>(undefined)
  const [unread, setUnread] = useState(0)
  const [error, setError] = useState<string | undefined>(undefined)

  useEffect(() => {
    let source: EventSource | undefined
    let stopped = false
    listNotifications().then(
      (r) => {
        if (stopped) return
        setItems(r.notifications)
        setUnread(r.unread_count)
        source = new EventSource(INBOX_EVENTS)
        source.addEventListener("notification", (event) => {
          const item = JSON.parse((event as MessageEvent<string>).data) as InboxItem
          setItems((held) => (held?.some((n) => n.id === item.id) ? held : [item, ...(held ?? [])]))
          if (!item.read) setUnread((n) => n + 1)
        })
      },
      (e: unknown) => {
        if (stopped) return
        setItems([])
        setError(
          e instanceof ApiError && e.code === "webhook_tier_required"
            ? "In-app notifications come from webhooks, which this plan does not include."
            : e instanceof Error
              ? e.message
              : String(e)
        )
      }
    )
    return () => {
      stopped = true
      source?.close()
    }
  }, [])

  const markOne = useCallback(
    async (id: string) => {
      await markRead(session, [id])
      setItems((held) => held?.map((n) => (n.id === id ? { ...n, read: true } : n)))
      setUnread((n) => Math.max(0, n - 1))
    },
    [session]
  )
  const markAll = useCallback(async () => {
    await markRead(session)
    setItems((held) => held?.map((n) => ({ ...n, read: true })))
    setUnread(0)
  }, [session])

  return { items, unread, error, markOne, markAll }
}

/** Links to the chart of each ticker an alert carries, at the alert's data time. */
const ChartLinks = ({ item }: { readonly item: InboxItem }) => {
  const data = (item.event as { data?: { as_of?: string; matches?: Array<{ ticker?: unknown }> } }).data
  const tickers = (data?.matches ?? []).flatMap((m) => (typeof m.ticker === "string" ? [m.ticker] : []))
  if (tickers.length === 0 || data?.as_of === undefined) return null
  const at = encodeURIComponent(data.as_of)
  return (
    <p className="links">
      Charts:{" "}
      {tickers.slice(0, 12).map((t, k) => (
        <span key={t}>
          {k === 0 ? "" : ", "}
          <a href={`#/tickers/${encodeURIComponent(t)}?at=${at}`}>{t}</a>
        </span>
      ))}
      {tickers.length > 12 ? ` and ${tickers.length - 12} more` : ""}
    </p>
  )
}

/** The inbox page: newest first, unread ones marked, each readable at once or all together. */
export const InboxPage = ({ inbox }: { readonly inbox: Inbox }) => {
  const [error, setError] = useState<string | undefined>(undefined)
  const act = (work: () => Promise<void>) => () => {
    setError(undefined)
    work().catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)))
  }
  return (
    <section aria-labelledby="inbox-title">
      <h1 id="inbox-title">Inbox</h1>
      <p className="muted">Alerts of your in-app subscriptions, as they fire.</p>
      {inbox.error === undefined && error === undefined ? null : (
        <p role="alert" className="error">
          {inbox.error ?? error}
        </p>
      )}
      {inbox.items === undefined ? (
        <p className="muted">Loading…</p>
      ) : inbox.items.length === 0 ? (
        <p className="muted">Nothing yet. Alerts of in-app subscriptions arrive here live.</p>
      ) : (
        <>
          <div className="row">
            <button type="button" disabled={inbox.unread === 0} onClick={act(inbox.markAll)}>
              Mark all read
            </button>
          </div>
          <ul className="inbox" aria-label="Notifications">
            {inbox.items.map((n) => (
              <li key={n.id} className={n.read ? "read" : "unread"}>
                <div className="title">
                  {n.read ? null : (
                    <span className="dot">
                      <span className="sr-only">unread</span>
                    </span>
                  )}
                  <strong>{n.title}</strong>{" "}
                  <span className="muted">
                    <Time iso={new Date(n.created_at * 1000).toISOString()} />
                  </span>
                </div>
                <p>{n.body}</p>
                <ChartLinks item={n} />
                {n.read ? null : (
                  <button type="button" onClick={act(() => inbox.markOne(n.id))}>
                    Mark read <span className="sr-only">{n.title}</span>
                  </button>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  )
}
