import { useEffect, useState } from "react"
import { currentSession, type Session, signOut } from "./api"
import { InboxPage, useInbox } from "./inbox"
import { Keys } from "./Keys"
import { Screener } from "./Screener"
import { Signals } from "./Signals"
import { SignIn } from "./SignIn"
import { SubscriptionsRoute } from "./Subscriptions"
import { Ticker } from "./Ticker"
import { type ThemeChoice, useTheme } from "./theme"
import { Time } from "./time"
import { Universes } from "./Universes"

type State =
  | { readonly _tag: "loading" }
  | { readonly _tag: "failed"; readonly message: string }
  | { readonly _tag: "signedOut" }
  | { readonly _tag: "signedIn"; readonly session: Session }

/** The dashboard: the sign-in form until signed in, then the signed-in shell. */
export const App = () => {
  const [state, setState] = useState<State>({ _tag: "loading" })

  useEffect(() => {
    currentSession().then(
      (session) => setState(session === undefined ? { _tag: "signedOut" } : { _tag: "signedIn", session }),
      (e: unknown) => setState({ _tag: "failed", message: e instanceof Error ? e.message : String(e) })
    )
  }, [])

  switch (state._tag) {
    case "loading":
      return <p className="status">Loading…</p>
    case "failed":
      return (
        <p role="alert" className="status error">
          {state.message}
        </p>
      )
    case "signedOut":
      return <SignIn onSignedIn={(session) => setState({ _tag: "signedIn", session })} />
    case "signedIn":
      return <Shell session={state.session} onSignedOut={() => setState({ _tag: "signedOut" })} />
  }
}

/** the pages of the signed-in dashboard, by the URL's hash */
const PAGES = [
  { hash: "#/screener", name: "Screener" },
  { hash: "#/signals", name: "Signals" },
  { hash: "#/universes", name: "Universes" },
  { hash: "#/subscriptions", name: "Subscriptions" },
  { hash: "#/inbox", name: "Inbox" },
  { hash: "#/keys", name: "Keys" }
] as const

const useHash = () => {
  const [hash, setHash] = useState(window.location.hash)
  useEffect(() => {
    const moved = () => setHash(window.location.hash)
    window.addEventListener("hashchange", moved)
    return () => window.removeEventListener("hashchange", moved)
  }, [])
  return hash
}

const Shell = ({ session, onSignedOut }: { readonly session: Session; readonly onSignedOut: () => void }) => {
  const [error, setError] = useState<string | undefined>(undefined)
  const hash = useHash()
  const inbox = useInbox(session)
  const out = async () => {
    try {
      await signOut(session)
      onSignedOut()
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    }
  }
  return (
    <>
      <header className="top">
        <a className="brand" href="#/">
          Vigil
        </a>
        <nav aria-label="Main">
          {PAGES.map((p) => (
            <a
              key={p.hash}
              href={p.hash}
              aria-current={hash === p.hash || hash.startsWith(`${p.hash}/`) ? "page" : undefined}
            >
              {p.name}
              {p.hash === "#/inbox" && inbox.unread > 0 ? (
                <span className="badge">
                  {" "}
                  {inbox.unread}
                  <span className="sr-only"> unread</span>
                </span>
              ) : null}
            </a>
          ))}
        </nav>
        <span className="who">
          <span>{session.user.email}</span> <span className="plan">{session.user.plan}</span>
        </span>
        <ThemePicker />
        <button type="button" onClick={out}>
          Sign out
        </button>
      </header>
      <main className="page">
        {error === undefined ? null : (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        {hash === "#/keys" ? (
          <Keys session={session} />
        ) : hash === "#/screener" ? (
          <Screener session={session} />
        ) : hash === "#/signals" ? (
          <Signals session={session} />
        ) : hash === "#/universes" ? (
          <Universes session={session} />
        ) : hash.startsWith("#/subscriptions") ? (
          <SubscriptionsRoute session={session} hash={hash} />
        ) : hash === "#/inbox" ? (
          <InboxPage inbox={inbox} />
        ) : hash.startsWith("#/tickers/") ? (
          <TickerRoute hash={hash} />
        ) : (
          <Overview session={session} />
        )}
      </main>
    </>
  )
}

/** `#/tickers/<TICKER>[?at=<ISO time>]`: a ticker's chart, marked at a time (an alert's) */
const TickerRoute = ({ hash }: { readonly hash: string }) => {
  const [path, query] = hash.slice("#/tickers/".length).split("?")
  const at = new URLSearchParams(query ?? "").get("at") ?? undefined
  return <Ticker ticker={decodeURIComponent(path ?? "").toUpperCase()} at={at} />
}

const Overview = ({ session }: { readonly session: Session }) => (
  <section aria-labelledby="overview-title">
    <h1 id="overview-title">Signed in</h1>
    <p>
      You are signed in as <strong>{session.user.email}</strong> on the <strong>{session.user.plan}</strong> plan. The
      session ends at <Time iso={session.expires_at} />.
    </p>
    <p>
      <a href="#/screener">Screen the market</a>, or <a href="#/keys">manage your API keys</a> to call the{" "}
      <code>/v2</code> API.
    </p>
  </section>
)

const ThemePicker = () => {
  const [choice, setChoice] = useTheme()
  return (
    <label className="theme">
      <span className="sr-only">Theme</span>
      <select value={choice} onChange={(e) => setChoice(e.target.value as ThemeChoice)}>
        <option value="system">System theme</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  )
}
