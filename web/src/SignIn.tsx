import { type FormEvent, useState } from "react"
import { ApiError, type Session, signIn } from "./api"

/** The sign-in form: email and password; a wrong one or a lockout said plainly. */
export const SignIn = ({ onSignedIn }: { readonly onSignedIn: (session: Session) => void }) => {
  const [email, setEmail] = useState("")
  const [password, setPassword] = useState("")
  const [error, setError] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      onSignedIn(await signIn(email, password))
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) setError("Wrong email or password.")
      else if (e instanceof ApiError && e.status === 429) {
        const minutes = e.retryAfter === undefined ? undefined : Math.ceil(e.retryAfter / 60)
        setError(
          `Too many wrong passwords: sign-in for this email is locked${minutes === undefined ? "" : ` for ${minutes} more minute${minutes === 1 ? "" : "s"}`}.`
        )
      } else setError(e instanceof Error ? e.message : String(e))
    } finally {
      setBusy(false)
    }
  }

  return (
    <main className="signin">
      <form onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">Sign in to Vigil</h1>
        <label>
          Email
          <input
            type="email"
            name="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        {error === undefined ? null : (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  )
}
