import { useEffect, useState } from "react"
import { currentSession, type Session, signOut } from "./api"
import { SignIn } from "./SignIn"

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

const Shell = ({ session, onSignedOut }: { readonly session: Session; readonly onSignedOut: () => void }) => {
  const [error, setError] = useState<string | undefined>(undefined)
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
        <span className="brand">Vigil</span>
        <span className="who">
          <span>{session.user.email}</span> <span className="plan">{session.user.plan}</span>
        </span>
        <button type="button" onClick={out}>
          Sign out
        </button>
      </header>
      <main className="page">
        <h1>Signed in</h1>
        <p>
          You are signed in as <strong>{session.user.email}</strong> on the <strong>{session.user.plan}</strong> plan.
          The session ends at <time dateTime={session.expires_at}>{new Date(session.expires_at).toLocaleString()}</time>
          .
        </p>
        {error === undefined ? null : (
          <p role="alert" className="error">
            {error}
          </p>
        )}
      </main>
    </>
  )
}
