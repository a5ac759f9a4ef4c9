import { type FormEvent, useCallback, useEffect, useState } from "react"
import { type CreatedKey, createKey, type KeyInfo, listKeys, revokeKey, type Session } from "./api"
import { Time } from "./time"

/** The account's API keys: issue one (shown once), list them, revoke one. */
export const Keys = ({ session }: { readonly session: Session }) => {
  const [keys, setKeys] = useState<ReadonlyArray<KeyInfo> | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const [mode, setMode] = useState<"test" | "live">("test")
  const [created, setCreated] = useState<CreatedKey | undefined>(undefined)
  const [busy, setBusy] = useState(false)

  const load = useCallback(() => {
    listKeys().then(
      (r) => setKeys(r.keys),
      (e: unknown) => setError(e instanceof Error ? e.message : String(e))
    )
  }, [])
  useEffect(load, [load])

  const create = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      setCreated(await createKey(session, mode))
      load()
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    } finally {
      setBusy(false)
    }
  }

  const revoke = async (key: KeyInfo) => {
    if (!window.confirm(`Revoke ${key.prefix}…? Requests with it are refused from then on.`)) return
    setError(undefined)
    try {
      await revokeKey(session, key.key_id)
      if (created?.key_id === key.key_id) setCreated(undefined)
      load()
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    }
  }

  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <p className="muted">
        Keys call the <code>/v2</code> API as this account (<code>Authorization: Bearer …</code>). A key is shown once,
        when it is issued; Vigil keeps only its hash.
      </p>
      <form className="row" onSubmit={create}>
        <label>
          Mode
          <select value={mode} onChange={(e) => setMode(e.target.value === "live" ? "live" : "test")}>
            <option value="test">test</option>
            <option value="live">live</option>
          </select>
        </label>
        <button type="submit" disabled={busy}>
          Create key
        </button>
      </form>
      {created === undefined ? null : (
        <div role="status" className="reveal">
          <p>Your new {created.mode} key. Copy it now: it will not be shown again.</p>
          <input
            readOnly
            aria-label="New API key"
            className="secret"
            value={created.api_key}
            onFocus={(e) => e.target.select()}
          />
          <button type="button" onClick={() => void navigator.clipboard?.writeText(created.api_key)}>
            Copy
          </button>
        </div>
      )}
      {error === undefined ? null : (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {keys === undefined ? (
        <p className="muted">Loading keys…</p>
      ) : keys.length === 0 ? (
        <p className="muted">No keys yet. Create one to call the API.</p>
      ) : (
        <table className="data">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Mode</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.key_id}>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>{k.mode}</td>
                <td>
                  <Time iso={k.created_at} />
                </td>
                <td>{k.last_used_at === null ? "never" : <Time iso={k.last_used_at} />}</td>
                <td>
                  {k.revoked_at === null ? (
                    <button type="button" className="danger" onClick={() => void revoke(k)}>
                      Revoke <span className="sr-only">{k.prefix}</span>
                    </button>
                  ) : (
                    <span>
                      revoked <Time iso={k.revoked_at} />
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
