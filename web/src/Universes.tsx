/**
 * The Universes page (`#/universes`): the system universes (read-only) and the account's own —
 * created from a list of tickers, renamed, tickers added and removed, deleted. The API's refusals
 * (an untracked ticker, an empty universe, a plan's cap) are shown with its message.
 */
import { type FormEvent, useCallback, useEffect, useState } from "react"
import type { Session } from "./api"
import {
  createUniverse,
  deleteUniverse,
  ownUniverses,
  parseTickers,
  systemUniverses,
  type Universe,
  updateUniverse
} from "./catalogApi"
import { Time } from "./time"

const seconds = (s: number) => new Date(s * 1000).toISOString()

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e))

const Alert = ({ error }: { readonly error: string | undefined }) =>
  error === undefined ? null : (
    <p role="alert" className="error">
      {error}
    </p>
  )

/** One of the account's universes: its tickers (each removable), tickers to add, a new name, delete. */
const UniverseCard = ({
  session,
  universe,
  onChanged,
  onDeleted
}: {
  readonly session: Session
  readonly universe: Universe
  readonly onChanged: (universe: Universe, done: string) => void
  readonly onDeleted: (universe: Universe) => void
}) => {
  const [add, setAdd] = useState("")
  const [rename, setRename] = useState(universe.name)
  const [error, setError] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const titleId = `universe-${universe.id}`

  const change = async (
    work: () => Promise<Universe | undefined>,
    done: (u: Universe) => string,
    after?: () => void
  ) => {
    setBusy(true)
    setError(undefined)
    try {
      const got = await work()
      if (got === undefined) onDeleted(universe)
      else onChanged(got, done(got))
      after?.()
    } catch (e) {
      setError(messageOf(e))
    } finally {
      setBusy(false)
    }
  }

  const submitAdd = (event: FormEvent) => {
    event.preventDefault()
    const tickers = parseTickers(add)
    if (tickers.length === 0) return
    void change(
      () => updateUniverse(session, universe.id, { add: tickers }),
      (u) => `Added ${tickers.join(", ")} to ${u.name}.`,
      () => setAdd("")
    )
  }

  const submitRename = (event: FormEvent) => {
    event.preventDefault()
    const name = rename.trim()
    if (name === "" || name === universe.name) return
    void change(
      () => updateUniverse(session, universe.id, { name }),
      (u) => `Renamed ${universe.name} to ${u.name}.`
    )
  }

  const remove = (ticker: string) =>
    void change(
      () => updateUniverse(session, universe.id, { remove: [ticker] }),
      (u) => `Removed ${ticker} from ${u.name}.`
    )

  const destroy = () => {
    if (!window.confirm(`Delete the universe ${universe.name}? Screens and subscriptions using it will fail.`)) return
    void change(
      async () => {
        await deleteUniverse(session, universe.id)
        return undefined
      },
      () => ""
    )
  }

  const tickers = universe.tickers ?? []
  return (
    <article aria-labelledby={titleId}>
      <h3 id={titleId}>{universe.name}</h3>
      <p className="muted small">
        <code>{universe.id}</code> · {universe.size} {universe.size === 1 ? "ticker" : "tickers"}
        {universe.updated_at === undefined ? null : (
          <>
            {" "}
            · changed <Time iso={seconds(universe.updated_at)} />
          </>
        )}
      </p>
      <ul className="chips" aria-label={`Tickers of ${universe.name}`}>
        {tickers.map((t) => (
          <li key={t}>
            <a href={`#/tickers/${encodeURIComponent(t)}`}>{t}</a>
            <button
              type="button"
              className="chip-remove"
              disabled={busy}
              onClick={() => remove(t)}
              title={`Remove ${t}`}
            >
              <span aria-hidden="true">×</span>
              <span className="sr-only">
                Remove {t} from {universe.name}
              </span>
            </button>
          </li>
        ))}
      </ul>
      <Alert error={error} />
      <div className="row">
        <form className="inline" onSubmit={submitAdd}>
          <label>
            Add tickers<span className="sr-only"> to {universe.name}</span>
            <input
              value={add}
              onChange={(e) => setAdd(e.target.value)}
              placeholder="NVDA, AMD"
              autoComplete="off"
              spellCheck={false}
            />
          </label>
          <button type="submit" disabled={busy}>
            Add<span className="sr-only"> to {universe.name}</span>
          </button>
        </form>
        <form className="inline" onSubmit={submitRename}>
          <label>
            New name<span className="sr-only"> of {universe.name}</span>
            <input value={rename} onChange={(e) => setRename(e.target.value)} required maxLength={200} />
          </label>
          <button type="submit" className="secondary" disabled={busy}>
            Rename<span className="sr-only"> {universe.name}</span>
          </button>
        </form>
        <button type="button" className="danger" disabled={busy} onClick={destroy}>
          Delete<span className="sr-only"> {universe.name}</span>
        </button>
      </div>
    </article>
  )
}

/** The Universes page: the system universes and the account's own, with a form for a new one. */
export const Universes = ({ session }: { readonly session: Session }) => {
  const [system, setSystem] = useState<ReadonlyArray<Universe> | undefined>(undefined)
  const [own, setOwn] = useState<ReadonlyArray<Universe> | undefined>(undefined)
  const [loadError, setLoadError] = useState<string | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const [name, setName] = useState("")
  const [tickers, setTickers] = useState("")
  const [busy, setBusy] = useState(false)

  const load = useCallback(() => {
    systemUniverses().then(setSystem, (e: unknown) => setLoadError(messageOf(e)))
    ownUniverses().then(setOwn, (e: unknown) => setLoadError(messageOf(e)))
  }, [])
  useEffect(load, [load])

  const create = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    setNotice(undefined)
    try {
      const made = await createUniverse(session, name.trim(), parseTickers(tickers))
      setNotice(`Created ${made.name} (${made.size} ${made.size === 1 ? "ticker" : "tickers"}).`)
      setName("")
      setTickers("")
      setOwn((held) => [...(held ?? []).filter((u) => u.id !== made.id), made])
    } catch (e) {
      setError(messageOf(e))
    } finally {
      setBusy(false)
    }
  }

  return (
    <section aria-labelledby="universes-title">
      <h1 id="universes-title">Universes</h1>
      <p className="muted">
        A universe is a named list of tickers that scopes a screen or a subscription. The system universes follow the
        most traded tickers; your own are yours to change.
      </p>
      <Alert error={loadError} />

      <section aria-labelledby="own-title" className="panel">
        <h2 id="own-title">Your universes</h2>
        <form onSubmit={create} className="universe-form">
          <label>
            Universe name
            <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
          </label>
          <label>
            Tickers
            <input
              value={tickers}
              onChange={(e) => setTickers(e.target.value)}
              required
              placeholder="AAPL, MSFT NVDA"
              autoComplete="off"
              spellCheck={false}
              aria-describedby="universe-tickers-hint"
            />
          </label>
          <p id="universe-tickers-hint" className="muted small">
            Symbols separated by commas or spaces; each must be a tracked ticker.
          </p>
          <button type="submit" disabled={busy}>
            Create universe
          </button>
        </form>
        {notice === undefined ? null : <p role="status">{notice}</p>}
        <Alert error={error} />
        {own === undefined ? (
          loadError === undefined ? (
            <p className="muted">Loading…</p>
          ) : null
        ) : own.length === 0 ? (
          <p className="muted">No universes of your own yet.</p>
        ) : (
          <ul className="cards" aria-label="Your universes">
            {own.map((u) => (
              <li key={u.id}>
                <UniverseCard
                  session={session}
                  universe={u}
                  onChanged={(changed, done) => {
                    setNotice(done)
                    setOwn((held) => held?.map((x) => (x.id === changed.id ? changed : x)))
                  }}
                  onDeleted={(gone) => {
                    setNotice(`Deleted ${gone.name}.`)
                    setOwn((held) => held?.filter((x) => x.id !== gone.id))
                  }}
                />
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="system-title">
        <h2 id="system-title">System universes</h2>
        <p className="muted">
          The most actively traded tickers by 30-day trailing dollar volume, rebalanced monthly on the 1st. Read-only.
        </p>
        {system === undefined ? null : (
          <table className="data" aria-labelledby="system-title">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">ID</th>
                <th scope="col">Size</th>
                <th scope="col">Next rebalance</th>
                <th scope="col">Tickers</th>
              </tr>
            </thead>
            <tbody>
              {system.map((u) => (
                <tr key={u.id}>
                  <td>{u.name}</td>
                  <td>
                    <code>{u.id}</code>
                  </td>
                  <td className="num">{u.size}</td>
                  <td>{u.next_rebalance_at === undefined ? "—" : <Time iso={seconds(u.next_rebalance_at)} />}</td>
                  <td className="wrap">
                    <div>{u.tickers === undefined ? "not listed" : u.tickers.join(", ")}</div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </section>
  )
}
